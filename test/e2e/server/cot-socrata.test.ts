import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConf } from '../../../src/build/nginx-conf.ts';
import { listStaticErrors } from '../../../src/build/static-errors.ts';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * COT the way CFTC Socrata users ask (issue 35 item 5): a market by its CFTC contract market code
 * (/api/v1/markets/cot/088691, the same body as its slug) and every market's report of one date
 * (/api/v1/markets/cot/reports?report_date=&report_type=), public inside the public window and
 * cot:history beyond it. Over HTTP on a snapshot of the CFTC's whole 2004 legacy file (52 weeks), checked
 * against that file read by hand (no parser, no DuckDB).
 */
const LEGACY = join(SHARED_DATA, 'cftc/history/legacy_fut_2004__deacot2004_annual.txt');
const REAL_CLOCK = () => new Date();

interface Report {
  report_date: string;
  report_type: string;
  open_interest: number | null;
  categories: Record<string, { long: number | null; short: number | null }>;
}
interface Row {
  slug: string;
  code: string;
  report: Report;
}
interface Body {
  data: unknown;
  meta: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** Per report date, per market code: open interest and noncommercial long and short, as written. */
function readLegacyByHand(): Map<string, Map<string, { oi: number; long: number; short: number }>> {
  const file = readCftcFileByHand(LEGACY);
  const column = (name: string) => file.header.indexOf(name);
  const [date, code, oi, long, short] = [
    column('As of Date in Form YYYY-MM-DD'),
    column('CFTC Contract Market Code'),
    column('Open Interest (All)'),
    column('Noncommercial Positions-Long (All)'),
    column('Noncommercial Positions-Short (All)'),
  ];
  const byDate = new Map<string, Map<string, { oi: number; long: number; short: number }>>();
  for (const { fields } of file.lines) {
    const day = fields[date]!;
    const markets = byDate.get(day) ?? new Map();
    markets.set(fields[code]!, {
      oi: Number(fields[oi]),
      long: Number(fields[long]),
      short: Number(fields[short]),
    });
    byDate.set(day, markets);
  }
  return byDate;
}

describe('COT by CFTC code and by report date, on the whole 2004 legacy file', () => {
  const temp = createTempDir('mmds-cot-socrata-');
  const dataDir = join(temp.dir, 'data');
  const emptyDist = createTempDir('mmds-no-dist-');
  const byDate = readLegacyByHand();
  const dates = [...byDate.keys()].sort();
  const newest = dates.at(-1)!;
  let server: TestServer;
  let historyKey: string;
  let otherKey: string;

  const issue = async (scopes: string): Promise<string> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Socrata Org', '--scopes', scopes],
      { MMDS_DATA_DIR: dataDir },
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  beforeAll(async () => {
    for (const step of [
      ['catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['cftc', LEGACY],
    ]) {
      const run = await runMmds(['ingest', ...step], { MMDS_DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(0);
    }
    const publish = await runMmds(['publish'], { MMDS_DATA_DIR: dataDir });
    expect(publish.code, publish.stderr).toBe(0);
    server = await startTestServer({ dataDir, distDir: emptyDist.dir, anonymousLimit: 10_000 });
    historyKey = await issue('cot:history');
    otherKey = await issue('observations:read');
  });

  afterAll(async () => {
    await server?.close();
    emptyDist.remove();
    temp.remove();
  });

  const get = async (path: string, key?: string) => {
    const response = await fetch(new URL(path, server.url), {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    return { response, body: (await response.json()) as Body };
  };
  const comparable = (body: Body) => ({ data: body.data, meta: { ...body.meta, generated_at: null } });

  it('answers a market by its CFTC code with the body of its slug, keyed or not, any case', async () => {
    // Gold on COMEX: 088691 in the file.
    const summary = (await get('/api/v1/markets/cot')).body.data as Array<{ slug: string; code: string }>;
    const gold = summary.find((market) => market.code === '088691')!;
    expect(gold).toBeDefined();
    const bySlug = await get(`/api/v1/markets/cot/${gold.slug}`);
    const byCode = await get('/api/v1/markets/cot/088691');
    expect(byCode.response.status).toBe(200);
    expect(comparable(byCode.body)).toEqual(comparable(bySlug.body));
    expect((byCode.body.meta.market as { slug: string }).slug).toBe(gold.slug);
    const reports = byCode.body.data as Report[];
    // The public window: the 12 newest report dates of the file, each as written.
    expect(reports.map((report) => report.report_date)).toEqual(dates.slice(-12));
    for (const report of reports)
      expect(report.open_interest).toBe(byDate.get(report.report_date)!.get('088691')!.oi);
    // A code with letters, in lower case too; the keyed full history by code.
    const lettered = summary.find((market) => /[A-Z]/.test(market.code) && !market.code.endsWith('+'))!;
    const lower = await get(`/api/v1/markets/cot/${lettered.code.toLowerCase()}`);
    expect(lower.response.status).toBe(200);
    expect(comparable(lower.body)).toEqual(
      comparable((await get(`/api/v1/markets/cot/${lettered.slug}`)).body),
    );
    const keyed = await get('/api/v1/markets/cot/088691?from=2004-01-01', historyKey);
    expect(keyed.response.status).toBe(200);
    expect((keyed.body.data as Report[]).length).toBe(
      dates.filter((date) => byDate.get(date)!.has('088691')).length,
    );
    // The keyed-only parameters keep their rule by code: 401 without a key, 403 with another.
    expect((await get('/api/v1/markets/cot/088691?from=2004-01-01')).response.status).toBe(401);
    expect((await get('/api/v1/markets/cot/088691?from=2004-01-01', otherKey)).response.status).toBe(403);
    for (const unknown of ['999999', 'ZZZZZZ', '0886910']) {
      const { response, body } = await get(`/api/v1/markets/cot/${unknown}`);
      expect(response.status, unknown).toBe(404);
      expect(body.error!.code, unknown).toBe('not_found');
    }
  });

  it("gives every market's report of the newest date, without a key, as the file has it", async () => {
    const { response, body } = await get('/api/v1/markets/cot/reports');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(body.meta).toMatchObject({ report_date: newest, requested_date: null, report_type: 'legacy' });
    const rows = body.data as Row[];
    const expected = byDate.get(newest)!;
    expect(rows.map((row) => row.code).sort()).toEqual([...expected.keys()].sort());
    expect(rows.map((row) => row.slug)).toEqual(rows.map((row) => row.slug).sort());
    for (const row of rows) {
      const written = expected.get(row.code)!;
      expect(row.report.report_date).toBe(newest);
      expect(row.report.open_interest, row.code).toBe(written.oi);
      expect(row.report.categories.noncommercial, row.code).toMatchObject({
        long: written.long,
        short: written.short,
      });
    }
    // The same reports as endpoint 3 gives per market.
    const sample = rows[0]!;
    const market = (await get(`/api/v1/markets/cot/${sample.slug}`)).body.data as Report[];
    expect(market.at(-1)).toEqual(sample.report);
    const explicit = await get(`/api/v1/markets/cot/reports?report_date=${newest}&report_type=legacy`);
    expect(explicit.body.data).toEqual(body.data);
    expect(explicit.body.meta.requested_date).toBe(newest);
  });

  it('keeps dates older than the public window for cot:history: 401 without a key, 403 with another', async () => {
    const inside = dates.at(-12)!;
    const outside = dates.at(-13)!;
    expect((await get(`/api/v1/markets/cot/reports?report_date=${inside}`)).response.status).toBe(200);
    const anonymous = await get(`/api/v1/markets/cot/reports?report_date=${outside}`);
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.response.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.body.error!.message).toContain('cot:history');
    const other = await get(`/api/v1/markets/cot/reports?report_date=${outside}`, otherKey);
    expect(other.response.status).toBe(403);
    expect(other.body.error!.code).toBe('insufficient_scope');
    const keyed = await get(`/api/v1/markets/cot/reports?report_date=${dates[0]}`, historyKey);
    expect(keyed.response.status).toBe(200);
    expect(keyed.response.headers.get('cache-control')).toBe('private, no-store');
    const rows = keyed.body.data as Row[];
    expect(rows.map((row) => row.code).sort()).toEqual([...byDate.get(dates[0]!)!.keys()].sort());
    for (const row of rows) expect(row.report.open_interest).toBe(byDate.get(dates[0]!)!.get(row.code)!.oi);
    // fields= changes no rights: the same refusals, and with the scope the rows keep those fields.
    expect(
      (await get(`/api/v1/markets/cot/reports?report_date=${outside}&fields=slug,report`)).response.status,
    ).toBe(401);
    expect(
      (await get(`/api/v1/markets/cot/reports?report_date=${outside}&fields=slug`, otherKey)).response.status,
    ).toBe(403);
    const selected = await get(
      `/api/v1/markets/cot/reports?report_date=${dates[0]}&fields=code,slug`,
      historyKey,
    );
    expect(selected.response.status).toBe(200);
    expect(JSON.stringify(selected.body.data)).toBe(
      JSON.stringify(rows.map((row) => ({ slug: row.slug, code: row.code }))),
    );
    // On a market: public fields of the public window; a keyed parameter beside fields still needs the key.
    const window = await get('/api/v1/markets/cot/088691?fields=open_interest,report_date');
    expect(window.response.status).toBe(200);
    expect(window.body.data).toEqual(
      dates
        .slice(-12)
        .map((date) => ({ report_date: date, open_interest: byDate.get(date)!.get('088691')!.oi })),
    );
    expect((await get('/api/v1/markets/cot/088691?from=2004-01-01&fields=report_date')).response.status).toBe(
      401,
    );
  });

  it('answers a date without a report with an empty list, and refuses bad values', async () => {
    // A Wednesday: reports are of Tuesdays.
    const wednesday = new Date(Date.parse(`${newest}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const empty = await get(`/api/v1/markets/cot/reports?report_date=${wednesday}`);
    expect(empty.response.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    const none = await get('/api/v1/markets/cot/reports?report_type=tff');
    expect(none.response.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.report_date).toBeNull();
    for (const query of [
      'report_date=2025-02-30',
      'report_date=20250107',
      'report_type=weekly',
      'market=gold',
    ]) {
      const { response, body } = await get(`/api/v1/markets/cot/reports?${query}`);
      expect(response.status, query).toBe(400);
      expect(body.error!.code, query).toBe('invalid_parameter');
    }
  });

  it('offers both on MCP: get_cot_market takes a code, get_cot_reports a date', async () => {
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const market = (await client.callTool({
        name: 'get_cot_market',
        arguments: { slug: '088691' },
      })) as CallToolResult;
      expect(market.isError ?? false).toBe(false);
      expect((market.structuredContent as unknown as Body).data).toEqual(
        (await get('/api/v1/markets/cot/088691')).body.data,
      );
      const reports = (await client.callTool({
        name: 'get_cot_reports',
        arguments: { report_date: dates.at(-2)! },
      })) as CallToolResult;
      // Every market's report is over the response budget, and the tool does not page: a tool error
      // that counts the rows and says how to narrow the call (fields among the ways).
      expect(reports.isError).toBe(true);
      const overBudget = JSON.parse((reports.content[0] as { text: string }).text) as {
        error: { code: string; message: string };
        rows: number;
      };
      expect(overBudget.error.code).toBe('over_budget');
      expect(overBudget.rows).toBe(byDate.get(dates.at(-2)!)!.size);
      expect(overBudget.error.message).toContain('fields');
      const refused = (await client.callTool({
        name: 'get_cot_reports',
        arguments: { report_date: dates[0]! },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('cot:history');
      // The tools take fields= as the REST paths do, with the same refusal beyond the public window.
      const selected = (await client.callTool({
        name: 'get_cot_reports',
        arguments: { report_date: dates.at(-2)!, fields: 'slug,code' },
      })) as CallToolResult;
      expect(selected.isError ?? false).toBe(false);
      expect((selected.structuredContent as unknown as Body).data).toEqual(
        (await get(`/api/v1/markets/cot/reports?report_date=${dates.at(-2)}&fields=slug,code`)).body.data,
      );
      const beyond = (await client.callTool({
        name: 'get_cot_reports',
        arguments: { report_date: dates[0]!, fields: 'slug' },
      })) as CallToolResult;
      expect(beyond.isError).toBe(true);
      expect(JSON.stringify(beyond.content)).toContain('cot:history');
    } finally {
      await client.close();
    }
  });

  it('documents both in OpenAPI and proxies a code path in the generated nginx.conf', () => {
    const doc = createOpenApiDocument() as {
      paths: Record<
        string,
        { get: { parameters: Array<{ name: string; in: string; schema: { pattern: string } }> } }
      >;
    };
    const slug = doc.paths['/api/v1/markets/cot/{slug}']!.get.parameters.find((p) => p.in === 'path')!;
    expect(new RegExp(slug.schema.pattern).test('088691')).toBe(true);
    expect(new RegExp(slug.schema.pattern).test('12460+')).toBe(true);
    const reports = doc.paths['/api/v1/markets/cot/reports']!.get.parameters.filter(
      (p) => p.in === 'query',
    ).map((p) => p.name);
    expect(reports).toEqual(['report_date', 'report_type', 'fields']);
    const conf = renderNginxConf({
      manifest: { snapshot: 's', generated_at: 'now', routes: [], bulk: [], files: [] } as never,
      errors: listStaticErrors(),
      root: '/dist',
    });
    const codeRule = conf
      .split('\n')
      .findIndex((line) => line.includes('/api/v1/markets/cot/[0-9A-Za-z+]{6}'));
    const notFoundRule = conf.split('\n').findIndex((line) => line.includes('~^/api/v1/markets/cot/[^/?]+$'));
    expect(codeRule).toBeGreaterThan(-1);
    expect(codeRule).toBeLessThan(notFoundRule);
  });
});

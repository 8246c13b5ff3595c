import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY_ORG, DEMO_REQUESTS, type DemoKey, renewDemoKey } from '../../../scripts/demo-key.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { SCOPES } from '../../../src/contract/routes.ts';
import { SERVED_WINDOWS } from '../../../src/query/cot.ts';
import { formatNumber } from '../../../src/site/format.ts';
import {
  computeExpected,
  expectExact,
  type RawReport,
  readRawReports,
  TFF_COLUMNS,
} from '../../helpers/cot-analytics-oracle.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

/** The sample's TFF history of 2013-2016 (data/sample/README.md): 167 weekly reports per market. */
const DEEP_FILES = [2013, 2014, 2015, 2016].map((year) =>
  join(SAMPLE_DATA, `cftc/tff_futures_only_${year}_selected_markets.txt`),
);
const PUBLIC_REPORTS = 12;

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/**
 * `npm start`'s demo key and printed requests (scripts/demo-key.ts) on the sample snapshot the
 * demo serves: one live demo key per data directory, holding every scope, and each printed
 * request answers what the demo says, whole (one page).
 */
describe('the demo key and the requests npm start prints', () => {
  let fixture: SharedSampleFixture;
  let server: TestServer;
  const starts: DemoKey[] = [];

  const get = (path: string, key: string | null) =>
    fetch(`${server.url}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });

  beforeAll(async () => {
    fixture = await useSharedSample();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: fixture.env.MMDS_DIST_DIR });
    const config = loadConfig(fixture.env, process.cwd());
    // Three starts of the demo on one data directory (the server checks expiry by the real clock).
    for (let i = 0; i < 3; i++) starts.push(await renewDemoKey(config, new Date()));
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('leaves one live demo key, with every scope, revoking the ones of earlier starts', async () => {
    expect(starts.map((start) => start.revoked)).toEqual([
      [],
      [starts[0]!.record.id],
      [starts[1]!.record.id],
    ]);
    const list = await runMmds(['--json', 'keys', 'list'], fixture.env, () => new Date());
    expect(list.code, list.stderr).toBe(0);
    const demoKeys = (
      JSON.parse(list.stdout) as Array<{ id: string; org: string; status: string; scopes: string[] }>
    ).filter((record) => record.org === DEMO_KEY_ORG);
    // Listed by creation time, then id: the three starts may share a second.
    const status = new Map(demoKeys.map((record) => [record.id, record]));
    expect(status.size).toBe(3);
    expect(starts.map((start) => status.get(start.record.id)?.status)).toEqual([
      'revoked',
      'revoked',
      'active',
    ]);
    expect(status.get(starts[2]!.record.id)!.scopes).toEqual([...SCOPES]);
    // The earlier keys are refused, the live one reaches the keyed full store (bulk:read).
    expect((await get('/api/v1/bulk/full', starts[0]!.plaintext)).status).toBe(401);
    expect((await get('/api/v1/bulk/full', starts[2]!.plaintext)).status).toBe(200);
    // Only hashes are stored.
    for (const path of listFiles(fixture.dataDir)) {
      const bytes = readFileSync(path);
      for (const start of starts) expect(bytes.includes(start.plaintext), path).toBe(false);
    }
  });

  it('allows 1,000 requests a minute, enough for the printed examples, the client and the site together', async () => {
    const live = starts[2]!.plaintext;
    const request = DEMO_REQUESTS.find((entry) => entry.keyed)!;
    const response = await get(request.path, live);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(900);
  });

  it('the deep TFF markets: the keyed history carries the COT Index and z-score, the public page 12 reports', async () => {
    // Read from the sample files without the parser: nets and windows in plain TypeScript.
    const raw = new Map<string, RawReport[]>();
    for (const file of DEEP_FILES)
      for (const [key, list] of await readRawReports({ ...TFF_COLUMNS, file }))
        raw.set(key, [...(raw.get(key) ?? []), ...list]);
    const listing = (await (await get('/api/v1/markets/cot', null)).json()) as {
      data: Array<{ slug: string; code: string }>;
    };
    expect(raw.size).toBe(4);
    for (const [key, reports] of raw) {
      const code = key.split('.')[1]!;
      const slug = listing.data.find((market) => market.code === code)?.slug;
      expect(slug, key).toBeDefined();
      const dates = reports.map((report) => report.period);
      // Contiguous weekly reports, enough for the longest window.
      expect(dates.length).toBe(167);
      expect(dates.length).toBeGreaterThanOrEqual(Math.max(...SERVED_WINDOWS.index));

      const keyed = await get(`/api/v1/markets/cot/${slug}?report_type=tff`, starts[2]!.plaintext);
      expect(keyed.status).toBe(200);
      const history = (
        (await keyed.json()) as {
          data: Array<{ report_date: string; categories: Record<string, Record<string, unknown>> }>;
        }
      ).data;
      expect(history.map((report) => report.report_date)).toEqual(dates);
      const expected = computeExpected(reports, SERVED_WINDOWS);
      for (const report of history)
        for (const [category, values] of Object.entries(expected.get(report.report_date)!))
          for (const [field, value] of Object.entries(values))
            expectExact(
              report.categories[category]![field],
              value,
              field,
              `${key} ${report.report_date} ${category}`,
            );
      const latest = history.at(-1)!;
      for (const [category, values] of Object.entries(latest.categories))
        for (const field of ['cot_index_26', 'cot_index_52', 'cot_index_156', 'z_score_52'])
          expect(values[field], `${key} ${latest.report_date} ${category} ${field}`).not.toBeNull();

      // Public: the 12 latest reports, with the same analytics; the page shows them and no older date.
      const pub = (await (await get(`/api/v1/markets/cot/${slug}?report_type=tff`, null)).json()) as {
        data: typeof history;
      };
      expect(pub.data.map((report) => report.report_date)).toEqual(dates.slice(-PUBLIC_REPORTS));
      const page = await get(`/markets/${slug}/`, null);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('52-week COT Index by trader category (Traders in Financial Futures report)');
      // The caption's dates sit in no-wrap spans (the phone layout): compared as text.
      expect(html.replace(/<[^>]*>/g, '')).toContain(
        `${PUBLIC_REPORTS} weekly reports, ${dates.at(-PUBLIC_REPORTS)} to ${dates.at(-1)}`,
      );
      expect(html).toContain('z-score, 52 weeks');
      const cells = [...html.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((match) => match[1]);
      const row = (c: Record<string, unknown>) => [
        formatNumber(c.cot_index_26 as number, 1),
        formatNumber(c.cot_index_52 as number, 1),
        formatNumber(c.cot_index_156 as number, 1),
        formatNumber(c.z_score_52 as number, 2),
      ];
      const analyticsCells = Object.values(latest.categories).flatMap(row);
      expect(cells.slice(-analyticsCells.length)).toEqual(analyticsCells);
      for (const old of dates.slice(0, -PUBLIC_REPORTS)) expect(html, `${slug} page`).not.toContain(old);
    }
  });

  it.each(DEMO_REQUESTS.map((request) => [request.path, request] as const))(
    'GET %s answers whole, as printed',
    async (_path, request) => {
      const response = await get(request.path, request.keyed ? starts[2]!.plaintext : null);
      expect(response.status).toBe(200);
      // One page: nothing cut off at the default limit.
      expect(response.headers.get('link') ?? '').not.toMatch(/rel="next"/);
      if (request.path.includes('.csv')) {
        const [header, ...rows] = (await response.text()).trim().split('\r\n');
        const columns = header!.split(',');
        const records = rows.map((row) =>
          Object.fromEntries(row.split(',').map((cell, i) => [columns[i], cell])),
        );
        // What the demo says: from 2025, both vintages, revision 2 superseding revision 1.
        expect(records.every((record) => record.period! >= '2025-01')).toBe(true);
        const second = records.filter((record) => record.revision_number === '2');
        expect(second.length).toBeGreaterThan(0);
        expect(second.every((record) => record.supersedes_id !== '')).toBe(true);
        return;
      }
      const body = (await response.json()) as {
        data: unknown[];
        meta: { next_cursor?: string | null; as_of?: string };
      };
      expect(body.data.length).toBeGreaterThan(0);
      // A count the demo prints is the count a reader gets.
      const count = /\b(?:the|all) (\d+) /.exec(request.says)?.[1];
      if (count !== undefined) expect(body.data.length, request.says).toBe(Number(count));
      if (request.path.startsWith('/api/v1/markets/cot/') && !request.keyed)
        expect(body.data.length).toBeLessThanOrEqual(PUBLIC_REPORTS);
      expect(body.meta.next_cursor ?? null).toBeNull();
      if (request.path.includes('as_of=2025-12-31')) expect(body.meta.as_of).toBe('2025-12-31T23:59:59Z');
    },
  );
});

import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { LICENSED_FIXTURE, REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The change feed (docs/api/changes.md) over HTTP on two real publishes of the sample data: the
 * first with the FRED PAYEMS vintage of 2025-08-02 (public, and again under the licensed test
 * vendor), the ECB history and the CFTC legacy file; the second adds the later PAYEMS vintage
 * (revisions and new months, for both), the ECB daily file, the CFTC TFF file and the MIC list.
 * The feed is compared with a diff computed here from the two snapshots' Parquet, every key
 * compared (no batch shortcut); then rights, CSV, since = current, and a pruned since.
 */

const REAL_CLOCK = () => new Date();
const LICENSED_KEY = 'testvendor.PAYEMS';
const LICENSED_SLUG = 'testvendor-payems';
const EARLY = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');

interface Change {
  kind: 'series' | 'market';
  key: string;
  slug: string | null;
  name: string | null;
  source: string;
  report_type: string | null;
  new_observations: number;
  revisions: number;
  backfilled: number;
  period_start: string;
  period_end: string;
}
interface Body {
  data: Change[];
  meta: Record<string, unknown> & {
    since: { id: string; created_at: string };
    current: { id: string; created_at: string };
    view: string;
    method: string;
    reference_tables: string[];
  };
}
type Expected = Pick<
  Change,
  'key' | 'new_observations' | 'revisions' | 'backfilled' | 'period_start' | 'period_end'
>;

/** Closes every object schema that lists its properties, as test/e2e/openapi.test.ts does. */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = closeObjects(value);
  if ('properties' in out) out.unevaluatedProperties = false;
  return out;
}

/**
 * The diff computed independently of the service: every (series, period) of both snapshots, its
 * value in force (value or content hash of the record with the highest revision number) and its
 * whole history (knowledge times and values). New: absent from the older snapshot; revised:
 * another value in force; backfilled: the same value in force, another history.
 */
async function independentDiff(dataDir: string, older: string, newer: string): Promise<Expected[]> {
  const layout = resolveLayout(dataDir);
  const instance = await openDuckDb();
  const connection = await instance.connect();
  try {
    const out: Expected[] = [];
    for (const [table, fingerprint] of [
      ['observations', 'value::VARCHAR'],
      ['cot_reports', 'content_hash'],
    ] as const) {
      const read = async (id: string) => {
        const files = readManifest(layout, id).tables[table]!.files.map((f) =>
          quotedString(join(snapshotDir(layout, id), f.file)),
        );
        const rows =
          files.length === 0
            ? []
            : await readRows<{ series_key: string; period: string; in_force: string; history: string }>(
                connection,
                `SELECT series_key, period,
                        arg_max(coalesce(${fingerprint}, 'null'), revision_number) AS in_force,
                        string_agg(observed_at::VARCHAR || '=' || coalesce(${fingerprint}, 'null'), '|' ORDER BY ALL) AS history
                   FROM read_parquet([${files.join(', ')}], union_by_name = true) GROUP BY ALL`,
              );
        return new Map(rows.map((row) => [`${row.series_key}\u0000${row.period}`, row]));
      };
      const before = await read(older);
      const after = await read(newer);
      const bySeries = new Map<string, Expected>();
      for (const [id, row] of after) {
        const old = before.get(id);
        const kind = !old
          ? 'new_observations'
          : old.in_force !== row.in_force
            ? 'revisions'
            : old.history !== row.history
              ? 'backfilled'
              : null;
        if (!kind) continue;
        const entry = bySeries.get(row.series_key) ?? {
          key: row.series_key,
          new_observations: 0,
          revisions: 0,
          backfilled: 0,
          period_start: row.period,
          period_end: row.period,
        };
        entry[kind] += 1;
        if (row.period < entry.period_start) entry.period_start = row.period;
        if (row.period > entry.period_end) entry.period_end = row.period;
        bySeries.set(row.series_key, entry);
      }
      out.push(...[...bySeries.values()].sort((a, b) => (a.key < b.key ? -1 : 1)));
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('change feed over HTTP on two real publishes', () => {
  const temp = createTempDir('mmds-changes-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  let server: TestServer;
  let first: string;
  let second: string;
  let key: string;
  let cotOnly: string;
  let validate: (body: unknown) => boolean;
  let validationErrors: () => unknown;

  const run = async (argv: string[], at: string) => {
    const result = await runMmds(argv, env, () => new Date(at));
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    return result;
  };
  const get = (path: string, token: string | null = null) =>
    fetch(`${server.url}${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  const getJson = async (path: string, token: string | null = null) => {
    const response = await get(path, token);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    const body = JSON.parse(text) as Body;
    expect(validate(body), `${path}: ${JSON.stringify(validationErrors())}`).toBe(true);
    return { response, text, body };
  };
  const counts = (change: Change): Expected => ({
    key: change.key,
    new_observations: change.new_observations,
    revisions: change.revisions,
    backfilled: change.backfilled,
    period_start: change.period_start,
    period_end: change.period_end,
  });

  beforeAll(async () => {
    const layout = resolveLayout(dataDir);
    const t1 = '2026-11-20T10:00:00Z';
    await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], t1);
    await run(['ingest', 'catalog', join(LICENSED_FIXTURE, 'catalog.yaml')], t1);
    await run(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')], t1);
    await run(
      ['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt')],
      t1,
    );
    for (const series of ['bls.CES0000000001', LICENSED_KEY])
      await run(['ingest', 'fred', EARLY, '--series', series, '--vintage', '2025-08-01'], t1);
    await run(['publish'], t1);
    first = readCurrentId(layout)!;
    const t2 = '2026-11-21T10:00:00Z';
    for (const series of ['bls.CES0000000001', LICENSED_KEY])
      await run(['ingest', 'fred', LATE, '--series', series, '--vintage', '2026-10-02'], t2);
    await run(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml')], t2);
    await run(['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/tff_futures_only_2026_selected_markets.txt')], t2);
    await run(['ingest', 'mic', join(SAMPLE_DATA, 'reference/ISO10383_MIC.csv')], t2);
    await run(['publish'], t2);
    second = readCurrentId(layout)!;
    expect(second).not.toBe(first);
    server = await startTestServer({ dataDir, distDir: join(temp.dir, 'no-dist') });
    const issue = async (scopes: string) => {
      const result = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'Changes Org', '--scopes', scopes, '--rate-limit', '100000'],
        env,
        REAL_CLOCK,
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { key: string }).key;
    };
    key = await issue('observations:read');
    cotOnly = await issue('cot:history');
    // biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the test checks
    const doc = createOpenApiDocument() as Record<string, any>;
    const id = 'urn:mmds:changes-components';
    const rebase = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
    ajv.addSchema({ $id: id, $defs: rebase(closeObjects(doc.components.schemas)) }, id);
    const compiled = ajv.compile(
      rebase(
        closeObjects(doc.paths['/api/v1/changes'].get.responses['200'].content['application/json'].schema),
      ),
    );
    validate = (body) => compiled(body);
    validationErrors = () => compiled.errors;
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('lists with a key exactly the changes computed from the two snapshots, licensed series included', async () => {
    const expected = await independentDiff(dataDir, first, second);
    // The second publish revises and extends both PAYEMS series and adds the TFF markets.
    expect(
      expected.some((e) => e.key === 'bls.CES0000000001' && e.revisions > 0 && e.new_observations > 0),
    ).toBe(true);
    expect(expected.some((e) => e.key === LICENSED_KEY)).toBe(true);
    const { body } = await getJson(`/api/v1/changes?since=${first}`, key);
    expect(body.meta.view).toBe('keyed');
    expect(body.meta.method).toBe('batches');
    expect(body.meta.since.id).toBe(first);
    expect(body.meta.current).toEqual({ id: second, created_at: '2026-11-21T10:00:00Z' });
    expect(body.meta.since.created_at).toBe('2026-11-20T10:00:00Z');
    expect(body.data.map(counts)).toEqual(expected);
    const payrolls = body.data.find((change) => change.key === 'bls.CES0000000001')!;
    expect(payrolls).toMatchObject({ kind: 'series', slug: 'nonfarm-payrolls', source: 'bls' });
    const market = body.data.find((change) => change.kind === 'market')!;
    expect(market.source).toBe('cftc');
    expect(market.slug).toMatch(/^[a-z0-9-]+$/);
    expect(market.report_type).toMatch(/^tff/);
    // The MIC list was loaded in the second publish only; the catalog did not change.
    expect(body.meta.reference_tables).toContain('venues');
    expect(body.meta.reference_tables).not.toContain('series');
  });

  it('never names a licensed series without a key, or with a key that lacks observations:read', async () => {
    const expected = (await independentDiff(dataDir, first, second)).filter(
      (e) => !e.key.startsWith('testvendor.'),
    );
    for (const token of [null, cotOnly]) {
      const { response, text, body } = await getJson(`/api/v1/changes?since=${first}`, token);
      expect(body.meta.view).toBe('public');
      expect(body.data.map(counts)).toEqual(expected);
      expect(text).not.toContain(LICENSED_KEY);
      expect(text).not.toContain(LICENSED_SLUG);
      expect(text).not.toContain('testvendor');
      expect(response.headers.get('vary')).toMatch(/Authorization/);
      if (token === null) {
        expect(response.headers.get('cache-control')).toBe('public, max-age=60');
        const etag = response.headers.get('etag')!;
        const again = await get(`/api/v1/changes?since=${first}`);
        expect(again.headers.get('etag')).toBe(etag);
        await again.text();
        const cached = await fetch(`${server.url}/api/v1/changes?since=${first}`, {
          headers: { 'If-None-Match': etag },
        });
        expect(cached.status).toBe(304);
      }
    }
    const csv = await get(`/api/v1/changes.csv?since=${first}`);
    const csvText = await csv.text();
    expect(csv.status, csvText).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    const [header, ...lines] = csvText.split('\r\n').filter((line) => line !== '');
    expect(header).toBe(
      'kind,key,slug,name,source,report_type,new_observations,revisions,backfilled,period_start,period_end',
    );
    expect(lines).toHaveLength(expected.length);
    expect(csvText).not.toContain('testvendor');
    const same = await get(`/api/v1/changes?since=${first}&format=csv`);
    expect(await same.text()).toBe(csvText);
  });

  it('answers since = current with no changes', async () => {
    const { body } = await getJson(`/api/v1/changes?since=${second}`, key);
    expect(body.data).toEqual([]);
    expect(body.meta.reference_tables).toEqual([]);
    expect(body.meta.since.id).toBe(second);
    expect(body.meta.current.id).toBe(second);
  });

  it('lists the snapshots in /status, newest first', async () => {
    const response = await get('/api/v1/status');
    const body = (await response.json()) as {
      data: { snapshots: Array<{ id: string; created_at: string }> };
    };
    expect(body.data.snapshots).toEqual([
      { id: second, created_at: '2026-11-21T10:00:00Z' },
      { id: first, created_at: '2026-11-20T10:00:00Z' },
    ]);
  });

  it('refuses a malformed, unknown or missing since with a 400 naming it and listing the known ids', async () => {
    for (const query of ['since=yesterday', 'since=20200101T000000Z-00000000', '']) {
      const response = await get(`/api/v1/changes?${query}`);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status, query).toBe(400);
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.message).toContain('"since"');
      if (query === 'since=20200101T000000Z-00000000') {
        expect(body.error.message).toContain(first);
        expect(body.error.message).toContain(second);
      }
    }
  });

  it('refuses a pruned since, listing the ids still known', async () => {
    const t3 = '2026-11-22T10:00:00Z';
    await run(
      ['ingest', 'cftc', join(SAMPLE_DATA, 'cftc/disaggregated_futures_only_2021_selected_markets.txt')],
      t3,
    );
    const publish = await run(['--json', 'publish', '--keep', '1'], t3);
    expect(publish.stdout).toContain(first);
    const third = readCurrentId(resolveLayout(dataDir))!;
    // The server follows CURRENT.
    for (let i = 0; i < 100; i += 1) {
      const status = (await (await get('/api/v1/status')).json()) as { data: { snapshot: { id: string } } };
      if (status.data.snapshot.id === third) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const response = await get(`/api/v1/changes?since=${first}`);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(400);
    expect(body.error.message).toContain('"since"');
    expect(body.error.message).toContain(`${third}, ${second}`);
    expect(body.error.message).not.toContain(`${first},`);
    // The parent is still known: its changes are the disaggregated markets.
    const { body: fromSecond } = await getJson(`/api/v1/changes?since=${second}`);
    expect(fromSecond.data.map(counts)).toEqual(await independentDiff(dataDir, second, third));
    expect(fromSecond.data.every((change) => change.kind === 'market')).toBe(true);
  });
});

describe('change feed when older vintages arrive late, and across a rebuilt store', () => {
  const temp = createTempDir('mmds-changes-backfill-');
  const dataDir = join(temp.dir, 'data');
  const otherDir = join(temp.dir, 'other');
  let server: TestServer;
  let first: string;
  let second: string;
  let foreign: string;

  const publishWith = async (dir: string, vintages: Array<[string, string]>, at: string) => {
    const env = { MMDS_DATA_DIR: dir };
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ...vintages.map(([file, vintage]) => [
        'ingest',
        'fred',
        file,
        '--series',
        'bls.CES0000000001',
        '--vintage',
        vintage,
      ]),
      ['publish'],
    ]) {
      const result = await runMmds(argv, env, () => new Date(at));
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
    return readCurrentId(resolveLayout(dir))!;
  };

  beforeAll(async () => {
    // The later vintage first, then the earlier one: the store learns the older history late.
    first = await publishWith(dataDir, [[LATE, '2026-10-02']], '2026-11-20T10:00:00Z');
    second = await publishWith(dataDir, [[EARLY, '2025-08-01']], '2026-11-21T10:00:00Z');
    // A snapshot of another store (its batches are not the first of this one's), copied in.
    foreign = await publishWith(otherDir, [[EARLY, '2025-08-01']], '2026-11-19T10:00:00Z');
    cpSync(snapshotDir(resolveLayout(otherDir), foreign), snapshotDir(resolveLayout(dataDir), foreign), {
      recursive: true,
    });
    server = await startTestServer({ dataDir, distDir: join(temp.dir, 'no-dist') });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  const feed = async (since: string) => {
    const response = await fetch(`${server.url}/api/v1/changes?since=${since}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return JSON.parse(text) as Body;
  };

  it('counts an older vintage that leaves the value in force as backfilled, not as a revision', async () => {
    const body = await feed(first);
    expect(body.meta.method).toBe('batches');
    const expected = await independentDiff(dataDir, first, second);
    expect(body.data.map((change) => ({ ...change }))).toMatchObject(expected);
    expect(body.data).toHaveLength(1);
    const [payrolls] = body.data;
    // 1939-01 .. 2023-06 are new; the months both files hold keep the later vintage's value.
    expect(payrolls).toMatchObject({ key: 'bls.CES0000000001', revisions: 0, period_start: '1939-01' });
    expect(payrolls!.new_observations).toBeGreaterThan(1000);
    expect(payrolls!.backfilled).toBeGreaterThan(0);
  });

  it('compares every period when since is not an ancestor of the store (method full)', async () => {
    const body = await feed(foreign);
    expect(body.meta.method).toBe('full');
    expect(body.meta.new_batches).toBe(0);
    expect(body.data).toMatchObject(await independentDiff(dataDir, foreign, second));
    // The foreign snapshot held the earlier vintage only: the later one revised months since 2023-07.
    expect(body.data[0]!.revisions).toBeGreaterThan(0);
  });
});

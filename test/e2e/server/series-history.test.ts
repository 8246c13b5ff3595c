import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { parseCsv } from '../../helpers/series-history-csv.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';

const ECB_FILE = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
const LATE_PAYROLLS = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

interface HistoryRow {
  period: string;
  value: number;
  revision_number: number;
  observed_at: string;
}

interface Envelope {
  data: HistoryRow[];
  meta: Record<string, unknown> & { series: Record<string, unknown>; count: number };
}

/** The USD column of the ECB's own history file, date -> rate, read without the project's parser. */
function readEcbColumn(currency: string): Map<string, number> {
  const [header, ...lines] = readFileSync(ECB_FILE, 'utf8').trim().split(/\r?\n/);
  const column = header!.split(',').indexOf(currency);
  const rates = new Map<string, number>();
  for (const line of lines) {
    const fields = line.split(',');
    if (fields[column] !== 'N/A') rates.set(fields[0]!, Number(fields[column]));
  }
  return rates;
}

/** One monthly value of a FRED download (`DATE,PAYEMS`, the month's first day). */
function readFredValue(file: string, month: string): number {
  const line = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .find((l) => l.startsWith(`${month}-01,`));
  if (!line) throw new Error(`${month} not in ${file}`);
  return Number(line.split(',')[1]);
}

/**
 * The value in force per period, read independently of the endpoint's SQL: every stored revision
 * of the series, reduced in JavaScript to the highest revision number of each period.
 */
async function readLatestRevisions(db: SnapshotDb, key: string): Promise<HistoryRow[]> {
  const all = await db.query<HistoryRow>(
    `SELECT period, value, revision_number, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
       FROM observations WHERE series_key = $key`,
    { key },
  );
  const latest = new Map<string, HistoryRow>();
  for (const row of all) {
    const seen = latest.get(row.period);
    if (!seen || row.revision_number > seen.revision_number) latest.set(row.period, row);
  }
  return [...latest.values()].sort((a, b) => (a.period < b.period ? -1 : 1));
}

describe('public series history (/api/v1/series/{slug}) on the sample data and the licensed fixture', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let db: SnapshotDb;

  const get = (path: string) => fetch(`${server.url}${path}`);
  const getJson = async (path: string) => {
    const response = await get(path);
    return {
      response,
      body: (await response.json()) as Envelope & { error?: { code: string; message: string } },
    };
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    // No dist/: every answer is rendered by the server itself.
    server = await startTestServer({ dataDir: fixture.dataDir, anonymousLimit: 10_000 });
    db = await fixture.open();
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await db?.close();
    fixture?.remove();
  });

  it('gives every ECB reference rate of the publisher file, one row per day, without a key', async () => {
    const { response, body } = await getJson('/api/v1/series/eur-usd');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const expected = readEcbColumn('USD');
    expect(expected.size).toBeGreaterThan(300);
    expect(new Map(body.data.map((row) => [row.period, row.value]))).toEqual(expected);
    expect(body.data.map((row) => row.period)).toEqual([...expected.keys()].sort());
    expect(body.meta).toMatchObject({
      count: expected.size,
      series: { key: 'ecb.USD', slug: 'eur-usd', source: 'ecb', frequency: 'daily' },
      rights: expect.stringMatching(/^(public_domain|open_licence)$/),
      csv_url: '/api/v1/series/eur-usd.csv',
    });
    expect(body.meta.attribution).toEqual(expect.stringContaining('ECB'));
    expect(typeof body.meta.licence).toBe('string');
  });

  it('gives the latest revision of each period of a revised BLS series', async () => {
    const { response, body } = await getJson('/api/v1/series/nonfarm-payrolls');
    expect(response.status).toBe(200);
    const expected = await readLatestRevisions(db, 'bls.CES0000000001');
    expect(body.data).toEqual(expected);
    // Not vacuous: some periods were revised, and the later FRED vintage's value is the one in force.
    expect(body.data.some((row) => row.revision_number > 1)).toBe(true);
    const july = body.data.find((row) => row.period === '2025-07')!;
    expect(july.value).toBe(readFredValue(LATE_PAYROLLS, '2025-07'));
    expect(july.revision_number).toBeGreaterThan(1);
  });

  it('gives the same rows as RFC 4180 CSV at its .csv path and with format=csv, without a key', async () => {
    const json = (await getJson('/api/v1/series/nonfarm-payrolls')).body;
    const response = await get('/api/v1/series/nonfarm-payrolls.csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(CSV_TYPE);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const text = await response.text();
    const query = await get('/api/v1/series/nonfarm-payrolls?format=csv');
    expect(query.headers.get('content-type')).toBe(CSV_TYPE);
    expect(await query.text()).toBe(text);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(['period', 'value', 'revision_number', 'observed_at']);
    expect(
      rows.map(([period, value, revision, observedAt]) => ({
        period,
        value: Number(value),
        revision_number: Number(revision),
        observed_at: observedAt,
      })),
    ).toEqual(json.data);
  });

  it('is 404 for the licensed series, in JSON and CSV, though the snapshot holds its values', async () => {
    const [stored] = await db.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM observations WHERE series_key = $key',
      { key: LICENSED_SERIES_KEY },
    );
    expect(stored?.n).toBeGreaterThan(100);
    for (const path of [
      '/api/v1/series/testvendor-payems',
      '/api/v1/series/testvendor-payems.csv',
      '/api/v1/series/testvendor-payems?format=csv',
    ]) {
      const { response, body } = await getJson(path);
      expect(response.status, path).toBe(404);
      expect(body.error?.code).toBe('not_found');
      expect(JSON.stringify(body)).not.toContain('PAYEMS');
    }
  });

  it('is 404 for an unknown slug, a series key as slug and a catalogued series without data', async () => {
    for (const path of [
      '/api/v1/series/no-such-series',
      '/api/v1/series/ecb.USD',
      '/api/v1/series/eur-cyp',
    ]) {
      const { response, body } = await getJson(path);
      expect(response.status, path).toBe(404);
      expect(body.error?.code, path).toBe('not_found');
    }
  });

  it('refuses other parameters and formats with a 400 naming the parameter', async () => {
    const bad = await getJson('/api/v1/series/eur-usd?format=xml');
    expect(bad.response.status).toBe(400);
    expect(bad.body.error?.message).toBe('invalid parameter "format": expected json or csv');
    const asOf = await getJson('/api/v1/series/eur-usd?as_of=2026-01-01T00:00:00Z');
    expect(asOf.response.status).toBe(400);
    expect(asOf.body.error?.message).toContain('"as_of"');
    expect(asOf.body.error?.message).toContain('format');
    const json = await getJson('/api/v1/series/eur-usd?format=json');
    expect(json.response.status).toBe(200);
    expect(json.body.data.length).toBeGreaterThan(300);
  });

  it('links each series of /api/v1/series and /api/v1/macro to its history, null without data', async () => {
    const series = (await getJson('/api/v1/series')).body.data as unknown as Array<{
      key: string;
      slug: string;
      latest: unknown;
      history_url: string | null;
      history_csv_url: string | null;
    }>;
    const macro = (await getJson('/api/v1/macro')).body.data as unknown as typeof series;
    expect(series.some((s) => s.key === LICENSED_SERIES_KEY)).toBe(false);
    for (const entry of [...series, ...macro]) {
      if (entry.latest === null) {
        expect(entry.history_url, entry.key).toBeNull();
        expect(entry.history_csv_url, entry.key).toBeNull();
        continue;
      }
      expect(entry.history_url).toBe(`/api/v1/series/${entry.slug}`);
      expect(entry.history_csv_url).toBe(`/api/v1/series/${entry.slug}.csv`);
    }
    expect(series.find((s) => s.key === 'ecb.CYP')?.history_url).toBeNull();
    const payrolls = macro.find((s) => s.key === 'bls.CES0000000001')!;
    expect(payrolls.history_url).toBe('/api/v1/series/nonfarm-payrolls');
    // Every link answers 200.
    const linked = [...series, ...macro].flatMap((s) =>
      s.history_url && s.history_csv_url ? [s.history_url, s.history_csv_url] : [],
    );
    expect(linked.length).toBeGreaterThan(20);
    for (const url of new Set(linked)) expect((await get(url)).status, url).toBe(200);
  });

  it('is documented in OpenAPI as public, JSON and CSV, with format open to all', () => {
    const paths = createOpenApiDocument().paths as Record<string, { get: Record<string, unknown> }>;
    const json = paths['/api/v1/series/{slug}']!.get;
    const csv = paths['/api/v1/series/{slug}.csv']!.get;
    for (const operation of [json, csv]) {
      expect(operation['x-access']).toBe('public');
      expect(operation['x-required-scope']).toBeUndefined();
      expect(Object.keys(operation.responses as object)).toContain('404');
    }
    const format = (json.parameters as Array<Record<string, unknown>>).find((p) => p.name === 'format');
    expect(format).toBeDefined();
    expect(format!['x-keyed-only']).toBeUndefined();
  });
});

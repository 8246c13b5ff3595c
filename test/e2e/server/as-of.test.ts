import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
/**
 * The two vintages are those of the July 2025 and the September 2026 Employment Situation: each is
 * known from that release, 08:30 New York (docs/data-model.md, "Knowledge time").
 */
const EARLY_KNOWN = '2025-08-01T12:30:00Z';
const LATE_KNOWN = '2026-10-02T12:30:00Z';
const BETWEEN = '2026-01-01T00:00:00Z';
const AFTER_BOTH = '2026-10-03T00:00:00Z';
const MONTH = '2025-07';

interface Row {
  id: string;
  series_key: string;
  period: string;
  value: number;
  observed_at: string;
  observed_at_method: string;
  revision_number: number;
  supersedes_id: string | null;
  in_force: boolean;
}

interface Payload {
  data: Row[];
  meta: { as_of: string | null; next_cursor: string | null; series: { key: string; slug: string | null } };
}

/** One monthly value of a FRED download (`DATE,PAYEMS`, the month's first day). */
function readFredValue(file: string, month: string): number {
  const line = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .find((l) => l.startsWith(`${month}-01,`));
  if (!line) throw new Error(`${month} not in ${file}`);
  return Number(line.split(',')[1]);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('as_of over HTTP on the real data (two FRED vintages of payrolls)', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  const earlyValue = readFredValue(EARLY_VINTAGE, MONTH);
  const lateValue = readFredValue(LATE_VINTAGE, MONTH);

  const get = async (path: string, accept?: string): Promise<Response> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (accept) headers['Accept-Encoding'] = accept;
    const response = await fetch(`${server.url}${path}`, { headers });
    expect(response.status, path).toBe(200);
    return response;
  };
  const getJson = async (path: string) => (await (await get(path)).json()) as Payload;

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'As Of Org',
        '--scopes',
        'macro:history,observations:read',
        '--rate-limit',
        '100000',
      ],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    key = (JSON.parse(run.stdout) as { key: string }).key;
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('the two vintages disagree on the month (or there would be no revision to see)', () => {
    expect(Number.isFinite(earlyValue) && Number.isFinite(lateValue)).toBe(true);
    expect(lateValue).not.toBe(earlyValue);
  });

  it('as of a time between the vintages: the 2025-08-01 vintage, revision 1, in force', async () => {
    // The whole series on one page (1939 onwards: more than the default 1000 rows).
    const payload = await getJson(`/api/v1/observations?series=${PAYROLLS}&as_of=${BETWEEN}&limit=10000`);
    expect(payload.meta.as_of).toBe(BETWEEN);
    expect(payload.meta.next_cursor).toBeNull();
    const rows = payload.data.filter((row) => row.period === MONTH);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      series_key: PAYROLLS,
      value: earlyValue,
      observed_at: EARLY_KNOWN,
      observed_at_method: 'vintage',
      revision_number: 1,
      supersedes_id: null,
      in_force: true,
    });
    expect(payload.data.every((row) => row.observed_at <= BETWEEN)).toBe(true);
  });

  it('as of a time after both: the later value, revision 2, superseding revision 1', async () => {
    const payload = await getJson(
      `/api/v1/observations?series=${PAYROLLS}&as_of=${AFTER_BOTH}&from=${MONTH}&to=${MONTH}`,
    );
    const [first, second, ...rest] = payload.data;
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ period: MONTH, value: earlyValue, revision_number: 1, in_force: false });
    expect(second).toMatchObject({
      period: MONTH,
      value: lateValue,
      observed_at: LATE_KNOWN,
      observed_at_method: 'vintage',
      revision_number: 2,
      supersedes_id: first!.id,
      in_force: true,
    });
  });

  it('as_of is inclusive at the release instant: a second before it the vintage is unknown', async () => {
    const at = (asOf: string) =>
      getJson(`/api/v1/observations?series=${PAYROLLS}&as_of=${asOf}&from=${MONTH}&to=${MONTH}`);
    expect((await at('2025-08-01T12:29:59Z')).data).toEqual([]);
    expect((await at(EARLY_KNOWN)).data).toMatchObject([{ value: earlyValue, in_force: true }]);
    const before = await at('2026-10-02T12:29:59Z');
    expect(before.data.map((row) => [row.value, row.in_force])).toEqual([[earlyValue, true]]);
    const after = await at(LATE_KNOWN);
    expect(after.data.map((row) => [row.value, row.in_force])).toEqual([
      [earlyValue, false],
      [lateValue, true],
    ]);
  });

  it('reads fractional seconds, offsets and a day alone as UTC whole seconds, never later than asked', async () => {
    const at = (asOf: string) =>
      getJson(`/api/v1/observations?series=${PAYROLLS}&as_of=${asOf}&from=${MONTH}&to=${MONTH}`);
    // Date.toISOString(): the fraction is dropped, so 999 ms before the release is still before it.
    const justBefore = await at('2025-08-01T12:29:59.999Z');
    expect(justBefore.meta.as_of).toBe('2025-08-01T12:29:59Z');
    expect(justBefore.data).toEqual([]);
    const atRelease = await at('2025-08-01T12:30:00.000Z');
    expect(atRelease.meta.as_of).toBe(EARLY_KNOWN);
    expect(atRelease.data).toMatchObject([{ value: earlyValue, in_force: true }]);
    // Offsets (the + escaped, as a URL needs it): 08:30 New York (EDT) is the release instant.
    const newYork = await at('2025-08-01T08:30:00-04:00');
    expect(newYork.meta.as_of).toBe(EARLY_KNOWN);
    expect(newYork.data).toEqual(atRelease.data);
    const paris = await at('2025-08-01T14:29:59.5%2B02:00');
    expect(paris.meta.as_of).toBe('2025-08-01T12:29:59Z');
    expect(paris.data).toEqual([]);
    // A day alone: its end in UTC, stated in meta.as_of.
    const day = await at('2025-08-01');
    expect(day.meta.as_of).toBe('2025-08-01T23:59:59Z');
    expect(day.data).toEqual(atRelease.data);
    expect((await at('2025-07-31')).data).toEqual([]);
  });

  it('refuses anything else with a 400 that shows an example of each accepted form', async () => {
    const refused = async (asOf: string) => {
      const response = await fetch(`${server.url}/api/v1/observations?series=${PAYROLLS}&as_of=${asOf}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(response.status, asOf).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_parameter');
      return error.message;
    };
    for (const asOf of [
      '2025-08-01T12:30:00',
      '2025-08-01 12:30:00Z',
      '2025-02-30',
      '2025-02-30T00:00:00Z',
      '2025-08-01T24:00:00Z',
      '1754051400',
      // An unescaped + is a space in a query string.
      '2025-08-01T14:30:00+02:00',
    ]) {
      const message = await refused(asOf);
      expect(message).toContain('invalid parameter "as_of"');
      for (const example of [
        '2025-12-31T12:00:00Z',
        '2025-12-31T12:00:00.000Z',
        '2025-12-31T13:00:00+01:00',
        '2025-12-31 (',
        '%2B',
      ])
        expect(message, asOf).toContain(example);
    }
    // Today alone means the end of today, still ahead: refused as in the future, saying how it was read.
    const today = new Date().toISOString().slice(0, 10);
    expect(await refused(today)).toContain(`read as ${today}T23:59:59Z, which is after now`);
  });

  it('endpoint 5 (/macro/nonfarm-payrolls) gives the same rows as endpoint 8 with as_of', async () => {
    for (const asOf of [BETWEEN, AFTER_BOTH]) {
      const query = `as_of=${asOf}&from=2025-01`;
      const macro = await getJson(`/api/v1/macro/nonfarm-payrolls?${query}`);
      const observations = await getJson(`/api/v1/observations?series=${PAYROLLS}&${query}`);
      expect(macro.meta.series).toMatchObject({ key: PAYROLLS, slug: 'nonfarm-payrolls' });
      expect(macro.meta.as_of).toBe(asOf);
      expect(macro.data.length).toBeGreaterThan(0);
      expect(macro.data).toEqual(observations.data);
      const inForce = macro.data.find((row) => row.period === MONTH && row.in_force);
      expect(inForce?.value).toBe(asOf === BETWEEN ? earlyValue : lateValue);
    }
  });

  it('format=csv has a header row and the same values as the JSON', async () => {
    const query = `series=${PAYROLLS}&as_of=${AFTER_BOTH}&from=2025-01`;
    const json = await getJson(`/api/v1/observations?${query}`);
    const response = await get(`/api/v1/observations?${query}&format=csv`);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await response.text();
    // No field of these rows needs quoting, so splitting on commas is exact.
    expect(text).not.toContain('"');
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...lines] = text.slice(0, -2).split('\r\n');
    const columns = header!.split(',');
    expect(columns).toEqual(expect.arrayContaining(['id', 'period', 'value', 'revision_number', 'in_force']));
    const records = lines.map((line) =>
      Object.fromEntries(line.split(',').map((cell, i) => [columns[i], cell])),
    );
    expect(records).toHaveLength(json.data.length);
    records.forEach((record, i) => {
      const row = json.data[i]!;
      expect(record).toMatchObject({
        id: row.id,
        period: row.period,
        value: String(row.value),
        revision_number: String(row.revision_number),
        supersedes_id: row.supersedes_id ?? '',
        in_force: String(row.in_force),
      });
    });
    const month = records.filter((record) => record.period === MONTH);
    expect(month.map((record) => Number(record.value))).toEqual([earlyValue, lateValue]);
  });

  it('latency of 200 sequential keyed as_of requests (each a different instant: no cache hit)', async () => {
    const start = Date.parse(BETWEEN);
    const measure = async (label: string, query: (asOf: string) => string) => {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const asOf = new Date(start + i * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const began = performance.now();
        const response = await get(`/api/v1/observations?${query(asOf)}`);
        const payload = (await response.json()) as Payload;
        times.push(performance.now() - began);
        expect(payload.meta.as_of).toBe(asOf);
        expect(payload.data.length).toBeGreaterThan(0);
      }
      times.sort((a, b) => a - b);
      const [p50, p99] = [percentile(times, 50), percentile(times, 99)];
      console.log(`as_of latency, ${label}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
      return { p50, p99 };
    };
    const page = await measure('first page (1000 rows)', (asOf) => `series=${PAYROLLS}&as_of=${asOf}`);
    const month = await measure(
      'one period',
      (asOf) => `series=${PAYROLLS}&as_of=${asOf}&from=${MONTH}&to=${MONTH}`,
    );
    // Loose bounds: a regression of an order of magnitude, not machine noise.
    expect(page.p99).toBeLessThan(2_000);
    expect(month.p99).toBeLessThan(1_000);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { parseCsv } from '../../helpers/series-history-csv.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { issueTestKey } from '../../reliability/helpers/served-sample.ts';

/**
 * ALFRED's real-time parameters (issue 35 item 1) on /api/v1/observations and /api/v1/macro/{slug},
 * and /api/v1/series/{slug}/vintagedates, over HTTP on a snapshot of FRED's two PAYEMS vintages
 * (2025-08-01 and 2026-10-02): every value checked against the two FRED CSV files read by hand,
 * as ALFRED gives them for those vintage dates.
 */
const EARLY = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const [V1, V2] = ['2025-08-01', '2026-10-02'];
const DAY_BEFORE_V2 = '2026-10-01';
const END_OF_TIME = '9999-12-31';
const REAL_CLOCK = () => new Date();

interface Row {
  period: string;
  value: number | null;
  realtime_start: string;
  realtime_end: string;
}
interface Body {
  data: Row[];
  meta: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** A FRED CSV as written: month (YYYY-MM) to value. */
function readFredCsv(path: string): Map<string, number> {
  const lines = readFileSync(path, 'utf8').trim().split('\n').slice(1);
  return new Map(lines.map((line) => [line.slice(0, 7), Number(line.split(',')[1])]));
}

describe('ALFRED vintages of PAYEMS: realtime_start/realtime_end, output_type, vintage_dates, vintagedates', () => {
  const temp = createTempDir('mmds-vintages-');
  const dataDir = join(temp.dir, 'data');
  const emptyDist = createTempDir('mmds-no-dist-');
  const early = readFredCsv(EARLY);
  const late = readFredCsv(LATE);
  const months = [...new Set([...early.keys(), ...late.keys()])].sort();
  let server: TestServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    for (const step of [
      ['catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['fred', EARLY, '--series', 'bls.CES0000000001', '--vintage', V1],
      ['fred', LATE, '--series', 'bls.CES0000000001', '--vintage', V2],
    ]) {
      const run = await runMmds(['ingest', ...step], { MMDS_DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(0);
    }
    const publish = await runMmds(['publish'], { MMDS_DATA_DIR: dataDir });
    expect(publish.code, publish.stderr).toBe(0);
    server = await startTestServer({ dataDir, distDir: emptyDist.dir, anonymousLimit: 10_000 });
    for (const scope of ['observations:read', 'macro:history', 'cot:history'])
      keys[scope] = (
        await issueTestKey({ MMDS_DATA_DIR: dataDir }, { scopes: scope, org: 'ALFRED Org', now: REAL_CLOCK })
      ).plaintext;
  });

  afterAll(async () => {
    await server?.close();
    emptyDist.remove();
    temp.remove();
  });

  const get = async (path: string, key = keys['observations:read']) => {
    const response = await fetch(new URL(path, server.url), {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    return { response, body: (await response.json()) as Body };
  };
  const observations = (query: string) => get(`/api/v1/observations?series=bls.CES0000000001&${query}`);

  it('output_type 2 with both vintage dates: each file, number for number, null before a month was known', async () => {
    const { response, body } = await observations(`output_type=2&vintage_dates=${V1},${V2}`);
    expect(response.status).toBe(200);
    expect(body.meta.view).toBe('vintages');
    expect(body.meta.vintage_dates).toEqual([V1, V2]);
    const cell = new Map(body.data.map((row) => [`${row.period} ${row.realtime_start}`, row.value]));
    expect(body.data.length).toBe(months.length * 2);
    for (const month of months) {
      expect(cell.get(`${month} ${V1}`), month).toBe(early.get(month) ?? null);
      // The later file holds 2023-07 onward; before that the store keeps the earlier value in force.
      expect(cell.get(`${month} ${V2}`), month).toBe(late.get(month) ?? early.get(month)!);
    }
  });

  it('output_type 1 over all real time: each value with the days it was in force', async () => {
    const { body } = await observations('realtime_start=1776-07-04&realtime_end=9999-12-31');
    const expected: Row[] = [];
    for (const month of months) {
      const [first, later] = [early.get(month), late.get(month)];
      if (first !== undefined && later !== undefined && later !== first) {
        expected.push({ period: month, value: first, realtime_start: V1, realtime_end: DAY_BEFORE_V2 });
        expected.push({ period: month, value: later, realtime_start: V2, realtime_end: END_OF_TIME });
      } else if (first !== undefined)
        expected.push({ period: month, value: first, realtime_start: V1, realtime_end: END_OF_TIME });
      else expected.push({ period: month, value: later!, realtime_start: V2, realtime_end: END_OF_TIME });
    }
    expect(body.data).toEqual(expected);
    // A real-time period inside the first vintage: its values, the period clipped to it.
    const inside = await observations(
      'realtime_start=2025-12-31&realtime_end=2025-12-31&from=2025-01&to=2025-07',
    );
    expect(inside.body.data).toEqual(
      [...early]
        .filter(([month]) => month >= '2025-01')
        .map(([period, value]) => ({
          period,
          value,
          realtime_start: '2025-12-31',
          realtime_end: '2025-12-31',
        })),
    );
  });

  it('output_type 4 (initial release) and 3 (new and revised only) as ALFRED defines them', async () => {
    const first = await observations('output_type=4&realtime_start=1776-07-04&realtime_end=9999-12-31');
    expect(first.body.data.map((row) => [row.period, row.value, row.realtime_start])).toEqual(
      months.map((month) =>
        early.has(month) ? [month, early.get(month), V1] : [month, late.get(month), V2],
      ),
    );
    const changed = await observations(`output_type=3&vintage_dates=${V1},${V2}`);
    const expected = months.flatMap((month) => {
      const cells: Array<[string, number, string]> = [];
      if (early.has(month)) cells.push([month, early.get(month)!, V1]);
      if (late.has(month) && late.get(month) !== early.get(month)) cells.push([month, late.get(month)!, V2]);
      return cells;
    });
    expect(changed.body.data.map((row) => [row.period, row.value, row.realtime_start])).toEqual(expected);
    // The same on /macro/{slug} with its own key, newest first with sort_order=desc.
    const macro = await get(
      '/api/v1/macro/nonfarm-payrolls?output_type=4&realtime_start=1776-07-04&realtime_end=9999-12-31&sort_order=desc',
      keys['macro:history'],
    );
    expect(macro.body.data).toEqual([...first.body.data].reverse());
  });

  it('answers the vintage view in CSV: the same rows, every file value in place, and fields= on them', async () => {
    const text = async (path: string) => {
      const response = await fetch(new URL(path, server.url), {
        headers: { Authorization: `Bearer ${keys['observations:read']}` },
      });
      return { response, text: await response.text() };
    };
    const query = `output_type=2&vintage_dates=${V1},${V2}`;
    for (const path of [
      `/api/v1/observations.csv?series=bls.CES0000000001&${query}`,
      `/api/v1/observations?series=bls.CES0000000001&${query}&format=csv`,
    ]) {
      const { response, text: body } = await text(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      const [header, ...lines] = parseCsv(body);
      expect(header).toEqual(['period', 'value', 'realtime_start', 'realtime_end']);
      expect(lines.length).toBe(months.length * 2);
      const cell = new Map(lines.map(([period, value, start]) => [`${period} ${start}`, value]));
      for (const month of months) {
        // Null before the month was released is an empty field; values as the files write them.
        expect(cell.get(`${month} ${V1}`), month).toBe(early.has(month) ? String(early.get(month)) : '');
        expect(cell.get(`${month} ${V2}`), month).toBe(String(late.get(month) ?? early.get(month)!));
      }
    }
    // Selected columns, in the row's order whatever the list's; an empty view keeps its header.
    const selected = await text(
      `/api/v1/observations.csv?series=bls.CES0000000001&${query}&fields=realtime_start,period`,
    );
    expect(parseCsv(selected.text).slice(0, 2)).toEqual([
      ['period', 'realtime_start'],
      [months[0]!, V1],
    ]);
    const empty = await text(
      '/api/v1/observations.csv?series=bls.CES0000000001&output_type=4&from=1900&to=1900',
    );
    expect(empty.response.status).toBe(200);
    expect(empty.text).toBe('period,value,realtime_start,realtime_end\r\n');
    // The JSON view with fields: the same rows with those keys only.
    const json = await observations(`${query}&fields=value,period`);
    expect(json.body.data.slice(0, 2)).toEqual([
      { period: months[0], value: early.get(months[0]!) ?? null },
      { period: months[0], value: late.get(months[0]!) ?? early.get(months[0]!) },
    ]);
  });

  it('lists the vintage dates, and refuses as_of or a second form beside the real-time parameters', async () => {
    const dates = await get('/api/v1/series/nonfarm-payrolls/vintagedates');
    expect(dates.response.status).toBe(200);
    expect(dates.body.data.map((row) => (row as unknown as { vintage_date: string }).vintage_date)).toEqual([
      V1,
      V2,
    ]);
    const after = await get(
      '/api/v1/series/nonfarm-payrolls/vintagedates?realtime_start=2025-08-02&sort_order=desc',
    );
    expect(after.body.data.map((row) => (row as unknown as { vintage_date: string }).vintage_date)).toEqual([
      V2,
    ]);
    expect((await get('/api/v1/series/no-such-series/vintagedates')).response.status).toBe(404);
    // Keyed as the revisions are: 401 without a key, 403 with a key without observations:read.
    expect((await get('/api/v1/series/nonfarm-payrolls/vintagedates', '')).response.status).toBe(401);
    expect(
      (await get('/api/v1/series/nonfarm-payrolls/vintagedates', keys['cot:history'])).response.status,
    ).toBe(403);
    for (const [query, named] of [
      [`as_of=2025-09-01&realtime_start=${V1}`, 'as_of'],
      [`output_type=4&as_of=2025-09-01`, 'as_of'],
      [`vintage_dates=${V1}&realtime_end=${V2}`, 'vintage_dates'],
      ['output_type=2&units=pch', 'units'],
      ['output_type=5', 'output_type'],
      [`vintage_dates=${V2},${V1}`, 'vintage_dates'],
      [`realtime_start=${V2}&realtime_end=${V1}`, 'realtime_start'],
    ] as const) {
      const { response, body } = await observations(query);
      expect(response.status, query).toBe(400);
      expect(body.error!.code, query).toBe('invalid_parameter');
      expect(body.error!.message, query).toContain(named);
    }
  });
});

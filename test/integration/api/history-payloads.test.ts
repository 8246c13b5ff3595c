import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext } from '../../../src/api/v1/context.ts';
import { getCotHistory } from '../../../src/api/v1/cot-history.ts';
import { renderCsv } from '../../../src/api/v1/csv.ts';
import { getMacroHistory } from '../../../src/api/v1/macro-history.ts';
import { getObservations } from '../../../src/api/v1/observations.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { ROUTES, type RouteId } from '../../../src/contract/routes.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

const PAYROLLS = 'bls.CES0000000001';
const PAYROLLS_CHANGE = 'bls.CES0000000001.change';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const CES_VINTAGES = join(
  SHARED_DATA,
  'bls/ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json',
);
const LEGACY = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt');

interface Row {
  id: string;
  period: string;
  value: number;
  observed_at: string;
  observed_at_method: string;
  footnotes: Array<{ code: string | null; text: string | null }>;
  revision_number: number;
  supersedes_id: string | null;
  in_force: boolean;
}

/** Reads one value of a FRED download (`DATE,PAYEMS`; the monthly date is the 1st). */
function readFredValue(file: string, month: string): number {
  const line = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .find((l) => l.startsWith(`${month}-01,`));
  if (!line) throw new Error(`${month} not in ${file}`);
  return Number(line.split(',')[1]);
}

describe('history payloads on the real data', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let context: ApiContext;

  const call = async (id: RouteId, fn: typeof getObservations, slug: string | null, query: string) => {
    const route = ROUTES.find((r) => r.id === id)!;
    return fn(context, parseRequest(route, slug, new URLSearchParams(query)));
  };
  const observations = async (query: string) => {
    const payload = await call('observations', getObservations, null, query);
    return { rows: payload.data as Row[], meta: payload.meta as Record<string, unknown> };
  };
  const expectApiError = async (promise: Promise<unknown>, code: string) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    db = await fixture.open();
    context = { db, now: FIXTURE_NOW, keyed: true };
  });
  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('as of 2026-01-01 shows the 2025-08-01 vintage of 2025-07 as revision 1 in force', async () => {
    const expected = readFredValue(EARLY_VINTAGE, '2025-07');
    const { rows, meta } = await observations(
      `series=${PAYROLLS}&as_of=2026-01-01T00:00:00Z&from=2025-07&to=2025-07`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      period: '2025-07',
      value: expected,
      revision_number: 1,
      supersedes_id: null,
      in_force: true,
    });
    expect(rows[0]!.observed_at <= '2026-01-01T00:00:00Z').toBe(true);
    expect(meta.as_of).toBe('2026-01-01T00:00:00Z');
    expect(meta.series).toMatchObject({ key: PAYROLLS, source: 'bls', frequency: 'monthly' });
    expect(meta.next_cursor).toBeNull();
  });

  it('as of 2026-10-03 the later vintage is revision 2, in force, superseding revision 1', async () => {
    const early = readFredValue(EARLY_VINTAGE, '2025-07');
    const late = readFredValue(LATE_VINTAGE, '2025-07');
    expect(late).not.toBe(early);
    const { rows } = await observations(
      `series=${PAYROLLS}&as_of=2026-10-03T00:00:00Z&from=2025-07&to=2025-07`,
    );
    expect(rows.map((r) => [r.value, r.revision_number, r.in_force])).toEqual([
      [early, 1, false],
      [late, 2, true],
    ]);
    expect(rows[1]!.supersedes_id).toBe(rows[0]!.id);
  });

  it('has every provenance field on each row', async () => {
    const { rows } = await observations(`series=${PAYROLLS}&from=2025-07&to=2025-07`);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual([
        'id',
        'series_key',
        'period',
        'value',
        'source_ref',
        'observed_at',
        'observed_at_method',
        'footnotes',
        'collector_version',
        'verification_status',
        'confidence',
        'data_class',
        'revision_number',
        'supersedes_id',
        'in_force',
      ]);
      expect(row.observed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      // Both FRED vintages: known at the Employment Situation release of their vintage date.
      expect(row).toMatchObject({ observed_at_method: 'vintage', footnotes: [] });
    }
    expect(rows.map((r) => r.observed_at)).toEqual(['2025-08-01T12:30:00Z', '2026-10-02T12:30:00Z']);
  });

  it('keeps the footnotes of the BLS API response and dates each month by its release', async () => {
    const response = JSON.parse(
      readFileSync(join(SHARED_DATA, 'bls/bls_api_v2_sae_north_dakota_mining_2014_2015.json'), 'utf8'),
    ) as {
      Results: {
        series: Array<{
          seriesID: string;
          data: Array<{
            year: string;
            period: string;
            value: string;
            footnotes: Array<Record<string, string>>;
          }>;
        }>;
      };
    };
    const [series] = response.Results.series;
    const source = (month: string) => series!.data.find((d) => `${d.year}-${d.period.slice(1)}` === month)!;
    const { rows } = await observations(`series=bls.${series!.seriesID}&from=2015-01&to=2015-12`);
    const byMonth = new Map(rows.map((r) => [r.period, r]));
    for (const [month, code, text, method] of [
      ['2015-12', 'P', 'Preliminary', 'release_calendar'],
      ['2015-01', 'C', 'Correction', 'later_release'],
    ] as const) {
      expect(source(month).footnotes).toEqual([{ code, text }]);
      expect(byMonth.get(month), month).toMatchObject({
        value: Number(source(month).value),
        footnotes: [{ code, text }],
        observed_at_method: method,
      });
    }
    // The file was collected on 2016-02-01, after the State Employment and Unemployment release of
    // 2016-01-26 (10:00 New York), which first carried December 2015. January 2015, first released
    // 2015-03-17, had been corrected since (its footnote says so): it is known from 2016-01-26, not
    // from its first release, which would show the corrected value at an as_of it did not exist.
    expect(byMonth.get('2015-01')?.observed_at).toBe('2016-01-26T15:00:00Z');
    expect(byMonth.get('2015-12')?.observed_at).toBe('2016-01-26T15:00:00Z');
    // A month without a footnote has an empty list, not null.
    expect(byMonth.get('2015-06')?.footnotes).toEqual([]);
  });

  it('is empty before the first observation and refuses an as_of in the future', async () => {
    expect((await observations(`series=${PAYROLLS}&as_of=1938-12-31T23:59:59Z`)).rows).toEqual([]);
    await expectApiError(observations(`series=${PAYROLLS}&as_of=2026-11-23T12:00:01Z`), 'invalid_parameter');
    // Exactly now is not the future.
    expect((await observations(`series=${PAYROLLS}&as_of=2026-11-23T12:00:00Z&limit=1`)).rows).toHaveLength(
      1,
    );
  });

  it('keeps only periods within from and to, sorted by period then revision', async () => {
    const { rows, meta } = await observations(`series=${PAYROLLS}&from=2025-01&to=2025-06`);
    expect(new Set(rows.map((r) => r.period))).toEqual(
      new Set(['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']),
    );
    const keys = rows.map((r) => `${r.period}#${r.revision_number}`);
    expect(keys).toEqual(
      [...rows]
        .sort((a, b) => a.period.localeCompare(b.period) || a.revision_number - b.revision_number)
        .map((r) => `${r.period}#${r.revision_number}`),
    );
    expect(meta.filters).toEqual({ from: '2025-01', to: '2025-06' });
  });

  it('walks every page with limit=100 and gets exactly the unpaginated rows', async () => {
    const all = (await observations(`series=${PAYROLLS}&limit=10000`)).rows;
    // The early vintage alone has a row per month since 1939.
    expect(all.length).toBeGreaterThan(1000);
    const walked: Row[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `series=${PAYROLLS}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await observations(query);
      expect(page.rows.length).toBeLessThanOrEqual(100);
      walked.push(...page.rows);
      cursor = page.meta.next_cursor as string | null;
      pages += 1;
    } while (cursor !== null && pages < 100);
    expect(pages).toBe(Math.ceil(all.length / 100));
    expect(walked).toEqual(all);
  });

  it('refuses a cursor that does not decode', async () => {
    await expectApiError(observations(`series=${PAYROLLS}&cursor=bm90LWpzb24`), 'invalid_parameter');
  });

  it('marks the revision in force among three BLS release revisions', async () => {
    const vintages = JSON.parse(readFileSync(CES_VINTAGES, 'utf8')) as {
      records: Array<{ observation_month: string; release_date: string; value_thousands: number }>;
    };
    const december = vintages.records.filter((r) => r.observation_month === '2025-12');
    expect(december.map((r) => r.value_thousands)).toEqual([50, 48, -17]);
    const { rows: all } = await observations(`series=${PAYROLLS_CHANGE}&from=2025-12&to=2025-12`);
    expect(all.map((r) => [r.value, r.revision_number])).toEqual([
      [50, 1],
      [48, 2],
      [-17, 3],
    ]);
    const { rows } = await observations(
      `series=${PAYROLLS_CHANGE}&from=2025-12&to=2025-12&as_of=2026-02-20T00:00:00Z`,
    );
    expect(rows.filter((r) => r.in_force).map((r) => r.value)).toEqual([48]);
    expect(rows.map((r) => r.value)).toEqual([50, 48]);
  });

  it('answers not_found for an unknown series key and an unknown macro slug', async () => {
    await expectApiError(observations('series=bls.NOSUCHSERIES'), 'not_found');
    await expectApiError(call('macro-series', getMacroHistory, 'no-such-series', ''), 'not_found');
  });

  it('serves macro history in the observations row layout', async () => {
    const macro = await call('macro-series', getMacroHistory, 'nonfarm-payrolls', 'from=2025-01&to=2025-12');
    const raw = await observations(`series=${PAYROLLS}&from=2025-01&to=2025-12`);
    expect(macro.data).toEqual(raw.rows);
    expect((macro.meta as { series: { slug: string } }).series.slug).toBe('nonfarm-payrolls');
  });

  it('gives the full legacy history of gold, one report per week', async () => {
    const duck = await openDuckDb();
    const connection = await duck.connect();
    const lines = await readCsvFile(connection, LEGACY);
    connection.closeSync();
    duck.closeSync();
    const gold = lines.filter((l) => l.values['CFTC Contract Market Code']?.trim() === '088691');
    const dates = gold.map((l) => l.values['As of Date in Form YYYY-MM-DD']!).sort();
    expect(dates).toHaveLength(10);

    const payload = await call('cot-market', getCotHistory, 'gold', 'report_type=legacy');
    const data = payload.data as Array<Record<string, unknown>>;
    expect(data.map((r) => r.report_date)).toEqual(dates);
    expect(payload.meta?.window).toEqual({
      reports: 10,
      limit: 1000,
      from: dates[0],
      to: dates.at(-1),
      full_history: true,
    });
    expect(payload.meta?.next_cursor).toBeNull();
    const march = gold.find((l) => l.values['As of Date in Form YYYY-MM-DD'] === '2025-03-11')!;
    const report = data.find((r) => r.report_date === '2025-03-11') as {
      categories: Record<string, { long: number }>;
      revision_number: number;
      supersedes_id: string | null;
    };
    expect(report.categories.noncommercial!.long).toBe(
      Number(march.values['Noncommercial Positions-Long (All)']),
    );
    expect(report).toMatchObject({ revision_number: 1, supersedes_id: null });

    // Pages of 3 cover the same weeks; as_of before the first release gives none.
    const firstPage = await call('cot-market', getCotHistory, 'gold', 'report_type=legacy&limit=3');
    expect((firstPage.data as unknown[]).length).toBe(3);
    const second = await call(
      'cot-market',
      getCotHistory,
      'gold',
      `report_type=legacy&limit=3&cursor=${firstPage.meta?.next_cursor}`,
    );
    expect((second.data as Array<{ report_date: string }>).map((r) => r.report_date)).toEqual(
      dates.slice(3, 6),
    );
    const early = await call(
      'cot-market',
      getCotHistory,
      'gold',
      'report_type=legacy&as_of=2025-01-01T00:00:00Z',
    );
    expect(early.data).toEqual([]);
    // as_of is inclusive: at the third report's release time exactly, three reports are known.
    const third = data[2]!.released_at as string;
    const known = await call('cot-market', getCotHistory, 'gold', `report_type=legacy&as_of=${third}`);
    expect((known.data as Array<{ report_date: string }>).map((r) => r.report_date)).toEqual(
      dates.slice(0, 3),
    );
    expect(known.meta?.as_of).toBe(third);

    const csv = renderCsv(data);
    const header = csv.split('\r\n')[0]!.split(',');
    expect(header).toContain('categories.noncommercial.long');
    expect(csv.split('\r\n')).toHaveLength(data.length + 2);
  });
});

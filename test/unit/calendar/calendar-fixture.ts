import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll } from 'vitest';
import { readBlsReleaseDates, readCftcExceptions } from '../../../src/calendar/load-calendars.ts';
import type { BlsReleaseDate, CftcReleaseException } from '../../../src/calendar/types.ts';
import { openDuckDb } from '../../../src/db/duckdb.ts';
import { addDays } from '../../../src/lib/zoned-time.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

/** The shipped BLS release dates: the expected data of every BLS release. */
export const BLS_RELEASE_DATES_FILE = join(REPO_ROOT, 'data/calendars/bls_release_dates.csv');

/** The shipped exceptions file: the expected data of every exception row. */
export const CFTC_EXCEPTIONS_FILE = join(REPO_ROOT, 'data/calendars/cftc_cot_release_exceptions.csv');

/**
 * As-of dates that are Mondays although no exception row names them (cftc_cot_release_exceptions.md,
 * "Not rows"): those reports went out on their week's normal Friday, or fell in a gap.
 */
const MONDAY_REPORT_DATES_WITHOUT_ROW = [
  '2012-12-24',
  '2012-12-31',
  '2017-07-03',
  '2018-12-31',
  '2023-07-03',
];

/** The documented gaps (cftc_cot_release_exceptions.md, "Gaps"): no per-report date published. */
export const GAP_REPORT_DATES = new Set([
  '2013-10-08',
  '2013-10-15',
  '2013-10-22',
  '2013-10-29',
  '2018-12-04',
  '2018-12-31',
  '2019-01-08',
  '2019-01-15',
  '2019-01-22',
  '2019-01-29',
  '2019-02-05',
  '2019-02-12',
  '2019-02-19',
  '2019-02-26',
]);

/** Every weekly report date from 2010-01-05 to 2026-12-22, Monday where the CFTC used a Monday. */
export function weeklyReportDates(exceptions: readonly CftcReleaseException[]): string[] {
  const mondays = new Set([
    ...MONDAY_REPORT_DATES_WITHOUT_ROW,
    ...exceptions.map((row) => row.report_date).filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 1),
  ]);
  const dates: string[] = [];
  for (let tuesday = '2010-01-05'; tuesday <= '2026-12-22'; tuesday = addDays(tuesday, 7)) {
    const monday = addDays(tuesday, -1);
    dates.push(mondays.has(monday) ? monday : tuesday);
  }
  return dates;
}

/** A DuckDB connection for one test file, opened now and closed in the file's afterAll. */
export async function openTestConnection(): Promise<DuckDBConnection> {
  const instance = await openDuckDb({ threads: 1 });
  const connection = await instance.connect();
  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });
  return connection;
}

/**
 * Reads the shipped exceptions file through DuckDB at collection time, so that tests can be
 * generated per row.
 */
export async function loadCftcExceptions(): Promise<CftcReleaseException[]> {
  return readCftcExceptions(await openTestConnection(), CFTC_EXCEPTIONS_FILE);
}

/** Reads the shipped BLS release dates through DuckDB at collection time. */
export async function loadBlsReleaseDates(): Promise<BlsReleaseDate[]> {
  return readBlsReleaseDates(await openTestConnection(), BLS_RELEASE_DATES_FILE);
}

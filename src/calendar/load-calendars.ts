import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { type CsvRow, readCsvFile } from '../db/duckdb.ts';
import { isDate } from './assert-date.ts';
import { createBlsCalendar } from './bls-calendar.ts';
import { createCftcCalendar } from './cftc-calendar.ts';
import { BLS_RELEASES, type BlsReleaseDate, type Calendars, type CftcReleaseException } from './types.ts';

/** The calendars shipped with the repository (data/calendars/). */
export const DEFAULT_CALENDAR_DIR = fileURLToPath(new URL('../../data/calendars/', import.meta.url));

/** The file names loadCalendars reads from its directory. */
export const CALENDAR_FILES = {
  bls: 'bls_release_dates.csv',
  cftc: 'cftc_cot_release_exceptions.csv',
} as const;

const date = z.string().refine(isDate, 'expected a date YYYY-MM-DD');
const time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time HH:MM');
const text = z.string().trim().min(1, 'expected a non-empty value');

const cftcRowSchema = z
  .strictObject({
    report_date: date,
    release_date: date,
    release_time_et: time.nullable(),
    reason: text,
    source_url: text,
  })
  .refine((row) => row.release_date > row.report_date, 'release_date must follow report_date');

const blsRowSchema = z
  .strictObject({
    release: z.enum(BLS_RELEASES),
    reference_period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected a month YYYY-MM'),
    release_date: date,
    release_time_et: time,
    source_url: text,
  })
  // A month can only be released after it ended.
  .refine((row) => row.release_date > `${row.reference_period}-31`, 'release_date must follow the month');

/**
 * Reads and validates the two calendar files of `dir` through DuckDB and builds the calendars;
 * a bad row throws an Error naming its file and line.
 */
export async function loadCalendars(connection: DuckDBConnection, dir: string): Promise<Calendars> {
  const cftcRows = await readCftcExceptions(connection, join(dir, CALENDAR_FILES.cftc));
  const blsRows = await readBlsReleaseDates(connection, join(dir, CALENDAR_FILES.bls));
  return { cftc: createCftcCalendar(cftcRows), bls: createBlsCalendar(blsRows) };
}

/** Reads cftc_cot_release_exceptions.csv, validating every row. */
export async function readCftcExceptions(
  connection: DuckDBConnection,
  file: string,
): Promise<CftcReleaseException[]> {
  return validateRows(file, await readCsvFile(connection, file), cftcRowSchema);
}

/** Reads bls_release_dates.csv, validating every row. */
export async function readBlsReleaseDates(
  connection: DuckDBConnection,
  file: string,
): Promise<BlsReleaseDate[]> {
  return validateRows(file, await readCsvFile(connection, file), blsRowSchema);
}

function validateRows<T>(file: string, rows: readonly CsvRow[], schema: z.ZodType<T>): T[] {
  if (rows.length === 0) throw new Error(`${file}: no rows`);
  return rows.map((row) => {
    const parsed = schema.safeParse(row.values);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) =>
        issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
      );
      throw new Error(`${file}:${row.line}: ${issues.join('; ')}`);
    }
    return parsed.data;
  });
}

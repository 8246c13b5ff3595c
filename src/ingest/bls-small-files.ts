import { basename } from 'node:path';
import { z } from 'zod';
import { readCsvFile } from '../db/duckdb.ts';
import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import type { BlsKnowledgeContext } from './bls-knowledge-time.ts';
import { type BlsTables, type StagedValue, stageValues } from './bls-staging.ts';
import { InputError } from './input-error.ts';
import { formatMonthPeriod, isMonthPeriod, parseIsoDate } from './periods.ts';
import type { IngestContext } from './source.ts';
import { validateJson } from './validate-json.ts';
import { cleanText, parseNumber } from './values.ts';

/*
 * The two small BLS formats, read in JavaScript and staged for the SQL path of bls.ts: the CES
 * release-vintage compilation (JSON) and the datahub CPI-U CSV.
 */

export const CPI_HEADER = 'Date,Index,Inflation';
const CPI_SERIES_KEY = 'bls.CUUR0000SA0';
/** The Employment Situation is released at 08:30 Eastern. */
const RELEASE_TIME = '08:30';
const RELEASE_ZONE = 'America/New_York';

export const vintageSchema = z.object({
  dataset_id: z.string(),
  series_id: z.string().regex(/^[A-Z0-9]+$/, 'expected a BLS series id'),
  records: z.array(
    z.object({
      observation_month: z.string().refine(isMonthPeriod, 'expected YYYY-MM'),
      release_date: z.string().refine((text) => parseIsoDate(text) !== null, 'expected a date YYYY-MM-DD'),
      revision_stage: z.string(),
      value_thousands: z.number().nullable(),
      source_document_id: z.string().min(1),
    }),
  ),
});

export function readVintages(json: object, file: string, knowledge: BlsKnowledgeContext): StagedValue[] {
  const compilation = validateJson(vintageSchema, json, file);
  const name = basename(file);
  return compilation.records.map((record, ordinal) => ({
    ordinal,
    line: null,
    skipped: record.value_thousands === null,
    problem: null,
    problem_line: null,
    series_key: `bls.${compilation.series_id}.change`,
    knowledge_id: null,
    period: record.observation_month,
    value: record.value_thousands,
    source_ref: `${name}#${record.source_document_id}`,
    locator: null,
    // The compilation prints the release date of each figure beside it.
    given_at: knowledge.override ?? zonedTimeToUtc(record.release_date, RELEASE_TIME, RELEASE_ZONE),
    given_method: knowledge.override !== undefined ? 'collected' : 'publisher_timestamp',
    // A third party copied these from the news releases by hand.
    verification_status: 'unverified',
    confidence: 0.8,
  }));
}

/** Reads the CPI CSV; a line's problem is staged with it, to be reported in file order. */
export async function readCpiCsv(context: IngestContext, file: string, tables: BlsTables): Promise<void> {
  const rows = await readCsvFile(context.connection, file);
  if (rows.length === 0) throw new InputError(file, 1, 'header only, no data rows');
  const name = basename(file);
  const values = rows.map((row, ordinal): StagedValue => {
    const staged: StagedValue = {
      ordinal,
      line: row.line,
      skipped: false,
      problem: null,
      problem_line: row.line,
      series_key: CPI_SERIES_KEY,
      knowledge_id: CPI_SERIES_KEY.slice('bls.'.length),
      period: null,
      value: null,
      source_ref: `${name}:${row.line}`,
      locator: `line ${row.line}`,
      given_at: null,
      given_method: null,
      verification_status: 'unverified',
      confidence: 0.9,
    };
    const text = cleanText(row.values.Date) ?? '';
    const date = parseIsoDate(text);
    if (date === null || date.day !== 1) {
      return { ...staged, problem: `column "Date": expected the first of a month, got "${text}"` };
    }
    // Inflation is datahub's own month-on-month computation, not a BLS figure.
    let value: number | null;
    try {
      value = parseNumber(row.values.Index, { file, line: row.line, column: 'Index' });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      return { ...staged, problem: error.message.slice(`${basename(file)}:${row.line}: `.length) };
    }
    if (value === null) return { ...staged, skipped: true };
    return { ...staged, period: formatMonthPeriod(date.year, date.month), value };
  });
  await stageValues(tables, values);
}

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ecbReleaseTime } from '../../src/calendar/ecb-calendar.ts';
import { readCsvFile } from '../../src/db/duckdb.ts';
import { readEcbXmlRates } from '../../src/ingest/ecb-xml.ts';
import { InputError } from '../../src/ingest/input-error.ts';
import { parseIsoDate } from '../../src/ingest/periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from '../../src/ingest/source.ts';
import { cleanText } from '../../src/ingest/values.ts';
import type { KnowledgeTime, ObservationInput, RecordBatch } from '../../src/model/records.ts';

/** One rate as read, before it becomes an observation. */
interface EcbRate {
  date: string;
  currency: string;
  value: number;
  sourceRef: string;
  /** Line of a CSV row; XML entries are located by sourceRef instead. */
  line: number | null;
}

/** What one file yielded; `read` counts (date, currency) cells, `skipped` the `N/A` ones. */
interface FileRates {
  rates: EcbRate[];
  read: number;
  skipped: number;
}

const CURRENCY = /^[A-Z]{3}$/;
/** Names DuckDB gives to unnamed columns: the trailing empty header field, or extra fields. */
const UNNAMED_COLUMN = /^column\d+$/;
const RATE = /^\d+(\.\d+)?$/;
const LONG_DATE = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/;
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);
const EXPECTED_FORMATS =
  'expected eurofxref-hist.csv ("Date,USD,..."), eurofxref.csv ("Date, USD, ...") or the gesmes XML';

/**
 * TEST ORACLE ONLY: the former JavaScript parser of the ECB files (one object per rate), kept
 * unchanged so that tests can check the DuckDB path of src/ingest/ecb.ts against it.
 *
 * ECB euro foreign exchange reference rates as `ecb.<CUR>` observations (units of currency per
 * 1 EUR, period = rate date), from the full-history CSV, the single-day CSV, or the gesmes XML
 * (daily, 90-day or full history); the format is told by the content, not the file name.
 * rows_read counts (date, currency) cells, `N/A` included, and rows_skipped the `N/A` cells.
 * A rate found in two files (e.g. the daily and the 90-day XML) is kept once if the values agree.
 */
export const ecbJsOracleSource: Source<RecordBatch> = {
  id: 'ecb',
  description:
    'ECB euro reference rates: eurofxref-hist.csv, eurofxref.csv, eurofxref-daily/hist/hist-90d XML',
  async parse(files, context) {
    const batch = createEmptyBatch();
    const kept = new Map<string, EcbRate>();
    for (const file of files) {
      const result = await readFileRates(file, context);
      batch.rows_read += result.read;
      batch.rows_skipped += result.skipped;
      for (const rate of result.rates) {
        const key = `${rate.currency} ${rate.date}`;
        const previous = kept.get(key);
        if (previous === undefined) kept.set(key, rate);
        else if (previous.value !== rate.value) {
          throw new InputError(
            file,
            rate.line,
            `${rate.currency} ${rate.date} is ${rate.value} here but ${previous.value} in ${previous.sourceRef}`,
          );
        }
      }
    }
    batch.observations = toObservations([...kept.values()], context);
    return batch;
  },
};

async function readFileRates(file: string, context: IngestContext): Promise<FileRates> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
  const content = text.replace(/^\uFEFF/, '');
  if (content.trim() === '') throw new InputError(file, null, 'file is empty');
  if (content.trimStart().startsWith('<')) return readXmlRates(file, content);
  const header = content.split('\n', 1)[0] ?? '';
  if (/^Date,[A-Z]{3}(,|\r?$)/.test(header)) return readCsvRates(file, context, parseIsoDateText);
  if (/^Date, [A-Z]{3}(,|\r?$)/.test(header)) return readCsvRates(file, context, parseLongDate);
  throw new InputError(file, 1, `not an ECB reference-rate file: ${EXPECTED_FORMATS}`);
}

async function readCsvRates(
  file: string,
  context: IngestContext,
  parseDate: (text: string) => string | null,
): Promise<FileRates> {
  let rows: Awaited<ReturnType<typeof readCsvFile>>;
  try {
    rows = await readCsvFile(context.connection, file);
  } catch (error) {
    throw new InputError(file, null, `unreadable CSV: ${(error as Error).message}`);
  }
  const first = rows[0];
  if (first === undefined) throw new InputError(file, 2, 'no data rows (header only?)');
  const [, ...columns] = Object.keys(first.values);
  const currencies = columns.filter((column) => CURRENCY.test(column));
  const unnamed = columns.filter((column) => !CURRENCY.test(column));
  const odd = unnamed.find((column) => !UNNAMED_COLUMN.test(column));
  if (odd !== undefined) throw new InputError(file, 1, `header column "${odd}" is not a currency code`);
  const name = basename(file);
  const result: FileRates = { rates: [], read: 0, skipped: 0 };
  const seen = new Map<string, number>();
  for (const row of rows) {
    const dateText = cleanText(row.values.Date) ?? '';
    const date = parseDate(dateText);
    if (date === null) throw new InputError(file, row.line, `column "Date": not a valid date: "${dateText}"`);
    const firstLine = seen.get(date);
    if (firstLine !== undefined) {
      throw new InputError(file, row.line, `duplicate date ${date} (also line ${firstLine})`);
    }
    seen.set(date, row.line);
    // The trailing comma gives every line an empty last field; anything in it is an extra field.
    if (unnamed.some((column) => cleanText(row.values[column]) !== null)) {
      throw new InputError(file, row.line, `row has more fields than the header has currencies`);
    }
    for (const currency of currencies) {
      result.read += 1;
      const fail = (message: string) => new InputError(file, row.line, `column "${currency}": ${message}`);
      const value = parseRate(row.values[currency], fail);
      if (value === null) result.skipped += 1;
      else result.rates.push({ date, currency, value, sourceRef: `${name}:${row.line}`, line: row.line });
    }
  }
  return result;
}

/** The XML path was not moved to SQL: the oracle reads XML with the parser's own code. */
function readXmlRates(file: string, text: string): FileRates {
  const { rates, read, skipped } = readEcbXmlRates(file, text);
  return {
    rates: rates.map((rate) => ({ ...rate, sourceRef: rate.source_ref, line: null })),
    read,
    skipped,
  };
}

function parseRate(raw: string | null | undefined, fail: (message: string) => InputError): number | null {
  const text = cleanText(raw);
  if (text === 'N/A') return null;
  if (text === null) throw fail('value missing (the ECB writes N/A)');
  const value = Number(text);
  if (!RATE.test(text) || !(value > 0)) throw fail(`expected a positive rate, got "${text}"`);
  return value;
}

function parseIsoDateText(text: string): string | null {
  return parseIsoDate(text) === null ? null : text;
}

/** The single-day CSV writes `13 April 2026`; only English month names are accepted. */
function parseLongDate(text: string): string | null {
  const match = LONG_DATE.exec(text);
  if (!match) return null;
  const month = MONTHS.indexOf(match[2] ?? '') + 1;
  if (month === 0) return null;
  return parseIsoDateText(
    `${match[3]}-${String(month).padStart(2, '0')}-${(match[1] ?? '').padStart(2, '0')}`,
  );
}

/**
 * The ECB publishes the day's rates at about 16:00 Frankfurt time, before 1 July 2016 at about
 * 14:30 (src/calendar/ecb-calendar.ts). A rate that changes a stored one is a correction, dated
 * when the file was collected.
 */
function toObservations(rates: EcbRate[], context: IngestContext): ObservationInput[] {
  const override = context.options.observedAt;
  const correction: KnowledgeTime | null =
    context.collectedAt === null ? null : { observed_at: context.collectedAt, method: 'collected' };
  const published = new Map<string, KnowledgeTime>();
  const knowledgeOf = (date: string): KnowledgeTime => {
    if (override !== undefined) return { observed_at: override, method: 'collected' };
    let time = published.get(date);
    if (time === undefined) {
      const release = ecbReleaseTime(date);
      time = { observed_at: release.observed_at, method: release.method };
      published.set(date, time);
    }
    return time;
  };
  rates.sort((a, b) =>
    a.currency === b.currency ? a.date.localeCompare(b.date) : a.currency < b.currency ? -1 : 1,
  );
  return rates.map((rate) => {
    const time = knowledgeOf(rate.date);
    return {
      series_key: `ecb.${rate.currency}`,
      period: rate.date,
      value: rate.value,
      source_ref: rate.sourceRef,
      observed_at: time.observed_at,
      observed_at_method: time.method,
      ...(correction ? { correction } : {}),
      verification_status: 'verified',
      confidence: 1,
      data_class: 'official',
    };
  });
}

import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { readCsvFile } from '../db/duckdb.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import type { ObservationInput } from '../model/records.ts';
import { InputError } from './input-error.ts';
import { type CalendarDate, formatDatePeriod, inferDateFrequency, parseIsoDate } from './periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText, parseNumber } from './values.ts';

/** `<source>.<native id>` (CONTRACT section 5), e.g. `bls.CES0000000001`. */
const SERIES_KEY = /^[a-z0-9]+\.[A-Za-z0-9_.-]+$/;
const FRED_ID = /^[A-Za-z0-9_]+$/;
/** Current downloads say `observation_date`, older ones `DATE`; mirrors write `date,value`. */
const ID_DATE_COLUMNS = new Set(['observation_date', 'DATE']);
const EXPECTED_HEADERS = 'observation_date,<ID>, DATE,<ID> or date,value';

/** The columns of one file and the series key its values are filed under. */
interface FredLayout {
  dateColumn: string;
  valueColumn: string;
  seriesKey: string;
}

/** An observation with the file and line it was read from. */
interface Located {
  observation: ObservationInput;
  file: string;
  line: number;
}

/** One data row with a value, before the frequency of the whole file is known. */
interface FredRow {
  date: CalendarDate;
  value: number;
  line: number;
}

/**
 * FRED/ALFRED series CSV downloads. No fetch plan: fredgraph.csv serves one series per request
 * (`?id=PAYEMS`), which a fixed list of file names cannot express.
 */
export const fredSource: Source = {
  id: 'fred',
  description: 'FRED/ALFRED series CSV downloads (observation_date,<ID>; DATE,<ID>; date,value)',
  async parse(files, context) {
    const batch = createEmptyBatch();
    const observedAt = resolveObservedAt(files, context);
    const located: Located[] = [];
    for (const file of files) {
      const rows = await readRows(file, context);
      const layout = resolveLayout(file, Object.keys(rows[0]?.values ?? {}), context.options.series);
      const name = basename(file);
      const dates: CalendarDate[] = [];
      const seen = new Map<string, number>();
      const kept: FredRow[] = [];
      for (const row of rows) {
        batch.rows_read++;
        const text = cleanText(row.values[layout.dateColumn]) ?? '';
        const date = parseIsoDate(text);
        if (date === null) {
          throw new InputError(
            file,
            row.line,
            `column "${layout.dateColumn}": expected a date YYYY-MM-DD, got "${text}"`,
          );
        }
        const firstLine = seen.get(text);
        if (firstLine !== undefined)
          throw new InputError(file, row.line, `duplicate date ${text} (also line ${firstLine})`);
        seen.set(text, row.line);
        dates.push(date);
        const value = parseNumber(row.values[layout.valueColumn], {
          file,
          line: row.line,
          column: layout.valueColumn,
        });
        if (value === null) batch.rows_skipped++;
        else kept.push({ date, value, line: row.line });
      }
      // Missing values still count towards the frequency: they are dates the series is published on.
      const frequency = inferDateFrequency(dates);
      for (const row of kept) {
        located.push({
          file,
          line: row.line,
          observation: {
            series_key: layout.seriesKey,
            period: formatDatePeriod(row.date, frequency),
            value: row.value,
            source_ref: `${name}:${row.line}`,
            observed_at: observedAt,
            // FRED redistributes other publishers' data.
            verification_status: 'unverified',
            confidence: 0.9,
            data_class: 'official',
          },
        });
      }
    }
    batch.observations = sortAndCheckDuplicates(located);
    return batch;
  },
};

/** The knowledge time of every value: --observed-at, else the vintage date, else collection time. */
function resolveObservedAt(files: readonly string[], context: IngestContext): string {
  const { observedAt, vintage, series } = context.options;
  const where = files[0] ?? '(options)';
  if (series !== undefined && !SERIES_KEY.test(series)) {
    throw new InputError(where, null, `--series "${series}" is not a series key like bls.CES0000000001`);
  }
  if (vintage !== undefined && parseIsoDate(vintage) === null) {
    throw new InputError(where, null, `--vintage "${vintage}" is not a date YYYY-MM-DD`);
  }
  if (observedAt !== undefined) return observedAt;
  if (vintage !== undefined) return `${vintage}T00:00:00Z`;
  return formatTimestamp(context.now());
}

async function readRows(file: string, context: IngestContext) {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
  if (size === 0) throw new InputError(file, null, 'file is empty');
  const rows = await readCsvFile(context.connection, file);
  if (rows.length === 0) throw new InputError(file, 1, 'no data rows (header only?)');
  return rows;
}

function resolveLayout(file: string, columns: string[], series: string | undefined): FredLayout {
  const [dateColumn = '', valueColumn = ''] = columns;
  // A bare `value` column carries no series id (mirrors such as fred-relay).
  if (
    columns.length === 2 &&
    /^(date|observation_date)$/i.test(dateColumn) &&
    valueColumn.toLowerCase() === 'value'
  ) {
    if (series === undefined) {
      throw new InputError(
        file,
        1,
        'header date,value does not name the series: pass --series <source>.<id>',
      );
    }
    return { dateColumn, valueColumn, seriesKey: series };
  }
  if (columns.length === 2 && ID_DATE_COLUMNS.has(dateColumn) && FRED_ID.test(valueColumn)) {
    return { dateColumn, valueColumn, seriesKey: series ?? `fred.${valueColumn}` };
  }
  throw new InputError(file, 1, `unknown header "${columns.join(',')}": expected ${EXPECTED_HEADERS}`);
}

/** Sorts by series and period; two files filing the same period at the same knowledge time clash. */
function sortAndCheckDuplicates(located: Located[]): ObservationInput[] {
  const compare = (a: ObservationInput, b: ObservationInput) =>
    a.series_key === b.series_key ? a.period.localeCompare(b.period) : a.series_key < b.series_key ? -1 : 1;
  located.sort((a, b) => compare(a.observation, b.observation));
  for (let index = 1; index < located.length; index++) {
    const previous = located[index - 1];
    const current = located[index];
    if (previous && current && compare(previous.observation, current.observation) === 0) {
      const { series_key, period, observed_at } = current.observation;
      throw new InputError(
        current.file,
        current.line,
        `${series_key} ${period} observed at ${observed_at} is also in ${previous.observation.source_ref}: ` +
          'ingest different vintages separately, each with its --vintage',
      );
    }
  }
  return located.map((item) => item.observation);
}

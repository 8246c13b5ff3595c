import { basename } from 'node:path';
import { readCsvFile } from '../db/duckdb.ts';
import type { KnowledgeTime } from '../model/records.ts';
import type { FredRead, LocatedObservation } from './fred.ts';
import { assertNonEmptyFile, InputError } from './input-error.ts';
import { type CalendarDate, formatDatePeriod, inferDateFrequency, parseIsoDate } from './periods.ts';
import type { IngestContext } from './source.ts';
import { cleanText, parseNumber } from './values.ts';

const FRED_ID = /^[A-Za-z0-9_]+$/;
/** Current downloads say `observation_date`, older ones `DATE`; mirrors write `date,value`. */
const ID_DATE_COLUMNS = new Set(['observation_date', 'DATE']);
const EXPECTED_HEADERS = 'observation_date,<ID>, DATE,<ID> or date,value';
const CLASH_HINT = 'ingest different vintages separately, each with its --vintage';

/** The columns of one file and the series key its values are filed under. */
interface FredLayout {
  dateColumn: string;
  valueColumn: string;
  seriesKey: string;
}

/** One data row with a value, before the frequency of the whole file is known. */
interface FredRow {
  date: CalendarDate;
  value: number;
  line: number;
}

/**
 * Reads one FRED series CSV download; every value gets the same knowledge time, which the
 * caller resolved from the options (a CSV holds one vintage and does not say which).
 */
export async function readFredCsvFile(
  file: string,
  context: IngestContext,
  knowledge: KnowledgeTime,
): Promise<FredRead> {
  const rows = await readRows(file, context);
  const layout = resolveLayout(file, Object.keys(rows[0]?.values ?? {}), context.options.series);
  const name = basename(file);
  const dates: CalendarDate[] = [];
  const seen = new Map<string, number>();
  const kept: FredRow[] = [];
  let rowsSkipped = 0;
  for (const row of rows) {
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
    if (value === null) rowsSkipped++;
    else kept.push({ date, value, line: row.line });
  }
  // Missing values still count towards the frequency: they are dates the series is published on.
  const frequency = inferDateFrequency(dates);
  const located: LocatedObservation[] = kept.map((row) => ({
    file,
    line: row.line,
    clashHint: CLASH_HINT,
    observation: {
      series_key: layout.seriesKey,
      period: formatDatePeriod(row.date, frequency),
      value: row.value,
      source_ref: `${name}:${row.line}`,
      observed_at: knowledge.observed_at,
      observed_at_method: knowledge.method,
      // The knowledge time is already the real one (vintage or collection), never a first-release guess.
      correction: { ...knowledge },
      // FRED redistributes other publishers' data.
      verification_status: 'unverified',
      confidence: 0.9,
      data_class: 'official',
    },
  }));
  return { located, rowsRead: rows.length, rowsSkipped };
}

async function readRows(file: string, context: IngestContext) {
  await assertNonEmptyFile(file);
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

import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Calendars } from '../../src/calendar/types.ts';
import { readCsvFile } from '../../src/db/duckdb.ts';
import { readAlfredResponse } from '../../src/ingest/fred-alfred-json.ts';
import { assertNonEmptyFile, InputError } from '../../src/ingest/input-error.ts';
import { type LocatedObservation, sortLocatedObservations } from '../../src/ingest/located-observations.ts';
import {
  type CalendarDate,
  formatDatePeriod,
  inferDateFrequency,
  parseIsoDate,
} from '../../src/ingest/periods.ts';
import {
  createEmptyBatch,
  type IngestContext,
  type IngestOptions,
  type Source,
} from '../../src/ingest/source.ts';
import { cleanText, parseNumber } from '../../src/ingest/values.ts';
import { resolveVintageTime } from '../../src/ingest/vintage-time.ts';
import type { KnowledgeTime, RecordBatch } from '../../src/model/records.ts';

/**
 * The FRED/ALFRED parser as it was before it handed its observations to the store as a DuckDB
 * relation (src/ingest/fred.ts): JavaScript records, one per value. Kept as the oracle of
 * test/unit/ingest/fred-duckdb.test.ts.
 */

/** `<source>.<native id>` (CONTRACT section 5), e.g. `bls.CES0000000001`. */
const SERIES_KEY_PATTERN = /^[a-z0-9]+\.[A-Za-z0-9_.-]+$/;

/** What one format reader found in its files. */
interface FredRead {
  located: LocatedObservation[];
  rowsRead: number;
  rowsSkipped: number;
}

/**
 * FRED/ALFRED downloads: series CSV files (`observation_date,<ID>`, `DATE,<ID>`, `date,value`)
 * and the ALFRED JSON observations responses `mmds fetch` saves; the format is read from the
 * content. No fetch plan: both come one series per request, which a file list cannot express.
 */
export const fredJsOracleSource: Source<RecordBatch> = {
  id: 'fred',
  description: 'FRED/ALFRED series CSV downloads and ALFRED JSON observations (realtime periods)',
  async parse(files, context) {
    const batch = createEmptyBatch();
    checkOptions(files, context);
    const csvFiles: string[] = [];
    const jsonFiles: string[] = [];
    for (const file of files) {
      if ((await sniffFormat(file)) === 'json') jsonFiles.push(file);
      else csvFiles.push(file);
    }
    const reads: FredRead[] = [];
    if (csvFiles.length > 0) {
      const knowledge = resolveCsvKnowledgeTime(csvFiles, context);
      for (const file of csvFiles) reads.push(await readFredCsvFile(file, context, knowledge));
    }
    if (jsonFiles.length > 0)
      reads.push(await readAlfredJsonFiles(jsonFiles, context.options, context.calendars));
    const located: LocatedObservation[] = [];
    for (const read of reads) {
      batch.rows_read += read.rowsRead;
      batch.rows_skipped += read.rowsSkipped;
      located.push(...read.located);
    }
    // The same value at one knowledge time twice (overlapping downloads) is kept once.
    batch.observations = sortLocatedObservations(located, { kind: 'keep-equal' });
    return batch;
  },
};

function checkOptions(files: readonly string[], context: IngestContext): void {
  const { vintage, series } = context.options;
  const where = files[0] ?? '(options)';
  if (series !== undefined && !SERIES_KEY_PATTERN.test(series)) {
    throw new InputError(where, null, `--series "${series}" is not a series key like bls.CES0000000001`);
  }
  if (vintage !== undefined && parseIsoDate(vintage) === null) {
    throw new InputError(where, null, `--vintage "${vintage}" is not a date YYYY-MM-DD`);
  }
}

/**
 * The knowledge time of every value of a CSV download: --observed-at, else the vintage date,
 * else when the file was collected. A file of unknown age is refused rather than stamped with
 * the clock, which would make `as_of` see revised values at times they were not yet known.
 */
function resolveCsvKnowledgeTime(files: readonly string[], context: IngestContext): KnowledgeTime {
  const { observedAt, vintage } = context.options;
  if (observedAt !== undefined) return { observed_at: observedAt, method: 'collected' };
  if (vintage !== undefined)
    return resolveVintageTime(vintage, context.options.series ?? '', context.calendars);
  if (context.collectedAt !== null) return { observed_at: context.collectedAt, method: 'collected' };
  throw new InputError(
    files[0] ?? '(options)',
    null,
    'when these values were known is not recorded: pass --vintage YYYY-MM-DD (the FRED/ALFRED ' +
      'vintage date of the download) or --observed-at <RFC 3339 time>',
  );
}

/** JSON starts with `{` (after a BOM and blanks); everything else is read as CSV. */
async function sniffFormat(file: string): Promise<'json' | 'csv'> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const start = buffer
      .toString('utf8', 0, bytesRead)
      .replace(/^\uFEFF/, '')
      .trimStart();
    return start.startsWith('{') ? 'json' : 'csv';
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

const FRED_ID = /^[A-Za-z0-9_]+$/;
/** Current downloads say `observation_date`, older ones `DATE`; mirrors write `date,value`. */
const ID_DATE_COLUMNS = new Set(['observation_date', 'DATE']);
const EXPECTED_HEADERS = 'observation_date,<ID>, DATE,<ID> or date,value';
const CSV_CLASH_HINT = 'ingest different vintages separately, each with its --vintage';

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
async function readFredCsvFile(
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
    clashHint: CSV_CLASH_HINT,
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

const CLASH_HINT = 'two ALFRED rows with the same date and realtime_start disagree';

/** One row with a value, before the frequency of the whole series is known. */
interface AlfredRow {
  file: string;
  date: CalendarDate;
  realtimeStart: string;
  value: number;
  ref: string;
}

/**
 * Reads ALFRED `fred/series/observations` JSON responses (output_type 1) of one series: each row
 * is a value known from its realtime_start, so each becomes one observation with that vintage
 * date as its knowledge time. Repeats of a value across periods are left to the store.
 */
async function readAlfredJsonFiles(
  files: readonly string[],
  options: IngestOptions,
  calendars: Calendars,
): Promise<FredRead> {
  const first = files[0] ?? '(options)';
  const seriesKey = options.series;
  if (seriesKey === undefined) {
    throw new InputError(first, null, 'ALFRED JSON does not name the series: pass --series <source>.<id>');
  }
  if (options.vintage !== undefined || options.observedAt !== undefined) {
    throw new InputError(
      first,
      null,
      'ALFRED JSON carries the vintage of every value (realtime_start): --vintage and --observed-at do not apply',
    );
  }
  const rows: AlfredRow[] = [];
  const dates: CalendarDate[] = [];
  let rowsRead = 0;
  let rowsSkipped = 0;
  for (const file of files) {
    const response = await readAlfredResponse(file);
    const name = basename(file);
    response.observations.forEach((row, index) => {
      rowsRead++;
      const where = `observations[${index}] (date ${row.date}, realtime_start ${row.realtime_start})`;
      if (row.realtime_end < row.realtime_start) {
        throw new InputError(
          file,
          null,
          `${where}: realtime_end ${row.realtime_end} is before realtime_start`,
        );
      }
      const date = parseIsoDate(row.date) as CalendarDate;
      dates.push(date);
      const text = cleanText(row.value);
      // FRED writes `.` for a value missing in that vintage.
      if (text === null || text === '.') {
        rowsSkipped++;
        return;
      }
      const value = Number(text);
      if (!Number.isFinite(value))
        throw new InputError(file, null, `${where}: value "${text}" is not a number`);
      rows.push({
        file,
        date,
        realtimeStart: row.realtime_start,
        value,
        ref: `${name}#${row.date}@${row.realtime_start}`,
      });
    });
  }
  // One frequency for the whole series, across all the files (chunks) it was fetched in.
  const frequency = inferDateFrequency(dates);
  const located: LocatedObservation[] = rows.map((row) => {
    // Stamped as a CSV download's --vintage is (src/ingest/vintage-time.ts).
    const observedAt = resolveVintageTime(row.realtimeStart, seriesKey, calendars).observed_at;
    return {
      file: row.file,
      line: null,
      clashHint: CLASH_HINT,
      observation: {
        series_key: seriesKey,
        period: formatDatePeriod(row.date, frequency),
        value: row.value,
        source_ref: row.ref,
        observed_at: observedAt,
        observed_at_method: 'vintage',
        correction: { observed_at: observedAt, method: 'vintage' },
        // FRED redistributes other publishers' data.
        verification_status: 'unverified',
        confidence: 0.9,
        data_class: 'official',
      },
    };
  });
  return { located, rowsRead, rowsSkipped };
}

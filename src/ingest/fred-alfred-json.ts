import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import type { Calendars } from '../calendar/types.ts';
import type { FredRead, LocatedObservation } from './fred.ts';
import { InputError } from './input-error.ts';
import { type CalendarDate, formatDatePeriod, inferDateFrequency, parseIsoDate } from './periods.ts';
import type { IngestOptions } from './source.ts';
import { validateJson } from './validate-json.ts';
import { cleanText } from './values.ts';
import { resolveVintageTime } from './vintage-time.ts';

const isoDate = z.string().refine((text) => parseIsoDate(text) !== null, 'expected a date YYYY-MM-DD');

// Not strict: count, offset, limit, units, output_type and the like are ignored.
const observationsSchema = z.object({
  realtime_start: isoDate,
  realtime_end: isoDate,
  observations: z.array(
    z.object({ realtime_start: isoDate, realtime_end: isoDate, date: isoDate, value: z.string() }),
  ),
});

/** The body FRED sends instead of data (`{"error_code":400,"error_message":"Bad Request. …"}`). */
const errorSchema = z.object({ error_code: z.number(), error_message: z.string() });

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
export async function readAlfredJsonFiles(
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
    const response = await readResponse(file);
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

async function readResponse(file: string): Promise<z.infer<typeof observationsSchema>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new InputError(file, null, `invalid JSON: ${(error as Error).message}`);
  }
  const failure = errorSchema.safeParse(json);
  if (failure.success) {
    throw new InputError(
      file,
      null,
      `a FRED API error, not data (${failure.data.error_code}): ${failure.data.error_message}`,
    );
  }
  return validateJson(observationsSchema, json, file, 'not an ALFRED observations response: ');
}

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { execute, quotedIdentifier } from '../db/duckdb.ts';
import type { FredKnowledge, FredTables } from './fred-tables.ts';
import { InputError } from './input-error.ts';
import { parseIsoDate } from './periods.ts';
import type { IngestContext } from './source.ts';
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

/** One data row (a missing value too, as null), as inserted into the parse's values table. */
interface AlfredRow {
  ordinal: number;
  file: string;
  date: string;
  knowledge: string;
  value: number | null;
  source_ref: string;
}

/**
 * Reads ALFRED `fred/series/observations` JSON responses (output_type 1) of one series into the
 * parse's values table: each row is a value known from its realtime_start, so each becomes one
 * observation with that vintage date as its knowledge time, computed once per vintage date.
 * The responses are small and checked in JavaScript. Repeats of a value across periods are left
 * to the store. Returns the rows read and the missing values skipped.
 */
export async function insertAlfredJsonValues(
  files: readonly string[],
  fileGroup: number,
  context: IngestContext,
  tables: FredTables,
  knowledge: FredKnowledge,
): Promise<{ read: number; skipped: number }> {
  const { options, calendars } = context;
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
  let rowsSkipped = 0;
  for (const file of files) {
    const response = await readAlfredResponse(file);
    const name = basename(file);
    response.observations.forEach((row, index) => {
      const where = `observations[${index}] (date ${row.date}, realtime_start ${row.realtime_start})`;
      if (row.realtime_end < row.realtime_start) {
        throw new InputError(
          file,
          null,
          `${where}: realtime_end ${row.realtime_end} is before realtime_start`,
        );
      }
      const text = cleanText(row.value);
      let value: number | null = null;
      // FRED writes `.` for a value missing in that vintage.
      if (text === null || text === '.') rowsSkipped++;
      else {
        value = Number(text);
        if (!Number.isFinite(value))
          throw new InputError(file, null, `${where}: value "${text}" is not a number`);
      }
      const key = `vintage:${row.realtime_start}`;
      if (!knowledge.has(key)) {
        // Stamped as a CSV download's --vintage is (src/ingest/vintage-time.ts).
        const time = resolveVintageTime(row.realtime_start, seriesKey, calendars);
        knowledge.set(key, { observed_at: time.observed_at, method: 'vintage' });
      }
      rows.push({
        ordinal: rows.length,
        file,
        date: row.date,
        knowledge: key,
        value,
        source_ref: `${name}#${row.date}@${row.realtime_start}`,
      });
    });
  }
  // One frequency for the whole series, across all the files (chunks) it was fetched in: one file group.
  await execute(
    tables.connection,
    `INSERT INTO ${quotedIdentifier(tables.values)}
       SELECT $fileGroup::BIGINT * 4294967296 + ordinal, $fileGroup, file, NULL, $seriesKey, date, knowledge,
              value, source_ref, $hint
         FROM (SELECT unnest(from_json($rows::JSON,
           '[{"ordinal":"BIGINT","file":"VARCHAR","date":"VARCHAR","knowledge":"VARCHAR","value":"DOUBLE","source_ref":"VARCHAR"}]'),
           recursive := true))`,
    { fileGroup, seriesKey, hint: CLASH_HINT, rows: JSON.stringify(rows) },
  );
  return { read: rows.length, skipped: rowsSkipped };
}

/** Reads an ALFRED observations response, refusing an API error document or another shape. */
export async function readAlfredResponse(file: string): Promise<z.infer<typeof observationsSchema>> {
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

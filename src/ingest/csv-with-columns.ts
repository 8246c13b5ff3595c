import { type CsvRow, readCsvFile } from '../db/duckdb.ts';
import { firstLine, InputError } from './input-error.ts';
import type { IngestContext } from './source.ts';

/**
 * The rows of a publisher's CSV file whose header must hold `columns`: a file DuckDB cannot read,
 * one without data rows and one lacking a column are refused, naming the file (and `format`, the
 * kind of file it should have been: "an ISO 10383 MIC CSV").
 */
export async function readCsvWithColumns(
  context: IngestContext,
  file: string,
  columns: readonly string[],
  format: string,
): Promise<CsvRow[]> {
  let rows: CsvRow[];
  try {
    rows = await readCsvFile(context.connection, file);
  } catch (error) {
    throw new InputError(file, null, `cannot read as CSV (malformed or truncated?): ${firstLine(error)}`);
  }
  const first = rows[0];
  if (first === undefined) throw new InputError(file, null, 'no data rows (empty or truncated file)');
  const missing = columns.filter((column) => !(column in first.values));
  if (missing.length > 0)
    throw new InputError(file, 1, `not ${format}: missing columns ${missing.join(', ')}`);
  return rows;
}

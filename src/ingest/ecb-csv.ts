import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readCsvSql, readRows } from '../db/duckdb.ts';
import { InputError } from './input-error.ts';

/** The date column of the full-history CSV (`2026-04-13`) or of the single-day one (`13 April 2026`). */
export type EcbCsvDates = 'iso' | 'long';

/** Where a CSV file's rates go: the parse's rates table, under the file's index. */
export interface EcbCsvTarget {
  connection: DuckDBConnection;
  /** Temporary rates table (ecb.ts): file_index, ordinal, date, currency, value, source_ref, line. */
  rates: string;
  fileIndex: number;
  /** The name the file's rates cite in source_ref (citedName). */
  name: string;
  /** Prefix of the scratch tables of this parse. */
  prefix: string;
}

const CURRENCY = /^[A-Z]{3}$/;
/** Names DuckDB gives to unnamed columns: the trailing empty header field, or extra fields. */
const UNNAMED_COLUMN = /^column\d+$/;
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

/**
 * Reads one ECB rates CSV with DuckDB into the rates table: the currency columns unpivoted into
 * one cell per (date, currency), checked in SQL, `N/A` cells counted and left out. The first bad
 * cell in file order is reported as an InputError naming its line, as the JavaScript parser did.
 * Returns the cells read and skipped.
 */
export async function loadEcbCsvRates(
  file: string,
  dates: EcbCsvDates,
  target: EcbCsvTarget,
): Promise<{ read: number; skipped: number }> {
  const { connection, prefix } = target;
  const raw = quotedIdentifier(`${prefix}_raw`);
  const cells = quotedIdentifier(`${prefix}_cells`);
  try {
    try {
      await execute(connection, `CREATE OR REPLACE TEMP TABLE ${raw} AS SELECT * FROM ${readCsvSql(file)}`);
    } catch (error) {
      throw new InputError(file, null, `unreadable CSV: ${(error as Error).message}`);
    }
    const [count] = await readRows<{ rows: number }>(
      connection,
      `SELECT count(*)::INTEGER AS rows FROM ${raw}`,
    );
    if (count?.rows === 0) throw new InputError(file, 2, 'no data rows (header only?)');
    const names = (await readRows<{ column_name: string }>(connection, `DESCRIBE ${raw}`)).map(
      (c) => c.column_name,
    );
    const [dateColumn = 'Date', ...columns] = names;
    const currencies = columns.filter((column) => CURRENCY.test(column));
    const unnamed = columns.filter((column) => !CURRENCY.test(column));
    const odd = unnamed.find((column) => !UNNAMED_COLUMN.test(column));
    if (odd !== undefined) throw new InputError(file, 1, `header column "${odd}" is not a currency code`);
    await createCells(connection, { raw, cells, dateColumn, currencies, unnamed, dates });
    await assertCellsValid(connection, cells, file);
    await execute(
      connection,
      `INSERT INTO ${quotedIdentifier(target.rates)}
         SELECT $fileIndex, line * 1000000 + pos, date, currency, CAST(text AS DOUBLE), $name || ':' || line, line
           FROM ${cells} WHERE text <> 'N/A'`,
      { fileIndex: target.fileIndex, name: target.name },
    );
    const [counts] = await readRows<{ read: number; skipped: number }>(
      connection,
      `SELECT count(*)::INTEGER AS read, count(*) FILTER (text = 'N/A')::INTEGER AS skipped FROM ${cells}`,
    );
    return counts ?? { read: 0, skipped: 0 };
  } finally {
    await execute(connection, `DROP TABLE IF EXISTS ${raw}`);
    await execute(connection, `DROP TABLE IF EXISTS ${cells}`);
  }
}

interface CellsSpec {
  raw: string;
  cells: string;
  dateColumn: string;
  currencies: string[];
  unnamed: string[];
  dates: EcbCsvDates;
}

/**
 * One row per (line, currency) with the line's date checks: the date (NULL when invalid), the
 * first line of that date, whether the unnamed trailing columns hold anything (extra fields).
 * Line numbers follow the file order DuckDB keeps (header is line 1).
 */
async function createCells(connection: DuckDBConnection, spec: CellsSpec): Promise<void> {
  const dateText = `coalesce(mmds_clean_text(${quotedIdentifier(spec.dateColumn)}), '')`;
  const extra =
    spec.unnamed.length === 0
      ? 'false'
      : spec.unnamed.map((column) => `mmds_clean_text(${quotedIdentifier(column)}) IS NOT NULL`).join(' OR ');
  const currencyList = `[${spec.currencies.map(quotedString).join(', ')}]`;
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${spec.cells} AS
       WITH lines AS (
         SELECT rowid + 2 AS line, ${dateText} AS date_text, ${extra} AS extra,
                ${spec.currencies.map(quotedIdentifier).join(', ')}
           FROM ${spec.raw}
       ),
       dated AS (SELECT *, ${dateSql('date_text', spec.dates)} AS date FROM lines)
       SELECT line, date_text, date, min(line) OVER (PARTITION BY date) AS date_first_line, extra,
              currency, list_position(${currencyList}, currency) AS pos, mmds_clean_text(raw) AS text
         FROM dated
         UNPIVOT INCLUDE NULLS (raw FOR currency IN (${spec.currencies.map(quotedIdentifier).join(', ')}))`,
  );
}

/** SQL: the `YYYY-MM-DD` date of a date cell's text, or NULL when it is not a valid one. */
function dateSql(text: string, dates: EcbCsvDates): string {
  if (dates === 'iso') return `mmds_iso_date(${text})`;
  // `13 April 2026`; only English month names are accepted.
  const pattern = quotedString(String.raw`^(\d{1,2}) ([A-Za-z]+) (\d{4})$`);
  const part = (group: number) => `regexp_extract(${text}, ${pattern}, ${group})`;
  const months = `[${MONTHS.map(quotedString).join(', ')}]`;
  return `CASE WHEN regexp_matches(${text}, ${pattern}) THEN mmds_iso_date(
            ${part(3)} || '-' || lpad(nullif(list_position(${months}, ${part(2)}), 0)::VARCHAR, 2, '0')
            || '-' || lpad(${part(1)}, 2, '0')) END`;
}

/**
 * Throws the InputError of the first bad line, with the JavaScript parser's precedence within a
 * line: the date, a repeated date, extra fields, then the cells in column order.
 */
async function assertCellsValid(connection: DuckDBConnection, cells: string, file: string): Promise<void> {
  const [problem] = await readRows<{ line: number; message: string }>(
    connection,
    `WITH line_problems AS (
       SELECT DISTINCT line, CASE
                WHEN date IS NULL THEN 'column "Date": not a valid date: "' || date_text || '"'
                WHEN date_first_line < line
                  THEN 'duplicate date ' || date || ' (also line ' || date_first_line || ')'
                WHEN extra THEN 'row has more fields than the header has currencies' END AS message
         FROM ${cells}
     ),
     cell_problems AS (
       SELECT line, arg_min(message, pos) AS message FROM (
         SELECT line, pos, 'column "' || currency || '": ' || CASE
                  WHEN text IS NULL THEN 'value missing (the ECB writes N/A)'
                  WHEN NOT (regexp_full_match(text, '\\d+(\\.\\d+)?') AND coalesce(TRY_CAST(text AS DOUBLE) > 0, false))
                    THEN 'expected a positive rate, got "' || text || '"' END AS message
           FROM ${cells} WHERE text IS DISTINCT FROM 'N/A'
       ) WHERE message IS NOT NULL GROUP BY line
     )
     SELECT line::INTEGER AS line, coalesce(l.message, c.message) AS message
       FROM line_problems AS l FULL JOIN cell_problems AS c USING (line)
      WHERE coalesce(l.message, c.message) IS NOT NULL
      ORDER BY line LIMIT 1`,
  );
  if (problem !== undefined) throw new InputError(file, problem.line, problem.message);
}

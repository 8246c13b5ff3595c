import { basename } from 'node:path';
import { execute, quotedIdentifier, readCsvSql, readRows } from '../db/duckdb.ts';
import type { FredTables } from './fred-tables.ts';
import { assertNonEmptyFile, InputError } from './input-error.ts';

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

/**
 * Reads one FRED series CSV download with DuckDB into the parse's values table, checked in SQL:
 * the first bad line in file order is reported as an InputError naming it, with the JavaScript
 * parser's precedence within a line (the date, a repeated date, then the value). Every value
 * gets the knowledge time under `knowledge` (a CSV holds one vintage and does not say which).
 * Returns the rows read and the missing values skipped.
 */
export async function loadFredCsvValues(
  file: string,
  fileGroup: number,
  knowledge: string,
  series: string | undefined,
  tables: FredTables,
): Promise<{ read: number; skipped: number }> {
  const { connection, prefix } = tables;
  const raw = quotedIdentifier(`${prefix}_raw`);
  const lines = quotedIdentifier(`${prefix}_lines`);
  await assertNonEmptyFile(file);
  try {
    await execute(connection, `CREATE OR REPLACE TEMP TABLE ${raw} AS SELECT * FROM ${readCsvSql(file)}`);
    const [count] = await readRows<{ rows: number }>(
      connection,
      `SELECT count(*)::INTEGER AS rows FROM ${raw}`,
    );
    if (count?.rows === 0) throw new InputError(file, 1, 'no data rows (header only?)');
    const names = (await readRows<{ column_name: string }>(connection, `DESCRIBE ${raw}`)).map(
      (c) => c.column_name,
    );
    const layout = resolveLayout(file, names, series);
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${lines} AS
         WITH texts AS (
           SELECT rowid + 2 AS line, coalesce(mmds_clean_text(${quotedIdentifier(layout.dateColumn)}), '') AS date_text,
                  mmds_clean_text(${quotedIdentifier(layout.valueColumn)}) AS text
             FROM ${raw}
         )
         SELECT line, date_text, mmds_iso_date(date_text) AS date,
                min(line) OVER (PARTITION BY date_text) AS date_first_line, text,
                mmds_missing_value(text) AS missing,
                CASE WHEN NOT mmds_missing_value(text) THEN mmds_number_value(replace(text, ',', '')) END AS value
           FROM texts`,
    );
    const [problem] = await readRows<{ line: number; message: string }>(
      connection,
      `SELECT line::INTEGER AS line, CASE
                WHEN date IS NULL
                  THEN 'column ' || $dateColumn || ': expected a date YYYY-MM-DD, got "' || date_text || '"'
                WHEN date_first_line < line
                  THEN 'duplicate date ' || date_text || ' (also line ' || date_first_line || ')'
                ELSE 'column ' || $valueColumn || ': expected a number, got "' || text || '"' END AS message
         FROM ${lines}
        WHERE date IS NULL OR date_first_line < line
           OR (NOT missing AND (value IS NULL OR NOT isfinite(value)))
        ORDER BY line LIMIT 1`,
      { dateColumn: `"${layout.dateColumn}"`, valueColumn: `"${layout.valueColumn}"` },
    );
    if (problem !== undefined) throw new InputError(file, problem.line, problem.message);
    await execute(
      connection,
      `INSERT INTO ${quotedIdentifier(tables.values)}
         SELECT $fileGroup::BIGINT * 4294967296 + line, $fileGroup, $file, line, $seriesKey, date, $knowledge,
                CASE WHEN NOT missing THEN value END, $name || ':' || line, $hint
           FROM ${lines}`,
      {
        fileGroup,
        file,
        seriesKey: layout.seriesKey,
        knowledge,
        name: basename(file),
        hint: CLASH_HINT,
      },
    );
    const [counts] = await readRows<{ read: number; skipped: number }>(
      connection,
      `SELECT count(*)::INTEGER AS read, count(*) FILTER (missing)::INTEGER AS skipped FROM ${lines}`,
    );
    return counts ?? { read: 0, skipped: 0 };
  } finally {
    await execute(connection, `DROP TABLE IF EXISTS ${raw}`);
    await execute(connection, `DROP TABLE IF EXISTS ${lines}`);
  }
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

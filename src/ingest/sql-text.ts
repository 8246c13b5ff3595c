import type { DuckDBConnection } from '@duckdb/node-api';
import { execute } from '../db/duckdb.ts';

/** JavaScript's `\s` as an RE2 class: ASCII white space, Unicode space separators and the BOM. */
const SPACE = String.raw`[\t\n\x{0b}\f\r\p{Z}\x{feff}]`;

/**
 * Defines the SQL twins of values.ts and periods.ts that parsers checking text in DuckDB use:
 * mmds_clean_text(s) (cleanText: trimmed, NULL when empty) and mmds_iso_date(s) (the text when it
 * is a real `YYYY-MM-DD` date that parseIsoDate accepts, else NULL). Temporary: per connection.
 */
export async function defineTextMacros(connection: DuckDBConnection): Promise<void> {
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_clean_text(s) AS
       nullif(regexp_replace(s, '^${SPACE}+|${SPACE}+$', '', 'g'), '')`,
  );
  // parseIsoDate goes through Date.UTC, which reads years 0-99 as 1900-1999 and so rejects them.
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_iso_date(s) AS CASE
       WHEN regexp_full_match(s, '\\d{4}-\\d{2}-\\d{2}') AND s >= '0100'
            AND strftime(TRY_CAST(s AS DATE), '%Y-%m-%d') = s THEN s END`,
  );
}

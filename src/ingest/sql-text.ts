import type { DuckDBConnection } from '@duckdb/node-api';
import { execute } from '../db/duckdb.ts';

/** JavaScript's `\s` as an RE2 class: ASCII white space, Unicode space separators and the BOM. */
const SPACE = String.raw`[\t\n\x{0b}\f\r\p{Z}\x{feff}]`;

/**
 * Defines the SQL twins of values.ts and periods.ts that parsers checking text in DuckDB use:
 * mmds_clean_text(s) (cleanText: trimmed, NULL when empty) and mmds_iso_date(s) (the text when it
 * is a real `YYYY-MM-DD` date that parseIsoDate accepts, else NULL), and for parseNumber:
 * mmds_missing_value(t) (a cleaned text that is a missing-value marker, or NULL) and
 * mmds_number_value(t) (JavaScript's Number(t) of a cleaned text with its commas removed, NULL
 * for NaN and where t is empty). Temporary: per connection.
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
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_missing_value(t) AS t IS NULL OR t IN ('.', 'N/A', 'NA', '-')`,
  );
  // Number() trims white space, reads '' as 0, decimal literals and 0x/0b integers (0o ones are
  // not read here: no publisher writes them).
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_trimmed_number(u) AS CASE
       WHEN u = '' THEN 0::DOUBLE
       WHEN regexp_full_match(u, '[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?') THEN TRY_CAST(u AS DOUBLE)
       WHEN regexp_full_match(u, '0[xX][0-9a-fA-F]+|0[bB][01]+') THEN TRY_CAST(u AS BIGINT)::DOUBLE
     END`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_number_value(t) AS CASE
       WHEN t <> '' THEN mmds_trimmed_number(regexp_replace(t, '^${SPACE}+|${SPACE}+$', '', 'g')) END`,
  );
}

/** When the facts of one period became known, computed in JavaScript once per period. */
export interface PeriodKnowledge {
  period: string;
  observed_at: string;
  method: string;
}

/**
 * Creates a temporary table `name` (period, observed_at, method) from knowledge times computed
 * per distinct period (release calendars live in JavaScript), for a parser's relation to join.
 */
export async function createKnowledgeTable(
  connection: DuckDBConnection,
  name: string,
  times: readonly PeriodKnowledge[],
): Promise<void> {
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${name} AS
       SELECT unnest(from_json($times::JSON, '[{"period":"VARCHAR","observed_at":"TIMESTAMP","method":"VARCHAR"}]'),
         recursive := true)`,
    { times: JSON.stringify(times) },
  );
}

/** The `correction` column of a parser's relation: the collection time, bound as $collectedAt. */
export function correctionSql(collectedAt: string | null): string {
  return collectedAt === null
    ? 'CAST(NULL AS STRUCT(observed_at TIMESTAMP, method VARCHAR))'
    : `{'observed_at': CAST($collectedAt AS TIMESTAMP), 'method': 'collected'}`;
}

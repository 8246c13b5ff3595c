import type { DuckDBConnection } from '@duckdb/node-api';
import { execute } from './duckdb.ts';

/**
 * Defines mmds_number_text(x DOUBLE): the text JavaScript's String(x) gives, which fact ids of
 * numeric fingerprints hash. DuckDB prints the same shortest round-trip digits, only laid out
 * differently (`1.0`, `1e-07`, `-0.0`): the macro takes digits and decimal exponent apart and
 * lays them out by ECMAScript's Number::toString rules.
 */
export async function defineNumberText(connection: DuckDBConnection): Promise<void> {
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_js_digits(d, n) AS CASE
       WHEN length(d) <= n AND n <= 21 THEN d || repeat('0', n - length(d))
       WHEN 0 < n AND n <= 21 THEN left(d, n) || '.' || substr(d, n + 1)
       WHEN -6 < n AND n <= 0 THEN '0.' || repeat('0', -n) || d
       ELSE left(d, 1) || CASE WHEN length(d) > 1 THEN '.' || substr(d, 2) ELSE '' END
            || 'e' || CASE WHEN n > 0 THEN '+' ELSE '-' END || abs(n - 1)::VARCHAR
     END`,
  );
  // For text s = abs(x)::VARCHAR: its mantissa without the point, and that without leading zeros.
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_mantissa(s) AS replace(split_part(s, 'e', 1), '.', '')`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_js_number(s) AS mmds_js_digits(
       rtrim(ltrim(mmds_mantissa(s), '0'), '0'),
       length(split_part(split_part(s, 'e', 1), '.', 1))
         + coalesce(TRY_CAST(nullif(split_part(s, 'e', 2), '') AS INTEGER), 0)
         - (length(mmds_mantissa(s)) - length(ltrim(mmds_mantissa(s), '0'))))`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_number_text(x) AS CASE
       WHEN x IS NULL THEN 'null'
       WHEN isnan(x) THEN 'NaN'
       WHEN isinf(x) THEN CASE WHEN x > 0 THEN 'Infinity' ELSE '-Infinity' END
       WHEN x = 0 THEN '0'
       -- Without an exponent the layouts agree, but for DuckDB's '.0' on whole numbers.
       WHEN NOT contains(x::VARCHAR, 'e') THEN
         CASE WHEN ends_with(x::VARCHAR, '.0') THEN left(x::VARCHAR, length(x::VARCHAR) - 2) ELSE x::VARCHAR END
       ELSE CASE WHEN x < 0 THEN '-' ELSE '' END || mmds_js_number(abs(x)::VARCHAR)
     END`,
  );
}

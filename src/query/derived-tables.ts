import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedString } from '../db/duckdb.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../model/records.ts';
import { createCotMarketTable } from './cot-market-table.ts';

/**
 * Small tables computed once when a snapshot is opened, so that the "latest" endpoints do not
 * scan every revision per request: rights per series key, the latest value per series, the
 * latest COT report per market and report type, and the COT market list (cot-market-table.ts).
 */
export async function createDerivedTables(connection: DuckDBConnection): Promise<void> {
  const redistributable = `[${REDISTRIBUTABLE_RIGHTS.map(quotedString).join(', ')}]`;
  await execute(
    connection,
    `CREATE TABLE series_rights AS
     WITH keys AS (
       SELECT DISTINCT series_key AS key FROM observations
       UNION SELECT DISTINCT series_key FROM cot_reports
       UNION SELECT key FROM series)
     SELECT k.key,
            coalesce(s.source, split_part(k.key, '.', 1)) AS source,
            src.rights,
            coalesce(list_contains(${redistributable}, src.rights), false) AS redistributable
       FROM keys k
       LEFT JOIN series s ON s.key = k.key
       LEFT JOIN sources src ON src.id = coalesce(s.source, split_part(k.key, '.', 1))`,
  );
  await execute(
    connection,
    `CREATE TABLE series_latest AS
     SELECT o.series_key, o.period, o.value, o.observed_at, o.observed_at_method, o.revision_number, o.id,
            stats.first_period, stats.periods, stats.last_observed_at
       FROM observations o
       JOIN (SELECT series_key, min(period) AS first_period, count(DISTINCT period) AS periods,
                    max(observed_at) AS last_observed_at
               FROM observations GROUP BY series_key) stats USING (series_key)
     QUALIFY row_number() OVER (PARTITION BY o.series_key ORDER BY o.period DESC, o.revision_number DESC) = 1`,
  );
  await execute(
    connection,
    `CREATE TABLE cot_latest AS
     SELECT * FROM cot_reports
     QUALIFY row_number() OVER (PARTITION BY series_key ORDER BY period DESC, revision_number DESC) = 1`,
  );
  await createCotMarketTable(connection);
}

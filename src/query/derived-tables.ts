import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedString } from '../db/duckdb.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../model/records.ts';

/**
 * The one lookup computed when a snapshot is opened (the others are computed at publish, see
 * src/store/derived-tables.ts): rights per series key, from the small latest-value tables and
 * the catalog, so that no request scans the facts to learn whether a series may be served.
 */
export async function createSeriesRights(connection: DuckDBConnection): Promise<void> {
  const redistributable = `[${REDISTRIBUTABLE_RIGHTS.map(quotedString).join(', ')}]`;
  await execute(
    connection,
    `CREATE TABLE series_rights AS
     WITH keys AS (
       SELECT series_key AS key FROM series_latest
       UNION SELECT series_key FROM cot_latest
       UNION SELECT key FROM series)
     SELECT k.key,
            coalesce(s.source, split_part(k.key, '.', 1)) AS source,
            src.rights,
            coalesce(list_contains(${redistributable}, src.rights), false) AS redistributable
       FROM keys k
       LEFT JOIN series s ON s.key = k.key
       LEFT JOIN sources src ON src.id = coalesce(s.source, split_part(k.key, '.', 1))`,
  );
}

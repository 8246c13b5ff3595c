import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedString } from '../db/duckdb.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../model/records.ts';

/** The keys of the latest-value tables and the catalog: every key a request can ask about. */
const SERVED_KEYS = `SELECT series_key AS key FROM series_latest
       UNION SELECT series_key FROM cot_latest
       UNION SELECT key FROM series`;

/**
 * The one lookup computed when a snapshot is opened (the others are computed at publish, see
 * src/store/derived-tables.ts): rights per series key, from the small latest-value tables and
 * the catalog, so that no request scans the facts to learn whether a series may be served.
 */
export async function createSeriesRights(connection: DuckDBConnection): Promise<void> {
  await createRightsTable(connection, 'series_rights', SERVED_KEYS);
}

/**
 * Creates `table` (key, source, rights, redistributable) for the keys `keysSql` selects (as
 * `key`): the series' catalog source, else the key's prefix; a key without a catalog source is
 * not redistributable. The one statement of that rule, for serving and for the bulk export.
 */
export async function createRightsTable(
  connection: DuckDBConnection,
  table: string,
  keysSql: string,
): Promise<void> {
  const redistributable = `[${REDISTRIBUTABLE_RIGHTS.map(quotedString).join(', ')}]`;
  await execute(
    connection,
    `CREATE TABLE ${table} AS
     WITH keys AS (${keysSql})
     SELECT k.key,
            coalesce(s.source, split_part(k.key, '.', 1)) AS source,
            src.rights,
            coalesce(list_contains(${redistributable}, src.rights), false) AS redistributable
       FROM keys k
       LEFT JOIN series s ON s.key = k.key
       LEFT JOIN sources src ON src.id = coalesce(s.source, split_part(k.key, '.', 1))`,
  );
}

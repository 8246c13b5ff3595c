import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../../src/db/duckdb.ts';
import type { FactRelation, ObservationInput } from '../../src/model/records.ts';

const RFC3339 = "'%Y-%m-%dT%H:%M:%SZ'";

/**
 * Reads a parser's relation back as the records a JavaScript parser would have built, in input
 * order (knowledge times as RFC 3339 text, `correction` only where set), for tests to compare;
 * `orderBy` may order them otherwise.
 */
export async function readFactRelationRows(
  connection: DuckDBConnection,
  relation: FactRelation,
  orderBy = relation.orderBy,
): Promise<ObservationInput[]> {
  const rows = await readRows<Record<string, unknown>>(
    connection,
    `SELECT * REPLACE (strftime(observed_at, ${RFC3339}) AS observed_at,
       CASE WHEN correction IS NOT NULL THEN {'observed_at': strftime(correction.observed_at, ${RFC3339}),
         'method': correction.method} END AS correction)
       FROM (${relation.sql}) ORDER BY ${orderBy}`,
  );
  return rows.map((row) => {
    const { correction, ...rest } = row;
    return (correction === null ? rest : { ...rest, correction }) as unknown as ObservationInput;
  });
}

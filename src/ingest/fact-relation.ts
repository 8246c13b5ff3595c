import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../db/duckdb.ts';
import type { FactRelation } from '../model/records.ts';

/**
 * The fact rows a parser leaves in a table of the ingest's connection, counted now: `columns`
 * is the select list that yields the table's candidate columns, `orderBy` the input order.
 */
export async function countedFactRelation(
  connection: DuckDBConnection,
  table: string,
  orderBy: string,
  columns = '*',
): Promise<FactRelation> {
  const [count] = await readRows<{ rows: number }>(
    connection,
    `SELECT count(*)::INTEGER AS rows FROM ${table}`,
  );
  return { kind: 'relation', sql: `SELECT ${columns} FROM ${table}`, orderBy, rows: count?.rows ?? 0 };
}

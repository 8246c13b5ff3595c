import type { DuckDBConnection } from '@duckdb/node-api';
import { quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import type { TableDefinition } from './tables.ts';

function parquetList(files: readonly string[]): string {
  return `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
}

/** Reads the latest row hash of every key of a reference table in the store's batch files. */
export async function readReferenceHashes(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (files.length === 0) return result;
  const key = quotedIdentifier(table.key[0]!);
  const rows = await readRows<{ key: string; row_hash: string }>(
    connection,
    `SELECT ${key}::VARCHAR AS key, arg_max(row_hash, batch_id) AS row_hash FROM ${parquetList(files)} GROUP BY ${key}`,
  );
  for (const row of rows) result.set(row.key, row.row_hash);
  return result;
}

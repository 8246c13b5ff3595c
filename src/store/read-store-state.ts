import { type DuckDBConnection, listValue } from '@duckdb/node-api';
import { quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import type { KnowledgeMethod } from '../model/records.ts';
import { factKey, type StoredFact } from './revisions.ts';
import type { TableDefinition } from './tables.ts';

function parquetList(files: readonly string[]): string {
  return `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
}

/**
 * Reads, for the given series, every record of every (series, period) in the store's batch
 * files of a fact table: the timeline a new fact is placed in.
 */
export async function readStoredFacts(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  seriesKeys: readonly string[],
): Promise<Map<string, StoredFact[]>> {
  const result = new Map<string, StoredFact[]>();
  if (files.length === 0 || seriesKeys.length === 0) return result;
  const fingerprint = table.fingerprint?.[0] ?? 'id';
  const rows = await readRows<{
    series_key: string;
    period: string;
    id: string;
    fingerprint: string | number;
    observed_at: string;
    method: KnowledgeMethod | null;
    batch_id: string;
  }>(
    connection,
    `SELECT series_key, period, id, ${quotedIdentifier(fingerprint)} AS fingerprint,
            strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at,
            observed_at_method AS method, batch_id
       FROM ${parquetList(files)}
      WHERE list_contains($keys, series_key)`,
    { keys: listValue([...new Set(seriesKeys)]) },
  );
  for (const row of rows) {
    const key = factKey(row.series_key, row.period);
    const fact: StoredFact = {
      id: row.id,
      // Numbers come back as JS numbers, so String() matches the candidates' fingerprints.
      fingerprint: String(row.fingerprint),
      observed_at: row.observed_at,
      method: row.method,
      batch_id: row.batch_id,
    };
    const list = result.get(key);
    if (list) list.push(fact);
    else result.set(key, [fact]);
  }
  return result;
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

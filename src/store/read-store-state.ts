import { type DuckDBConnection, listValue } from '@duckdb/node-api';
import { quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { factKey, type InForce } from './revisions.ts';
import type { TableDefinition } from './tables.ts';

function parquetList(files: readonly string[]): string {
  return `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
}

/**
 * Reads, for the given series, the revision in force of every (series, period) in the store's
 * batch files of a fact table.
 */
export async function readInForce(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  seriesKeys: readonly string[],
): Promise<Map<string, InForce>> {
  const result = new Map<string, InForce>();
  if (files.length === 0 || seriesKeys.length === 0) return result;
  const fingerprint = table.fingerprint?.[0] ?? 'id';
  const rows = await readRows<{
    series_key: string;
    period: string;
    id: string;
    revision_number: number;
    fingerprint: string | number;
    observed_at: string;
  }>(
    connection,
    `SELECT series_key, period,
            arg_max(id, revision_number) AS id,
            max(revision_number) AS revision_number,
            arg_max(${quotedIdentifier(fingerprint)}, revision_number) AS fingerprint,
            strftime(arg_max(observed_at, revision_number), '%Y-%m-%dT%H:%M:%SZ') AS observed_at
       FROM ${parquetList(files)}
      WHERE list_contains($keys, series_key)
      GROUP BY series_key, period`,
    { keys: listValue([...new Set(seriesKeys)]) },
  );
  for (const row of rows) {
    result.set(factKey(row.series_key, row.period), {
      id: row.id,
      revision_number: Number(row.revision_number),
      // Numbers come back as JS numbers, so String() matches the candidates' fingerprints.
      fingerprint: String(row.fingerprint),
      observed_at: row.observed_at,
    });
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

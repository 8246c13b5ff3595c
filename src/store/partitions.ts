import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import type { SnapshotFile } from './manifest.ts';
import type { TableDefinition } from './tables.ts';

/**
 * Fact tables are split into partitions: a source (the series key up to its first dot), and
 * within a large source contiguous ranges of series keys, each near `targetRows` revisions. A
 * range never splits a series, so every revision chain lives in one file; a publish rewrites only
 * the partitions whose keys new batches touched and links the others from the parent snapshot.
 */
export interface PartitionRange {
  source: string;
  /** First key (inclusive); null: from the source's first key. */
  lower: string | null;
  /** Key where the next partition starts (exclusive); null: to the source's last key. */
  upper: string | null;
}

/** The source a series key belongs to, as SQL. */
export const SOURCE_OF_KEY = "split_part(series_key, '.', 1)";

/**
 * SQL that holds for the series keys of one partition. The key range comes first, in a form
 * Parquet statistics prune on: a source's keys all sort from the source name to the name
 * followed by '/' ('.' sorts just before '/'); the source test then makes it exact.
 */
export function rangePredicate(range: PartitionRange): string {
  const lower = range.lower ?? range.source;
  const upper = range.upper === null ? `${range.source}/` : range.upper;
  return `(series_key >= ${quotedString(lower)} AND series_key < ${quotedString(upper)} AND ${SOURCE_OF_KEY} = ${quotedString(range.source)})`;
}

/** The file of a partition inside the snapshot: the table's folder, the source, a hash of the range. */
export function partitionFileName(table: string, range: PartitionRange): string {
  const safe =
    range.source
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .slice(0, 40) || 'source';
  const digest = createHash('sha256')
    .update(`${range.source}\u0000${range.lower ?? ''}`)
    .digest('hex')
    .slice(0, 10);
  return `${table}/${safe}-${digest}.parquet`;
}

/** The range a manifest file covers (files of reference tables have none). */
export function rangeOf(file: SnapshotFile): PartitionRange | null {
  if (file.source === undefined) return null;
  return { source: file.source, lower: file.lower ?? null, upper: file.upper ?? null };
}

/** `read_parquet` over files, or an empty relation of the table's columns when there are none. */
export function relationOf(table: TableDefinition, files: readonly string[]): string {
  if (files.length === 0) {
    const columns = Object.entries(table.columns)
      .map(([name, type]) => `CAST(NULL AS ${type}) AS ${quotedIdentifier(name)}`)
      .join(', ');
    return `(SELECT ${columns} WHERE false)`;
  }
  return `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
}

/**
 * Splits `range` of the batch rows in `source` (a relation) into partitions of about
 * `targetRows` rows, cutting only between series. Returns nothing when the range has no rows.
 * With `keepUnlessAbove`, a range at or below that many rows stays one partition (a touched
 * partition is split only once it has doubled, so partitions do not splinter).
 */
export async function splitRange(
  connection: DuckDBConnection,
  source: string,
  range: PartitionRange,
  targetRows: number,
  keepUnlessAbove = 0,
): Promise<Array<PartitionRange & { rows: number }>> {
  const [total] = await readRows<{ rows: number | null }>(
    connection,
    `SELECT count(*)::BIGINT::DOUBLE AS rows FROM ${source} WHERE ${rangePredicate(range)}`,
  );
  const rows = Number(total?.rows ?? 0);
  if (rows === 0) return [];
  const parts = rows <= keepUnlessAbove ? 1 : Math.max(1, Math.ceil(rows / targetRows));
  if (parts === 1) return [{ ...range, rows }];
  const size = Math.ceil(rows / parts);
  const groups = await readRows<{ first_key: string; rows: number }>(
    connection,
    `WITH keys AS (SELECT series_key, count(*) AS n FROM ${source} WHERE ${rangePredicate(range)} GROUP BY series_key),
          placed AS (SELECT series_key, n, sum(n) OVER (ORDER BY series_key) - n AS before FROM keys)
     SELECT min(series_key) AS first_key, sum(n)::BIGINT::DOUBLE AS rows
       FROM placed GROUP BY before // ${size} ORDER BY first_key`,
  );
  return groups.map((group, index) => ({
    source: range.source,
    lower: index === 0 ? range.lower : group.first_key,
    upper: index === groups.length - 1 ? range.upper : groups[index + 1]!.first_key,
    rows: Number(group.rows),
  }));
}

/** The sources whose keys appear in `source` (a relation), in key order. */
export async function listSources(connection: DuckDBConnection, source: string): Promise<string[]> {
  const rows = await readRows<{ source: string }>(
    connection,
    `SELECT DISTINCT ${SOURCE_OF_KEY} AS source FROM ${source} ORDER BY source`,
  );
  return rows.map((row) => row.source);
}

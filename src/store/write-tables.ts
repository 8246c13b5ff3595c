import { createHash } from 'node:crypto';
import { linkSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { type BatchRecord, listTableFiles } from './batches.ts';
import type { StoreLayout } from './layout.ts';
import type { SnapshotFile, SnapshotManifest, SnapshotTable } from './manifest.ts';
import {
  listSources,
  type PartitionRange,
  partitionFileName,
  rangeOf,
  rangePredicate,
  relationOf,
  SOURCE_OF_KEY,
  splitRange,
} from './partitions.ts';
import { METHOD_RANK } from './revisions.ts';
import type { TableDefinition } from './tables.ts';
import { copySelectToParquet } from './write-parquet.ts';

/*
 * The tables of a snapshot as publish writes them: fact partitions (rewritten from the batches
 * in SQL, or linked from the parent), reference tables, and the manifest entry of each.
 */
/** Rows per row group of a fact partition: about one page of a series' history (see BENCHMARKS.md). */
export const FACT_ROW_GROUP_SIZE = 16_384;

/** The parent snapshot a publish can build on: its batches are a prefix of the store's. */
export interface ParentSnapshot {
  dir: string;
  manifest: SnapshotManifest;
  newBatches: BatchRecord[];
}

/** What writing the tables of one snapshot did, for the derived tables and the checks. */
export interface Written {
  /** Fact files written (not linked), relative to the snapshot directory, per table. */
  files: Record<string, string[]>;
  /** Ranges of the parent's partitions that were rewritten, per table. */
  rewritten: Record<string, PartitionRange[]>;
  linked: Set<string>;
}

/**
 * Writes the partitions of one fact table: with a parent, only those new batches touched (and
 * sources new to the store), linking the rest; without one, every source from scratch.
 */
export async function writeFactTable(
  connection: DuckDBConnection,
  layout: StoreLayout,
  table: TableDefinition,
  batches: readonly BatchRecord[],
  parent: ParentSnapshot | null,
  staging: string,
  target: number,
  written: Written,
): Promise<SnapshotFile[]> {
  const source = relationOf(table, listTableFiles(layout, batches, table.name));
  const ranges: PartitionRange[] = [];
  const out: SnapshotFile[] = [];
  written.files[table.name] = [];
  written.rewritten[table.name] = [];
  if (parent === null) {
    for (const name of await listSources(connection, source)) {
      ranges.push(
        ...(await splitRange(connection, source, { source: name, lower: null, upper: null }, target)),
      );
    }
  } else {
    const previous = parent.manifest.tables[table.name]?.files ?? [];
    const touched = await findTouched(
      connection,
      relationOf(table, listTableFiles(layout, parent.newBatches, table.name)),
      previous,
    );
    for (const [index, file] of previous.entries()) {
      const range = rangeOf(file)!;
      if (!touched.partitions.has(index)) {
        linkInto(parent.dir, staging, file);
        written.linked.add(file.file);
        out.push(file);
        continue;
      }
      written.rewritten[table.name]!.push(range);
      ranges.push(...(await splitRange(connection, source, range, target, 2 * target)));
    }
    for (const name of touched.newSources) {
      ranges.push(
        ...(await splitRange(connection, source, { source: name, lower: null, upper: null }, target)),
      );
    }
  }
  for (const range of ranges) {
    const file = partitionFileName(table.name, range);
    const stats = await copySelectToParquet(
      connection,
      selectForPartition(table, source, range),
      table,
      join(staging, file),
      FACT_ROW_GROUP_SIZE,
    );
    written.files[table.name]!.push(file);
    out.push({ file, ...stats, source: range.source, lower: range.lower, upper: range.upper });
  }
  return out.sort(
    (a, b) => compareText(a.source ?? '', b.source ?? '') || compareText(a.lower ?? '', b.lower ?? ''),
  );
}

/** Which of the parent's partitions the new batches' keys fall in, and which sources are new. */
async function findTouched(
  connection: DuckDBConnection,
  newRows: string,
  previous: readonly SnapshotFile[],
): Promise<{ partitions: Set<number>; newSources: string[] }> {
  const parts = previous.map((file, index) => {
    const range = rangeOf(file)!;
    const text = (value: string | null) => (value === null ? 'NULL::VARCHAR' : quotedString(value));
    return `(${index}, ${quotedString(range.source)}, ${text(range.lower)}, ${text(range.upper)})`;
  });
  const partsRelation =
    parts.length > 0
      ? `(VALUES ${parts.join(', ')}) AS p(idx, source, lower, upper)`
      : '(SELECT NULL::INTEGER AS idx, NULL::VARCHAR AS source, NULL::VARCHAR AS lower, NULL::VARCHAR AS upper WHERE false) AS p';
  const rows = await readRows<{ idx: number | null; source: string }>(
    connection,
    `WITH keys AS (SELECT DISTINCT series_key, ${SOURCE_OF_KEY} AS source FROM ${newRows})
     SELECT DISTINCT p.idx, k.source
       FROM keys k LEFT JOIN ${partsRelation}
         ON p.source = k.source AND (p.lower IS NULL OR k.series_key >= p.lower)
        AND (p.upper IS NULL OR k.series_key < p.upper)`,
  );
  const partitions = new Set<number>();
  const newSources = new Set<string>();
  for (const row of rows) {
    if (row.idx === null) newSources.add(row.source);
    else partitions.add(Number(row.idx));
  }
  return { partitions, newSources: [...newSources].sort() };
}

/** Hard-links an unchanged partition of the parent into the staged snapshot (same bytes, no copy). */
function linkInto(parentDir: string, staging: string, file: SnapshotFile): void {
  const target = join(staging, file.file);
  mkdirSync(dirname(target), { recursive: true });
  linkSync(join(parentDir, file.file), target);
}

/** Writes the reference table: the newest row of each key over every batch. */
export async function writeReferenceTable(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  staging: string,
): Promise<SnapshotFile> {
  const key = table.key.map(quotedIdentifier).join(', ');
  const select = `SELECT ${castColumns(table)} FROM ${relationOf(table, files)}
                  QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY batch_id DESC) = 1`;
  const file = `${table.name}.parquet`;
  return { file, ...(await copySelectToParquet(connection, select, table, join(staging, file))) };
}

/**
 * Facts keep every revision; a fact's chain is derived here, from all of its records ordered by
 * knowledge time (then by how specific the time is, then by arrival): a record that repeats the
 * value before it adds nothing and is left out, the rest are numbered 1, 2, 3 and each
 * supersedes the one before. So a late-arriving older vintage takes its place in the chain, and
 * ids never change (they hash content and time). One partition's keys only.
 */
function selectForPartition(table: TableDefinition, source: string, range: PartitionRange): string {
  const names = Object.keys(table.columns);
  const fingerprint = quotedIdentifier(table.fingerprint?.[0] ?? 'id');
  const order = `ORDER BY observed_at, ${methodRankSql()}, batch_id, id`;
  const plain = names
    .filter((name) => name !== 'revision_number' && name !== 'supersedes_id')
    .map(quotedIdentifier)
    .join(', ');
  const chained = names
    .map((name) =>
      name === 'revision_number'
        ? 'row_number() OVER chain AS revision_number'
        : name === 'supersedes_id'
          ? 'lag(id) OVER chain AS supersedes_id'
          : quotedIdentifier(name),
    )
    .join(', ');
  return `WITH ordered AS (
            SELECT ${plain}, ${fingerprint} IS NOT DISTINCT FROM
                     lag(${fingerprint}) OVER (PARTITION BY series_key, period ${order}) AS repeats
              FROM ${source} WHERE ${rangePredicate(range)}),
          chained AS (
            SELECT ${chained} FROM ordered WHERE NOT coalesce(repeats, false)
            WINDOW chain AS (PARTITION BY series_key, period ${order}))
          SELECT ${castColumns(table)} FROM chained`;
}

/** The table's columns in order, each cast to its type (batches written before a column existed lack it). */
function castColumns(table: TableDefinition): string {
  return Object.entries(table.columns)
    .map(([name, type]) => `CAST(${quotedIdentifier(name)} AS ${type}) AS ${quotedIdentifier(name)}`)
    .join(', ');
}

/** A table's entry: its files, their totals, and one hash over their hashes. */
export function summarise(files: SnapshotFile[]): SnapshotTable {
  return {
    rows: files.reduce((sum, f) => sum + f.rows, 0),
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    sha256: createHash('sha256')
      .update(JSON.stringify(files.map((f) => [f.file, f.sha256])))
      .digest('hex'),
    files,
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** METHOD_RANK as a SQL expression over observed_at_method. */
function methodRankSql(): string {
  const cases = Object.entries(METHOD_RANK)
    .map(([method, rank]) => `WHEN ${quotedString(method)} THEN ${rank}`)
    .join(' ');
  return `CASE observed_at_method ${cases} ELSE 0 END`;
}

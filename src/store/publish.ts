import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { type BatchRecord, listBatches, listTableFiles } from './batches.ts';
import { DERIVED_TABLES, type DerivedTable, writeDerivedTables } from './derived-tables.ts';
import { fsyncPath, renameDurably, writeFileAtomic } from './durable-fs.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import { withStoreLock } from './lock.ts';
import {
  readCurrentId,
  readManifest,
  SCHEMA_VERSION,
  type SnapshotFile,
  type SnapshotManifest,
  type SnapshotTable,
} from './manifest.ts';
import {
  DEFAULT_PARTITION_ROWS,
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
import { TABLES, type TableDefinition } from './tables.ts';
import { type Problem, verifySnapshotContent, verifySnapshotFiles } from './verify-snapshot.ts';
import { type FileStats, hashFile, orderClause } from './write-parquet.ts';

/** Options of `mmds publish`. */
export interface PublishOptions {
  now: Date;
  pipelineVersion: string;
  /** Snapshots kept besides the current one and its parent. */
  keep: number;
  /** Revisions per fact partition aimed at (MMDS_PARTITION_ROWS; default DEFAULT_PARTITION_ROWS). */
  partitionRows?: number;
}

/** The outcome of a publish. */
export interface PublishResult {
  status: 'published' | 'unchanged';
  snapshot_id: string;
  parent: string | null;
  tables: Record<string, number>;
  /** Fact partitions written by this publish and linked unchanged from the parent. */
  partitions: { written: number; linked: number };
  warnings: Problem[];
  pruned: string[];
}

/** A snapshot failed verification and was not published. */
export class PublishRefusedError extends Error {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(`snapshot refused: ${problems.length} problem(s); first: ${problems[0]?.message ?? 'unknown'}`);
    this.name = 'PublishRefusedError';
    this.problems = problems;
  }
}

/** Rows per row group of a fact partition: about one page of a series' history (see BENCHMARKS.md). */
export const FACT_ROW_GROUP_SIZE = 16_384;

/** The parent snapshot a publish can build on: its batches are a prefix of the store's. */
interface ParentSnapshot {
  dir: string;
  manifest: SnapshotManifest;
  newBatches: BatchRecord[];
}

/** What writing the tables of one snapshot did, for the derived tables and the checks. */
interface Written {
  /** Fact files written (not linked), relative to the snapshot directory, per table. */
  files: Record<string, string[]>;
  /** Ranges of the parent's partitions that were rewritten, per table. */
  rewritten: Record<string, PartitionRange[]>;
  linked: Set<string>;
}

/**
 * Makes an immutable snapshot of the store and switches `CURRENT` to it. Fact tables are
 * partitioned (partitions.ts): partitions no new batch touched are hard links to the parent's
 * files, the others are rewritten in SQL from the batches. Derived tables are computed here,
 * not when a server opens the snapshot. It verifies the staged snapshot, renames it into place
 * and only then switches `CURRENT` atomically, so a crash at any moment leaves `CURRENT` on a
 * complete snapshot. Nothing new since the current snapshot makes it a no-op.
 */
export async function publishSnapshot(
  layout: StoreLayout,
  connection: DuckDBConnection,
  options: PublishOptions,
): Promise<PublishResult> {
  return withStoreLock(layout.lockFile, async () => {
    const batches = listBatches(layout);
    if (batches.length === 0)
      throw new Error('nothing to publish: the store is empty; run mmds ingest first');
    const inputHash = createHash('sha256')
      .update(JSON.stringify([SCHEMA_VERSION, batches.map((b) => b.id)]))
      .digest('hex');
    const parentId = readCurrentId(layout);
    const parentManifest = parentId === null ? null : readManifest(layout, parentId);
    if (parentId !== null && parentManifest?.input_hash === inputHash) {
      return {
        status: 'unchanged',
        snapshot_id: parentId,
        parent: parentManifest.parent,
        tables: rowCounts(parentManifest),
        partitions: { written: 0, linked: 0 },
        warnings: [],
        pruned: [],
      };
    }
    const id = `${formatTimestamp(options.now).replace(/[-:]/g, '')}-${inputHash.slice(0, 8)}`;
    mkdirSync(layout.snapshotsDir, { recursive: true });
    const staging = join(layout.snapshotsDir, `.staging-${id}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    try {
      await execute(connection, 'SET parquet_metadata_cache = true');
      const parent =
        parentId !== null && parentManifest !== null
          ? buildsOn(snapshotDir(layout, parentId), parentManifest, batches)
          : null;
      const manifest: SnapshotManifest = {
        id,
        created_at: formatTimestamp(options.now),
        parent: parentId,
        input_hash: inputHash,
        pipeline_version: options.pipelineVersion,
        schema_version: SCHEMA_VERSION,
        batches: batches.map((b) => b.id),
        tables: {},
        derived: {},
      };
      const written: Written = { files: {}, rewritten: {}, linked: new Set() };
      const target = options.partitionRows ?? DEFAULT_PARTITION_ROWS;
      for (const table of TABLES) {
        const files =
          table.kind === 'fact'
            ? await writeFactTable(connection, layout, table, batches, parent, staging, target, written)
            : [
                await writeReferenceTable(
                  connection,
                  table,
                  listTableFiles(layout, batches, table.name),
                  staging,
                ),
              ];
        manifest.tables[table.name] = summarise(files);
      }
      await writeDerived(connection, staging, manifest, parent, written);
      writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      fsyncPath(join(staging, 'manifest.json'));
      fsyncPath(staging);
      const problems = [
        ...(await verifySnapshotFiles(staging, manifest, { linked: written.linked })),
        ...(await verifySnapshotContent(connection, staging, manifest, {
          partitions: parent ? new Set(Object.values(written.files).flat()) : undefined,
        })),
      ];
      const errors = problems.filter((p) => p.severity === 'error');
      if (errors.length > 0) throw new PublishRefusedError(errors);
      // A directory with this id can only be left by a publish of the same batches that failed
      // after its rename (CURRENT naming it would have made this publish 'unchanged'): replace it.
      rmSync(snapshotDir(layout, id), { recursive: true, force: true });
      renameDurably(staging, snapshotDir(layout, id));
      writeFileAtomic(layout.currentFile, `${id}\n`);
      const pruned = pruneSnapshots(layout, options.keep);
      return {
        status: 'published',
        snapshot_id: id,
        parent: parentId,
        tables: rowCounts(manifest),
        partitions: {
          written: Object.values(written.files).flat().length,
          linked: written.linked.size,
        },
        warnings: problems.filter((p) => p.severity === 'warning'),
        pruned,
      };
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  });
}

/**
 * The parent a publish can reuse partitions of: same schema, and every batch it was made from
 * still the first batches of the store (batches are append-only, so anything else means the
 * store was replaced). Otherwise the snapshot is written whole.
 */
function buildsOn(
  dir: string,
  manifest: SnapshotManifest,
  batches: readonly BatchRecord[],
): ParentSnapshot | null {
  if (manifest.schema_version !== SCHEMA_VERSION || !manifest.derived) return null;
  if (manifest.batches.length > batches.length) return null;
  if (manifest.batches.some((id, index) => batches[index]?.id !== id)) return null;
  return { dir, manifest, newBatches: batches.slice(manifest.batches.length) };
}

/**
 * Writes the partitions of one fact table: with a parent, only those new batches touched (and
 * sources new to the store), linking the rest; without one, every source from scratch.
 */
async function writeFactTable(
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
    const stats = await copyToFile(
      connection,
      selectForPartition(table, source, range),
      table,
      join(staging, file),
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
async function writeReferenceTable(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  staging: string,
): Promise<SnapshotFile> {
  const key = table.key.map(quotedIdentifier).join(', ');
  const select = `SELECT ${castColumns(table)} FROM ${relationOf(table, files)}
                  QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY batch_id DESC) = 1`;
  const file = `${table.name}.parquet`;
  return { file, ...(await copyToFile(connection, select, table, join(staging, file))) };
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

/** Writes a SELECT to a zstd Parquet file in table order, flushes it, and describes it. */
async function copyToFile(
  connection: DuckDBConnection,
  select: string,
  table: TableDefinition,
  file: string,
): Promise<FileStats> {
  mkdirSync(dirname(file), { recursive: true });
  const rowGroup = table.kind === 'fact' ? FACT_ROW_GROUP_SIZE : 122_880;
  const [result] = await readRows<{ Count: string | number }>(
    connection,
    `COPY (${select} ORDER BY ${orderClause(table)}) TO ${quotedString(file)}
       (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroup})`,
  );
  fsyncPath(file);
  return { rows: Number(result?.Count ?? 0), bytes: statSync(file).size, sha256: await hashFile(file) };
}

/** Writes the derived tables (derived-tables.ts) into `derived/` and lists them in the manifest. */
async function writeDerived(
  connection: DuckDBConnection,
  staging: string,
  manifest: SnapshotManifest,
  parent: ParentSnapshot | null,
  written: Written,
): Promise<void> {
  const absolute = (files: readonly string[]) => files.map((file) => join(staging, file));
  const all = Object.fromEntries(
    Object.entries(manifest.tables).map(([name, entry]) => [name, absolute(entry.files.map((f) => f.file))]),
  );
  const fileOf = (name: DerivedTable) => `derived/${name}.parquet`;
  mkdirSync(join(staging, 'derived'), { recursive: true });
  await writeDerivedTables(
    connection,
    {
      written: Object.fromEntries(
        Object.entries(written.files).map(([name, files]) => [name, absolute(files)]),
      ),
      all,
      parent: parent
        ? {
            files: Object.fromEntries(
              Object.entries(parent.manifest.derived).map(([name, entry]) => [
                name,
                join(parent.dir, entry.file),
              ]),
            ),
            rewritten: written.rewritten,
          }
        : null,
    },
    (name) => join(staging, fileOf(name)),
  );
  for (const name of DERIVED_TABLES) {
    const file = join(staging, fileOf(name));
    fsyncPath(file);
    const [count] = await readRows<{ n: number }>(
      connection,
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${quotedString(file)})`,
    );
    manifest.derived[name] = {
      file: fileOf(name),
      rows: Number(count?.n ?? 0),
      bytes: statSync(file).size,
      sha256: await hashFile(file),
    };
  }
}

/** A table's entry: its files, their totals, and one hash over their hashes. */
function summarise(files: SnapshotFile[]): SnapshotTable {
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

function rowCounts(manifest: SnapshotManifest): Record<string, number> {
  return Object.fromEntries(Object.entries(manifest.tables).map(([name, entry]) => [name, entry.rows]));
}

/**
 * Removes snapshots beyond the newest `keep`, never the current one or its parent, and any
 * staging debris a crashed publish left behind.
 */
export function pruneSnapshots(layout: StoreLayout, keep: number): string[] {
  if (!existsSync(layout.snapshotsDir)) return [];
  const current = readCurrentId(layout);
  const protectedIds = new Set([current, current ? readManifest(layout, current).parent : null]);
  const entries = readdirSync(layout.snapshotsDir);
  for (const name of entries) {
    if (name.startsWith('.staging-'))
      rmSync(join(layout.snapshotsDir, name), { recursive: true, force: true });
  }
  const ids = entries
    .filter((name) => SNAPSHOT_ID_PATTERN.test(name))
    .sort()
    .reverse();
  const removed = ids.slice(Math.max(keep, 0)).filter((id) => !protectedIds.has(id));
  for (const id of removed) {
    // Renamed out of the snapshot namespace first: a crash mid-delete leaves staging debris
    // (cleared next time), never a half-deleted snapshot that verify would report.
    const doomed = join(layout.snapshotsDir, `.staging-pruned-${id}`);
    renameSync(snapshotDir(layout, id), doomed);
    rmSync(doomed, { recursive: true, force: true });
  }
  return removed;
}

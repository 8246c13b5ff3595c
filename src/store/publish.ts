import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString } from '../db/duckdb.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { listBatches, listTableFiles } from './batches.ts';
import { fsyncPath, renameDurably, writeFileAtomic } from './durable-fs.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import { withStoreLock } from './lock.ts';
import { readCurrentId, readManifest, SCHEMA_VERSION, type SnapshotManifest } from './manifest.ts';
import { METHOD_RANK } from './revisions.ts';
import { TABLES, type TableDefinition } from './tables.ts';
import { type Problem, verifySnapshotContent, verifySnapshotFiles } from './verify-snapshot.ts';
import { copyToParquet, createScratchTable } from './write-parquet.ts';

/** Options of `mmds publish`. */
export interface PublishOptions {
  now: Date;
  pipelineVersion: string;
  /** Snapshots kept besides the current one and its parent. */
  keep: number;
}

/** The outcome of a publish. */
export interface PublishResult {
  status: 'published' | 'unchanged';
  snapshot_id: string;
  parent: string | null;
  tables: Record<string, number>;
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

/**
 * Makes an immutable snapshot of the store: one Parquet file per table, sorted by series and
 * period, and a manifest with checksums. It verifies the staged snapshot, renames it into
 * place and only then switches `CURRENT` atomically, so a crash at any moment leaves `CURRENT`
 * on a complete snapshot. Nothing new since the current snapshot makes it a no-op.
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
    const parent = readCurrentId(layout);
    if (parent !== null) {
      const current = readManifest(layout, parent);
      if (current.input_hash === inputHash) {
        return {
          status: 'unchanged',
          snapshot_id: parent,
          parent: current.parent,
          tables: rowCounts(current),
          warnings: [],
          pruned: [],
        };
      }
    }
    const id = `${formatTimestamp(options.now).replace(/[-:]/g, '')}-${inputHash.slice(0, 8)}`;
    mkdirSync(layout.snapshotsDir, { recursive: true });
    const staging = join(layout.snapshotsDir, `.staging-${id}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    try {
      const manifest: SnapshotManifest = {
        id,
        created_at: formatTimestamp(options.now),
        parent,
        input_hash: inputHash,
        pipeline_version: options.pipelineVersion,
        schema_version: SCHEMA_VERSION,
        batches: batches.map((b) => b.id),
        tables: {},
      };
      for (const table of TABLES) {
        const scratch = await createScratchTable(connection, table);
        const files = listTableFiles(layout, batches, table.name);
        if (files.length > 0) await execute(connection, selectForSnapshot(table, scratch, files));
        const file = `${table.name}.parquet`;
        manifest.tables[table.name] = {
          file,
          ...(await copyToParquet(connection, table, scratch, join(staging, file))),
        };
      }
      writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      fsyncPath(join(staging, 'manifest.json'));
      fsyncPath(staging);
      const problems = [
        ...(await verifySnapshotFiles(staging, manifest)),
        ...(await verifySnapshotContent(connection, staging, manifest)),
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
        parent,
        tables: rowCounts(manifest),
        warnings: problems.filter((p) => p.severity === 'warning'),
        pruned,
      };
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  });
}

/**
 * Facts keep every revision; reference tables keep the newest row of each key. A fact's chain
 * is derived here, from all of its records ordered by knowledge time (then by how specific the
 * time is, then by arrival): a record that repeats the value before it adds nothing and is left
 * out, the rest are numbered 1, 2, 3 and each supersedes the one before. So a late-arriving older
 * vintage takes its place in the chain, and ids never change (they hash content and time).
 */
function selectForSnapshot(table: TableDefinition, scratch: string, files: readonly string[]): string {
  const names = Object.keys(table.columns);
  const source = `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
  if (table.kind === 'fact') {
    const fingerprint = quotedIdentifier(table.fingerprint?.[0] ?? 'id');
    const order = `ORDER BY observed_at, ${methodRankSql()}, batch_id, id`;
    const plain = names
      .filter((name) => name !== 'revision_number' && name !== 'supersedes_id')
      .map(quotedIdentifier)
      .join(', ');
    const output = names
      .map((name) =>
        name === 'revision_number'
          ? `row_number() OVER chain AS revision_number`
          : name === 'supersedes_id'
            ? `lag(id) OVER chain AS supersedes_id`
            : quotedIdentifier(name),
      )
      .join(', ');
    return `INSERT INTO ${quotedIdentifier(scratch)}
            WITH ordered AS (
              SELECT ${plain}, ${fingerprint} IS NOT DISTINCT FROM
                       lag(${fingerprint}) OVER (PARTITION BY series_key, period ${order}) AS repeats
                FROM ${source})
            SELECT ${output} FROM ordered WHERE NOT coalesce(repeats, false)
            WINDOW chain AS (PARTITION BY series_key, period ${order})`;
  }
  const columns = names.map(quotedIdentifier).join(', ');
  const key = table.key.map(quotedIdentifier).join(', ');
  return `INSERT INTO ${quotedIdentifier(scratch)} SELECT ${columns} FROM ${source}
          QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY batch_id DESC) = 1`;
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

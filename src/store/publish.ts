import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedString, readRows } from '../db/duckdb.ts';
import { fsyncPath, renameDurably, writeFileAtomic } from '../lib/durable-fs.ts';
import { MmdsError } from '../lib/errors.ts';
import { type BatchRecord, listBatches, listTableFiles } from './batches.ts';
import { DERIVED_TABLES, type DerivedTable, writeDerivedTables } from './derived-tables.ts';
import { findKnowledgeAhead, KnowledgeAheadError, snapshotClock } from './knowledge-ahead.ts';
import { noticedEventsLock, type StoreLayout, snapshotDir } from './layout.ts';
import { withShortLock, withStoreLock } from './lock.ts';
import { readCurrentId, readManifest, SCHEMA_VERSION, type SnapshotManifest } from './manifest.ts';
import { DEFAULT_PARTITION_ROWS } from './partition-rows.ts';
import { pruneSnapshots } from './prune-snapshots.ts';
import type { SnapshotEventStep } from './snapshot-event-step.ts';
import { TABLES } from './tables.ts';
import { verifySnapshotFiles } from './verify-files.ts';
import { type Problem, verifySnapshotContent } from './verify-snapshot.ts';
import { hashFile } from './write-parquet.ts';
import {
  type ParentSnapshot,
  summarise,
  type Written,
  writeFactTable,
  writeReferenceTable,
} from './write-tables.ts';

/** Options of `mmds publish`. */
export interface PublishOptions {
  now: Date;
  pipelineVersion: string;
  /** Snapshots kept besides the current one and its parent. */
  keep: number;
  /** Revisions per fact partition aimed at (MMDS_PARTITION_ROWS; default DEFAULT_PARTITION_ROWS). */
  partitionRows?: number;
  /** Writes the staged snapshot's release events (events/snapshot-events.ts, writeSnapshotEvents). */
  snapshotEvents: SnapshotEventStep;
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
export class PublishRefusedError extends MmdsError {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(
      'publish_refused',
      `snapshot refused: ${problems.length} problem(s); first: ${problems[0]?.message ?? 'unknown'}`,
    );
    this.name = 'PublishRefusedError';
    this.problems = problems;
  }

  /** The problems, one line each, printed on stderr before the one-line message. */
  override details(): string {
    return this.problems.map((problem) => `  ${problem.check}: ${problem.message}\n`).join('');
  }
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
    const clock = snapshotClock(options.now, parentManifest);
    const knowledge = await findKnowledgeAhead(connection, layout, batches, clock);
    if (knowledge.batches.length > 0) throw new KnowledgeAheadError('publish', knowledge);
    // A snapshot dated before a record it holds (one published before this rule, within the
    // skew) is not "unchanged": the same batches are published again under an honest date.
    const datedAfterAll =
      parentManifest !== null && (knowledge.latest === null || parentManifest.created_at >= knowledge.latest);
    if (parentId !== null && parentManifest?.input_hash === inputHash && datedAfterAll) {
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
    // Never earlier than the parent (snapshotClock) nor than a record it holds: a knowledge time
    // within the skew allowance ahead of the clock says the clock is that much behind.
    const createdAt = laterOf(clock, knowledge.latest);
    const id = `${createdAt.replace(/[-:]/g, '')}-${inputHash.slice(0, 8)}`;
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
        created_at: createdAt,
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
        if (table.kind !== 'fact') {
          const loadedAt = batches
            .filter((batch) => batch.tables[table.name])
            .map((batch) => batch.created_at)
            .sort()
            .at(-1);
          if (loadedAt) manifest.tables[table.name]!.loaded_at = loadedAt;
        }
      }
      await writeDerived(connection, staging, manifest, parent, written);
      // The snapshot's release events (src/events): published by the same rename as its data.
      manifest.events = await options.snapshotEvents({
        layout,
        manifest,
        dir: staging,
        parent: parentManifest,
      });
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
      // Under the lock of the events noticed between snapshots: none is appended to the old one after.
      await withShortLock(noticedEventsLock(layout), () => writeFileAtomic(layout.currentFile, `${id}\n`));
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

function rowCounts(manifest: SnapshotManifest): Record<string, number> {
  return Object.fromEntries(Object.entries(manifest.tables).map(([name, entry]) => [name, entry.rows]));
}

/** The later of two `YYYY-MM-DDTHH:MM:SSZ` instants (null: the first). */
function laterOf(instant: string, other: string | null): string {
  return other !== null && other > instant ? other : instant;
}

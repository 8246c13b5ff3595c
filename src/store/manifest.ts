import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import type { FileStats } from './write-parquet.ts';

/**
 * Bumped when the tables' columns or the snapshot's file layout change incompatibly. 4: the
 * cot_report_columns table (a snapshot of schema 3 lacks it; a publish writes it whole).
 */
export const SCHEMA_VERSION = 4;

/**
 * One Parquet file of a snapshot. A fact table is split into partitions: one source's series
 * keys from `lower` (inclusive; null: the source's first key) to `upper` (exclusive; null: past
 * its last key), so that a publish rewrites only the partitions new batches touched.
 */
export interface SnapshotFile extends FileStats {
  /** Relative to the snapshot directory. */
  file: string;
  source?: string;
  lower?: string | null;
  upper?: string | null;
}

/** A table of a snapshot: its files, their total rows and bytes, and one hash over their hashes. */
export interface SnapshotTable extends FileStats {
  files: SnapshotFile[];
  /**
   * A reference table (a list such as currencies or venues): when the newest batch that holds it
   * was ingested, the list's freshness in /status. Absent on fact tables and before it was kept.
   */
  loaded_at?: string;
}

/** `manifest.json` of a snapshot: what it holds and how to check it. */
export interface SnapshotManifest {
  id: string;
  created_at: string;
  parent: string | null;
  /** Hash of the batches the snapshot was made from; equal hash means nothing new. */
  input_hash: string;
  pipeline_version: string;
  schema_version: number;
  batches: string[];
  tables: Record<string, SnapshotTable>;
  /** Tables computed from the facts at publish (the "latest" lookups), one file each. */
  derived: Record<string, SnapshotFile>;
  /**
   * The snapshot's release events (src/events/event-file.ts), one JSON record a line; `rows` is
   * their number. Absent: a snapshot published before the event log, which holds no events.
   */
  events?: SnapshotFile;
}

/** Every file a manifest lists, tables first, then derived tables. */
export function manifestFiles(manifest: SnapshotManifest): SnapshotFile[] {
  return [
    ...Object.values(manifest.tables).flatMap((table) => table.files),
    ...Object.values(manifest.derived ?? {}),
    ...(manifest.events ? [manifest.events] : []),
  ];
}

/** Reads the id in `CURRENT`, or null before the first publish. */
export function readCurrentId(layout: StoreLayout): string | null {
  if (!existsSync(layout.currentFile)) return null;
  const id = readFileSync(layout.currentFile, 'utf8').trim();
  if (!SNAPSHOT_ID_PATTERN.test(id)) throw new Error(`CURRENT holds no snapshot id (${layout.currentFile})`);
  return id;
}

/** Reads a snapshot's manifest. */
export function readManifest(layout: StoreLayout, snapshotId: string): SnapshotManifest {
  if (!SNAPSHOT_ID_PATTERN.test(snapshotId)) throw new Error(`not a snapshot id: ${snapshotId}`);
  const manifest = JSON.parse(
    readFileSync(join(snapshotDir(layout, snapshotId), 'manifest.json'), 'utf8'),
  ) as SnapshotManifest;
  // Before schema 3 a table was one file and nothing was derived at publish.
  for (const [name, entry] of Object.entries(manifest.tables ?? {})) {
    const legacy = entry as SnapshotTable & { file?: string };
    if (!Array.isArray(legacy.files) && typeof legacy.file === 'string') {
      manifest.tables[name] = {
        ...legacy,
        files: [{ file: legacy.file, rows: legacy.rows, bytes: legacy.bytes, sha256: legacy.sha256 }],
      };
    }
  }
  manifest.derived ??= {};
  return manifest;
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import type { FileStats } from './write-parquet.ts';

/** Bumped when the tables' columns change incompatibly. */
export const SCHEMA_VERSION = 2;

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
  tables: Record<string, FileStats & { file: string }>;
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
  return JSON.parse(
    readFileSync(join(snapshotDir(layout, snapshotId), 'manifest.json'), 'utf8'),
  ) as SnapshotManifest;
}

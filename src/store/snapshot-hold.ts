import { randomUUID } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MmdsError } from '../lib/errors.ts';
import { type StoreLayout, snapshotDir } from './layout.ts';
import type { SnapshotManifest } from './manifest.ts';

/** A snapshot's file was gone when a hold was taken on it: the snapshot was pruned (or is damaged). */
export class SnapshotGoneError extends MmdsError {
  readonly snapshotId: string;
  constructor(snapshotId: string) {
    super('snapshot_gone', `snapshot ${snapshotId} is no longer in the store`);
    this.name = 'SnapshotGoneError';
    this.snapshotId = snapshotId;
  }
}

/** The held files of a snapshot's tables, readable until release() whatever prune does meanwhile. */
export interface SnapshotHold {
  /** The held paths of a table's files, in manifest order. */
  files(table: string): string[];
  /** Removes the hold (idempotent). */
  release(): void;
}

/** Holds older than this are debris of a crashed process: a hold lasts one diff. */
const STALE_HOLD_MS = 60 * 60 * 1000;

/**
 * Holds the files of some tables of a snapshot that is not in service (the change feed's `since`),
 * which prune may remove at any moment (it protects only the current snapshot and its parent). A
 * hold is a hard link to each file in a directory of its own (`snapshots/.holds/`, a name prune
 * and verify pass over): prune removes the snapshot's names for the files, the data stays until
 * the hold is released. The store's filesystem is assumed to allow hard links; where it does not,
 * the files are copied. Throws SnapshotGoneError when a file is already gone.
 */
export function holdSnapshotFiles(
  layout: StoreLayout,
  manifest: SnapshotManifest,
  tables: readonly string[],
): SnapshotHold {
  const holdsDir = join(layout.snapshotsDir, '.holds');
  removeStaleHolds(holdsDir);
  const dir = join(holdsDir, `${process.pid}-${randomUUID()}`);
  mkdirSync(dir, { recursive: true });
  const release = () => rmSync(dir, { recursive: true, force: true });
  const held = new Map<string, string[]>();
  let n = 0;
  try {
    for (const table of tables) {
      const paths: string[] = [];
      for (const { file } of manifest.tables[table]?.files ?? []) {
        const source = join(snapshotDir(layout, manifest.id), file);
        const target = join(dir, `${n++}.parquet`);
        linkOrCopy(source, target, manifest.id);
        paths.push(target);
      }
      held.set(table, paths);
    }
  } catch (error) {
    release();
    throw error;
  }
  return { files: (table) => held.get(table) ?? [], release };
}

function linkOrCopy(source: string, target: string, snapshotId: string): void {
  try {
    try {
      linkSync(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
      copyFileSync(source, target);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SnapshotGoneError(snapshotId);
    throw error;
  }
}

/** Removes the holds a crashed process left behind. */
function removeStaleHolds(holdsDir: string): void {
  let names: string[];
  try {
    names = readdirSync(holdsDir);
  } catch {
    return;
  }
  const cutoff = Date.now() - STALE_HOLD_MS;
  for (const name of names) {
    const path = join(holdsDir, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
  }
}

/**
 * The one way to open the snapshots a process serves, for `mmds serve` (each worker too) and
 * `mmds mcp`: every file checked against the manifest's sha256 before DuckDB reads it, DuckDB's
 * file access and configuration locked, and CURRENT followed (snapshot-manager.ts) so that a
 * publish is seen at once and a damaged snapshot is refused while the previous one serves.
 */
import { openSnapshotDb } from '../query/snapshot-db.ts';
import type { SnapshotDb } from '../query/snapshot-types.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import { VerifiedFiles, verifySnapshotFiles } from '../store/verify-files.ts';
import { createSnapshotManager, type SnapshotManager } from './snapshot-manager.ts';

/** How a served snapshot's DuckDB is sized. */
export interface ServedDbSettings {
  /** Connections of the pool: requests answered side by side. */
  poolSize: number;
  /** DuckDB's memory limit (MMDS_MEMORY_LIMIT). */
  memoryLimit?: string;
  /** Bytes of decoded revision histories kept per snapshot (MMDS_REVISION_CACHE_MB). */
  revisionCacheBytes?: number;
}

/** Options of openServedSnapshots. */
export interface ServedSnapshotsOptions {
  layout: StoreLayout;
  db: ServedDbSettings;
  log: (entry: Record<string, unknown>) => void;
  /** How often CURRENT is checked, in ms (0: only when told to refresh, and no file watch). */
  pollMs: number;
}

/** Follows CURRENT, opening each snapshot as openServedSnapshot does. */
export function openServedSnapshots(options: ServedSnapshotsOptions): Promise<SnapshotManager> {
  // Digests of the files this process hashed: a new snapshot shares most of them (hard links).
  const verified = new VerifiedFiles();
  return createSnapshotManager({
    layout: options.layout,
    open: (id) => openServedSnapshot(options.layout, id, options.db, verified),
    log: options.log,
    pollMs: options.pollMs,
    // pollMs 0 (tests) switches only when told; otherwise a publish is seen at once.
    watch: options.pollMs > 0,
  });
}

/**
 * Opens one snapshot for serving. DuckDB reads Parquet footers only when it opens the views: a
 * damaged data page would be served (wrong values, or an error per request). So the checksums come
 * first, as `mmds verify` checks them, and DuckDB never reads a damaged file; they stand for its
 * read of every file at open. Throws, naming the problem, on a damaged file or an unlocked DuckDB.
 */
export async function openServedSnapshot(
  layout: StoreLayout,
  snapshotId: string,
  settings: ServedDbSettings,
  verified: VerifiedFiles = new VerifiedFiles(),
): Promise<SnapshotDb> {
  const [damaged] = await verifySnapshotFiles(
    snapshotDir(layout, snapshotId),
    readManifest(layout, snapshotId),
    { verified },
  );
  if (damaged) throw new Error(damaged.message);
  const db = await openSnapshotDb(layout, snapshotId, {
    poolSize: settings.poolSize,
    queryTimeoutMs: 10_000,
    ...(settings.memoryLimit === undefined ? {} : { memoryLimit: settings.memoryLimit }),
    ...(settings.revisionCacheBytes === undefined ? {} : { revisionCacheBytes: settings.revisionCacheBytes }),
    touchFiles: false,
  });
  const security = await db.readSecuritySettings();
  if (security.enable_external_access || !security.lock_configuration) {
    await db.close();
    throw new Error('DuckDB file access or configuration is not locked');
  }
  return db;
}

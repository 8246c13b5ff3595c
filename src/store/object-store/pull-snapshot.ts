import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mapConcurrent } from '../../lib/map-concurrent.ts';
import { fsyncPath, renameDurably, writeFileAtomic } from '../durable-fs.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from '../layout.ts';
import { withStoreLock } from '../lock.ts';
import { manifestFiles, readCurrentId, readManifest, type SnapshotManifest } from '../manifest.ts';
import { pruneSnapshots } from '../publish.ts';
import { type LogEntry, objectKey, readLogHead, sha256Of } from './bucket-log.ts';
import type { ObjectStore } from './object-store.ts';

/** Objects downloaded at once. */
const TRANSFERS = 4;

/** An object (or manifest) in the bucket does not have the bytes its name or the log promise. */
export class DamagedObjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DamagedObjectError';
  }
}

/** The outcome of bringing a data directory up to the bucket's log. */
export interface PullResult {
  status: 'pulled' | 'current' | 'empty';
  /** The log entry the data directory is now on (null: the log is empty). */
  seq: number | null;
  snapshot_id: string | null;
  /** Objects downloaded, and the other files (links to a local file with the same bytes). */
  downloaded: { files: number; bytes: number };
  linked: number;
}

/**
 * Makes the log's newest snapshot the data directory's current one, the way a local publish
 * would: a complete, verified `snapshots/<id>/` renamed into place, then `CURRENT` switched
 * atomically, so `mmds serve` on that directory switches to it with its usual leases. Files whose
 * bytes a local snapshot already holds (same SHA-256 in its manifest) are hard links, so a
 * follower downloads only what an incremental publish wrote. Every download is checked against
 * the manifest's SHA-256 and size, and the manifest against the log entry: a damaged or partial
 * object is refused (DamagedObjectError), nothing is switched and the staging is removed, so the
 * directory stays on its previous snapshot and a later call tries again.
 */
export async function pullLatestSnapshot(
  store: ObjectStore,
  layout: StoreLayout,
  options: { keep: number; head?: LogEntry | null },
): Promise<PullResult> {
  // The caller may have just read the log's end itself (follow-store.ts keeps it for /status).
  const head = options.head === undefined ? await readLogHead(store) : options.head;
  const none = { downloaded: { files: 0, bytes: 0 }, linked: 0 };
  if (head === null) return { status: 'empty', seq: null, snapshot_id: null, ...none };
  if (readCurrentId(layout) === head.snapshot_id)
    return { status: 'current', seq: head.seq, snapshot_id: head.snapshot_id, ...none };
  // The data directory's lock, as a publish takes it: one writer of snapshots/ and CURRENT.
  return withStoreLock(layout.lockFile, async () => {
    const result = await pullSnapshot(store, layout, head);
    pruneSnapshots(layout, options.keep);
    return result;
  });
}

/** Downloads, verifies and installs the snapshot of one log entry (see pullLatestSnapshot). */
async function pullSnapshot(store: ObjectStore, layout: StoreLayout, entry: LogEntry): Promise<PullResult> {
  const manifestBytes = await store.get(entry.manifest);
  if (manifestBytes === null) throw new DamagedObjectError(`${store.url}/${entry.manifest} is missing`);
  if (sha256Of(manifestBytes) !== entry.manifest_sha256)
    throw new DamagedObjectError(
      `${store.url}/${entry.manifest} does not match log entry ${entry.seq} (sha256 ${entry.manifest_sha256})`,
    );
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as SnapshotManifest;
  if (manifest.id !== entry.snapshot_id || !SNAPSHOT_ID_PATTERN.test(manifest.id))
    throw new DamagedObjectError(
      `${store.url}/${entry.manifest} is not the manifest of snapshot ${entry.snapshot_id}`,
    );
  const local = localFilesBySha(layout);
  const staging = join(layout.snapshotsDir, `.staging-pull-${manifest.id}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const downloaded = { files: 0, bytes: 0 };
  let linked = 0;
  try {
    const files = manifestFiles(manifest);
    // Each object the data directory lacks is downloaded once, several at a time, straight to
    // disk, and checked as it arrives; then every file is a link to a local copy.
    const lacking = [
      ...new Map(files.filter((f) => !local.has(f.sha256)).map((f) => [f.sha256, f])).values(),
    ];
    const downloads = join(staging, '.objects');
    mkdirSync(downloads);
    await mapConcurrent(lacking, TRANSFERS, async (file) => {
      const target = join(downloads, file.sha256);
      const received = await store.getToFile(objectKey(file.sha256), target);
      if (received === null)
        throw new DamagedObjectError(`${store.url}/${objectKey(file.sha256)} is missing`);
      if (received.sha256 !== file.sha256 || received.bytes !== file.bytes)
        throw new DamagedObjectError(
          `${store.url}/${objectKey(file.sha256)} (${file.file} of snapshot ${manifest.id}) is damaged: ` +
            `${received.bytes} bytes with sha256 ${received.sha256}, the manifest says ${file.bytes} bytes`,
        );
      fsyncPath(target);
      downloaded.files++;
      downloaded.bytes += received.bytes;
    });
    for (const file of files) {
      const target = join(staging, file.file);
      mkdirSync(dirname(target), { recursive: true });
      linkSync(local.get(file.sha256) ?? join(downloads, file.sha256), target);
    }
    linked = files.length - downloaded.files;
    rmSync(downloads, { recursive: true });
    writeFileSync(join(staging, 'manifest.json'), manifestBytes);
    fsyncPath(join(staging, 'manifest.json'));
    fsyncPath(staging);
    rmSync(snapshotDir(layout, manifest.id), { recursive: true, force: true });
    renameDurably(staging, snapshotDir(layout, manifest.id));
    writeFileAtomic(layout.currentFile, `${manifest.id}\n`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { status: 'pulled', seq: entry.seq, snapshot_id: manifest.id, downloaded, linked };
}

/**
 * Local files by SHA-256, from the manifests of the snapshots in the data directory (verified
 * when they were pulled or published; the server verifies again before it serves them).
 */
function localFilesBySha(layout: StoreLayout): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(layout.snapshotsDir)) return files;
  for (const id of readdirSync(layout.snapshotsDir).filter((name) => SNAPSHOT_ID_PATTERN.test(name))) {
    let manifest: SnapshotManifest;
    try {
      manifest = readManifest(layout, id);
    } catch {
      continue;
    }
    for (const file of manifestFiles(manifest))
      if (!files.has(file.sha256)) files.set(file.sha256, join(snapshotDir(layout, id), file.file));
  }
  return files;
}

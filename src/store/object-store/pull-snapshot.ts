import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fsyncPath, renameDurably, writeFileAtomic } from '../../lib/durable-fs.ts';
import { MmdsError } from '../../lib/errors.ts';
import { mapConcurrent } from '../../lib/map-concurrent.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from '../layout.ts';
import { withStoreLock } from '../lock.ts';
import { manifestFiles, readCurrentId, readManifest, type SnapshotManifest } from '../manifest.ts';
import { pruneSnapshots } from '../prune-snapshots.ts';
import {
  type LogEnd,
  type LogEntry,
  objectKey,
  readLogEnd,
  sha256Of,
  tryReadLogEntry,
} from './bucket-log.ts';
import type { ObjectStore } from './object-store.ts';

/** Objects downloaded at once. */
const TRANSFERS = 4;

/** An object (or manifest) in the bucket does not have the bytes its name or the log promise. */
export class DamagedObjectError extends MmdsError {
  /** When no commit could be pulled: every one passed over, newest first. */
  readonly skipped: readonly SkippedCommit[];

  constructor(message: string, skipped: readonly SkippedCommit[] = []) {
    super('bucket_object_damaged', message);
    this.name = 'DamagedObjectError';
    this.skipped = skipped;
  }
}

/** A commit newer than the one a data directory is on that could not be pulled, and why. */
export interface SkippedCommit {
  seq: number;
  /** Null when the log entry itself is unreadable. */
  snapshot_id: string | null;
  message: string;
}

/** The outcome of bringing a data directory up to the bucket's log. */
export interface PullResult {
  status: 'pulled' | 'current' | 'empty';
  /** The log entry the data directory is now on (null: the log is empty, or no entry read is). */
  seq: number | null;
  snapshot_id: string | null;
  /** Objects downloaded, and the other files (links to a local file with the same bytes). */
  downloaded: { files: number; bytes: number };
  linked: number;
  /** The newer commits passed over (damaged objects, unreadable log entries), newest first. */
  skipped: SkippedCommit[];
  /** The readable log entries read on the way, newest first (which seq each snapshot is). */
  entries: LogEntry[];
}

/** Commits tried, from the log's end back, before a pull gives up on finding an intact one. */
const WALK_LIMIT = 32;

/**
 * Makes the log's newest intact snapshot the data directory's current one, the way a local
 * publish would: a complete, verified `snapshots/<id>/` renamed into place, then `CURRENT`
 * switched atomically, so `mmds serve` on that directory switches to it with its usual leases.
 * Files whose bytes a local snapshot already holds (same SHA-256 in its manifest) are hard links,
 * so a follower downloads only what an incremental publish wrote. Every download is checked
 * against the manifest's SHA-256 and size, and the manifest against the log entry: a damaged or
 * partial object refuses that commit (nothing switched, the staging removed) and the commit
 * before it is tried, down to the one the directory is on, so an empty disk starts from the
 * newest intact commit and a damaged head never leaves a follower without a snapshot. The
 * commits passed over are in `skipped`; the next call tries them again (a repaired object is
 * picked up). Nothing intact within WALK_LIMIT commits: DamagedObjectError of the newest.
 */
export async function pullLatestSnapshot(
  store: ObjectStore,
  layout: StoreLayout,
  options: { keep: number; end?: LogEnd },
): Promise<PullResult> {
  // The caller may have just read the log's end itself (follow-store.ts keeps it for /status).
  const end = options.end ?? (await readLogEnd(store));
  const none = { downloaded: { files: 0, bytes: 0 }, linked: 0 };
  const skipped: SkippedCommit[] = end.unreadable.map(({ seq, message }) => ({
    seq,
    snapshot_id: null,
    message,
  }));
  const entries: LogEntry[] = [];
  const local = readCurrentId(layout);
  let entry = end.entry;
  for (let tried = 0; entry !== null && tried < WALK_LIMIT; tried++) {
    entries.push(entry);
    if (entry.snapshot_id === local)
      return { status: 'current', seq: entry.seq, snapshot_id: local, ...none, skipped, entries };
    try {
      const pulled = await pullEntry(store, layout, entry, options.keep);
      return { ...pulled, skipped, entries };
    } catch (error) {
      if (!(error instanceof DamagedObjectError)) throw error;
      skipped.push({ seq: entry.seq, snapshot_id: entry.snapshot_id, message: error.message });
    }
    entry = await readEntryBefore(store, entry.seq, skipped);
    // Never back past the snapshot the directory holds (one published here, not in the log).
    if (entry !== null && local !== null && entry.snapshot_id.slice(0, 16) < local.slice(0, 16)) break;
  }
  if (skipped.length > 0) throw new DamagedObjectError(skipped[0]!.message, skipped);
  return { status: 'empty', seq: null, snapshot_id: null, ...none, skipped, entries };
}

/** The readable log entry before `seq`, noting the unreadable ones passed (null: none left). */
async function readEntryBefore(
  store: ObjectStore,
  seq: number,
  skipped: SkippedCommit[],
): Promise<LogEntry | null> {
  for (let before = seq - 1; before >= 1 && skipped.length < WALK_LIMIT; before--) {
    const read = await tryReadLogEntry(store, before);
    if ('entry' in read) return read.entry;
    skipped.push({ seq: before, snapshot_id: null, message: read.message });
  }
  return null;
}

/** Pulls one commit under the data directory's lock, as a publish takes it, then prunes. */
async function pullEntry(
  store: ObjectStore,
  layout: StoreLayout,
  entry: LogEntry,
  keep: number,
): Promise<Omit<PullResult, 'skipped' | 'entries'>> {
  // One writer of snapshots/ and CURRENT.
  return withStoreLock(layout.lockFile, async () => {
    const result = await pullSnapshot(store, layout, entry);
    pruneSnapshots(layout, keep);
    return result;
  });
}

/** Downloads, verifies and installs the snapshot of one log entry (see pullLatestSnapshot). */
async function pullSnapshot(
  store: ObjectStore,
  layout: StoreLayout,
  entry: LogEntry,
): Promise<Omit<PullResult, 'skipped' | 'entries'>> {
  const manifestBytes = await store.get(entry.manifest);
  if (manifestBytes === null) throw new DamagedObjectError(`${store.url}/${entry.manifest} is missing`);
  if (sha256Of(manifestBytes) !== entry.manifest_sha256)
    throw new DamagedObjectError(
      `${store.url}/${entry.manifest} does not match log entry ${entry.seq} (sha256 ${entry.manifest_sha256})`,
    );
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as SnapshotManifest;
  } catch {
    throw new DamagedObjectError(`${store.url}/${entry.manifest} is not JSON`);
  }
  if (manifest?.id !== entry.snapshot_id || !SNAPSHOT_ID_PATTERN.test(manifest.id))
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

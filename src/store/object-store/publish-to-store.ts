import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MmdsError } from '../../lib/errors.ts';
import { mapConcurrent } from '../../lib/map-concurrent.ts';
import { formatTimestamp } from '../../lib/zoned-time.ts';
import { type StoreLayout, snapshotDir } from '../layout.ts';
import { manifestFiles } from '../manifest.ts';
import {
  CURRENT_KEY,
  type LogEnd,
  type LogEntry,
  logKey,
  manifestKey,
  objectKey,
  sha256Of,
} from './bucket-log.ts';
import type { ObjectStore } from './object-store.ts';

/** Objects uploaded (or looked up) at once. */
const TRANSFERS = 8;

/** The outcome of putting a local snapshot into a bucket. */
export interface StorePublishResult {
  /** committed: this call created the log entry; already: the log's newest entry names it. */
  status: 'committed' | 'already';
  seq: number;
  snapshot_id: string;
  /** Files uploaded now, and files whose content the bucket already held. */
  uploaded: { files: number; bytes: number };
  skipped: number;
}

/** Another publisher created the log entry first; nothing of this publish is current. */
export class LostCommitError extends MmdsError {
  readonly seq: number;

  constructor(store: ObjectStore, seq: number, winner: string | null) {
    super(
      'lost_commit',
      `another publisher committed ${store.url}/${logKey(seq)} first` +
        `${winner ? ` (snapshot ${winner})` : ''}; this snapshot was not committed, run mmds publish --to again`,
    );
    this.name = 'LostCommitError';
    this.seq = seq;
  }
}

/**
 * Puts a local snapshot into the bucket and commits it after `base`, the log's end when this
 * publish started (readLogEnd): uploads each file the bucket does not hold yet
 * as objects/<sha256> (the same bytes in two snapshots are one object, so an incremental publish
 * uploads only its new partitions), then the manifest, then creates the log entry after the
 * highest one with `If-None-Match: *` (an unreadable entry is passed over, never overwritten).
 * Someone else created it meanwhile: LostCommitError. CURRENT is written last, as a hint. A crash at any point leaves only unreferenced objects.
 */
export async function publishToStore(
  store: ObjectStore,
  layout: StoreLayout,
  snapshotId: string,
  base: LogEnd,
  now: Date,
): Promise<StorePublishResult> {
  const dir = snapshotDir(layout, snapshotId);
  const manifestBytes = readFileSync(join(dir, 'manifest.json'));
  const files = manifestFiles(JSON.parse(manifestBytes.toString('utf8')));
  const newest = base.entry;
  if (newest?.snapshot_id === snapshotId)
    return {
      status: 'already',
      seq: newest.seq,
      snapshot_id: snapshotId,
      uploaded: { files: 0, bytes: 0 },
      skipped: files.length,
    };
  const uploaded = { files: 0, bytes: 0 };
  let skipped = 0;
  const distinct = [...new Map(files.map((file) => [file.sha256, file])).values()];
  await mapConcurrent(distinct, TRANSFERS, async (file) => {
    const existing = await store.head(objectKey(file.sha256));
    // Same name, same size: the same bytes (names are hashes); a short object (an interrupted
    // upload on a server without atomic PUT) is uploaded again.
    if (existing?.size === file.bytes) {
      skipped++;
      return;
    }
    await store.putFile(objectKey(file.sha256), join(dir, file.file));
    uploaded.files++;
    uploaded.bytes += file.bytes;
  });
  const manifestSha = sha256Of(manifestBytes);
  await store.put(manifestKey(manifestSha), manifestBytes);
  const seq = base.seq + 1;
  const entry: LogEntry = {
    seq,
    snapshot_id: snapshotId,
    previous: newest?.snapshot_id ?? null,
    manifest: manifestKey(manifestSha),
    manifest_sha256: manifestSha,
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.bytes, 0),
    committed_at: formatTimestamp(now),
  };
  if (!(await store.putIfAbsent(logKey(seq), `${JSON.stringify(entry, null, 2)}\n`))) {
    const winner = await store.get(logKey(seq)).catch(() => null);
    let winnerId: string | null = null;
    try {
      winnerId = winner ? (JSON.parse(winner.toString('utf8')) as LogEntry).snapshot_id : null;
    } catch {}
    throw new LostCommitError(store, seq, winnerId);
  }
  await store.put(CURRENT_KEY, `${seq} ${snapshotId}\n`);
  return { status: 'committed', seq, snapshot_id: snapshotId, uploaded, skipped };
}

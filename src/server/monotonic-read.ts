import { ApiError, unavailable } from '../contract/errors.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import { SNAPSHOT_ID_PATTERN } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import type { SnapshotManager } from './snapshot-manager.ts';

/** The request header a client echoes to never be answered from an older snapshot. */
export const SNAPSHOT_HEADER = 'x-snapshot-id';

/** Seconds a 503 of a snapshot this instance does not serve yet tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

/** How a request waits for a snapshot newer than the one in service (HandlerDeps.snapshotWait). */
export interface SnapshotWait {
  /** The longest a request waits (MMDS_SNAPSHOT_WAIT_MS). */
  ms: number;
  /**
   * Whether a snapshot this instance does not serve is on its way here: in the data directory
   * already (published, not switched to yet) or, for `mmds serve --from`, committed in the
   * bucket's log after the entry this instance is on.
   */
  isAhead: (snapshotId: string) => Promise<boolean>;
}

/**
 * Monotonic reads across instances (docs/operations.md "Monotonic reads"): the snapshot in
 * service once it is at least the one the request names, in the `X-Snapshot-Id` header (the id a
 * client last saw) or in its query (`since` of /changes, the snapshot of an event id in `after`).
 * A named snapshot newer than the one in service that is on its way here is waited for, at most
 * `wait.ms`, then a 503 with Retry-After (another instance, or this one a moment later, has it).
 * One that is not (no snapshot of this store, or pruned) is a 400 in the header; in the query the
 * endpoint's own rules answer it. A malformed header is a 400: a client that sends one relies on it.
 */
export async function snapshotForRequest(
  request: Request,
  named: ReadonlyArray<string | null>,
  snapshots: SnapshotManager,
  wait: SnapshotWait,
): Promise<SnapshotDb> {
  const header = request.headers.get(SNAPSHOT_HEADER)?.trim() || null;
  if (header !== null && !SNAPSHOT_ID_PATTERN.test(header))
    throw new ApiError(
      'invalid_parameter',
      'invalid header "X-Snapshot-Id": expected a snapshot id as the API sends it (e.g. 20260413T160500Z-0d5a3ff3)',
    );
  let db = snapshots.current();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  const candidates = [header, ...named.filter((id) => id !== null && SNAPSHOT_ID_PATTERN.test(id))];
  for (const required of candidates) {
    if (required === null || servesAtLeast(db, required)) continue;
    if (!(await wait.isAhead(required))) {
      if (required === header)
        throw new ApiError(
          'invalid_parameter',
          `invalid header "X-Snapshot-Id": ${required} is not a snapshot of this service (send back an X-Snapshot-Id it sent)`,
        );
      continue;
    }
    db = await switchedTo(snapshots, required, wait.ms);
  }
  return db;
}

/**
 * Whether `db` is `required` or newer. Snapshot ids begin with their creation time (UTC, to the
 * second, never earlier than the parent's: publish.ts), so an id of an earlier second is older and
 * one of a later second newer; in the same second, `required` is older only if it is an ancestor
 * of `db` (read through the manifests this instance holds).
 */
export function servesAtLeast(db: SnapshotDb, required: string): boolean {
  if (required === db.id) return true;
  const [ours, theirs] = [db.id.slice(0, 16), required.slice(0, 16)];
  if (theirs !== ours) return theirs < ours;
  let parent = db.manifest.parent;
  for (let steps = 0; parent !== null && steps < 100; steps++) {
    if (parent === required) return true;
    if (parent.slice(0, 16) !== ours) return false;
    try {
      parent = readManifest(db.layout, parent).parent;
    } catch {
      return false;
    }
  }
  return false;
}

/** The snapshot in service after the switch that reaches `required`, waiting at most `waitMs`. */
async function switchedTo(snapshots: SnapshotManager, required: string, waitMs: number): Promise<SnapshotDb> {
  const now = snapshots.current();
  if (now && servesAtLeast(now, required)) return now;
  const newer = await new Promise<SnapshotDb | null>((resolve) => {
    const done = (found: SnapshotDb | null) => {
      clearTimeout(timer);
      stop();
      resolve(found);
    };
    const stop = snapshots.onSwitch((next) => {
      if (servesAtLeast(next, required)) done(next);
    });
    const timer = setTimeout(() => done(null), waitMs);
    // CURRENT may name it already (a switch the watch has not reported yet).
    void snapshots.refresh();
  });
  if (newer) return newer;
  throw unavailable(
    `this instance serves snapshot ${snapshots.current()?.id ?? 'none'}, older than ${required}; ` +
      `retry in ${RETRY_AFTER_SECONDS} s: the newer snapshot is on its way here`,
    RETRY_AFTER_SECONDS,
  );
}

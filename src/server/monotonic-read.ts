import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, unavailable } from '../contract/errors.ts';
import type { RequestParams } from '../contract/parse-request.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import { SNAPSHOT_ID_PATTERN } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import type { SnapshotArrival } from '../store/object-store/follow-store.ts';
import { isSnapshotOfStore } from './snapshot-lineage.ts';
import type { SnapshotManager } from './snapshot-manager.ts';

/** The request header a client echoes to never be answered from an older snapshot. */
export const SNAPSHOT_HEADER = 'x-snapshot-id';

/**
 * Whether a node:http request names a snapshot other than `snapshot` in X-Snapshot-Id: the fast
 * paths then leave it to the general path, which keeps reads monotonic (snapshotForRequest).
 */
export function namesOtherSnapshot(headers: IncomingHttpHeaders, snapshot: string | null): boolean {
  const named = headers[SNAPSHOT_HEADER];
  return named !== undefined && named !== snapshot;
}

/** Seconds a 503 of a snapshot this instance does not serve yet tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

/** Seconds a 503 of a damaged snapshot tells the client to wait: a repair takes an operator. */
const DAMAGED_RETRY_AFTER_SECONDS = 5;

/** How a request waits for a snapshot newer than the one in service (HandlerDeps.snapshotWait). */
export interface SnapshotWait {
  /** The longest a request waits (MMDS_SNAPSHOT_WAIT_MS). */
  ms: number;
  /**
   * Whether a snapshot this instance does not serve is on its way here (in the data directory
   * already, not switched to yet; or, for `mmds serve --from`, committed in the bucket's log
   * after the entry this instance is on), damaged (refused here, or its pull failed), or unknown.
   */
  arrivalOf: (snapshotId: string) => Promise<SnapshotArrival>;
  /** Calls `listener` when a snapshot is found damaged; returns the function that stops it. */
  onDamaged: (listener: (snapshotId: string, reason: string) => void) => () => void;
}

/**
 * Monotonic reads (docs/operations.md "Monotonic reads"): the snapshot in service once it is at
 * least the one the request names, in the `X-Snapshot-Id` header (the id a client last saw) or in
 * its query (`since` of /changes, the snapshot of an event id in `after`). A named snapshot newer
 * than the one in service that is on its way here is waited for, at most `wait.ms`, then a 503
 * with Retry-After (another instance, or this one a moment later, has it); one known damaged is a
 * 503 at once that says so. A header naming no snapshot of this store (newer and not committed,
 * or older and not of its lineage: snapshot-lineage.ts) is a 400; in the query the endpoint's own
 * rules answer it. A malformed header is a 400: a client that sends one relies on it.
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
    if (required === null) continue;
    if (servesAtLeast(db, required)) {
      if (required === header && !isSnapshotOfStore(db, required)) throw unknownHeader(required);
      continue;
    }
    const arrival = await wait.arrivalOf(required);
    if (arrival.state === 'damaged') throw damaged(db, required, arrival.reason);
    if (arrival.state === 'unknown') {
      if (required === header) throw unknownHeader(required);
      continue;
    }
    db = await switchedTo(snapshots, required, wait);
  }
  return db;
}

function unknownHeader(id: string): ApiError {
  return new ApiError(
    'invalid_parameter',
    `invalid header "X-Snapshot-Id": ${id} is not a snapshot of this service (send back an X-Snapshot-Id it sent)`,
  );
}

function damaged(db: SnapshotDb | null, required: string, reason: string): ApiError {
  return unavailable(
    `this instance serves snapshot ${db?.id ?? 'none'}, older than ${required}, and cannot switch to it: ` +
      `${reason}; retry in ${DAMAGED_RETRY_AFTER_SECONDS} s (another instance may serve it)`,
    DAMAGED_RETRY_AFTER_SECONDS,
  );
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

/**
 * The snapshot in service after the switch that reaches `required`, waiting at most `wait.ms`;
 * a refusal of `required` meanwhile ends the wait at once.
 */
async function switchedTo(
  snapshots: SnapshotManager,
  required: string,
  wait: SnapshotWait,
): Promise<SnapshotDb> {
  const now = snapshots.current();
  if (now && servesAtLeast(now, required)) return now;
  const outcome = await new Promise<SnapshotDb | { reason: string } | null>((resolve) => {
    const done = (found: SnapshotDb | { reason: string } | null) => {
      clearTimeout(timer);
      stopSwitch();
      stopDamage();
      resolve(found);
    };
    const stopSwitch = snapshots.onSwitch((next) => {
      if (servesAtLeast(next, required)) done(next);
    });
    const stopDamage = wait.onDamaged((id, reason) => {
      if (id === required) done({ reason });
    });
    const timer = setTimeout(() => done(null), wait.ms);
    // CURRENT may name it already (a switch the watch has not reported yet).
    void snapshots.refresh();
  });
  if (outcome !== null && 'reason' in outcome) throw damaged(snapshots.current(), required, outcome.reason);
  if (outcome) return outcome;
  throw unavailable(
    `this instance serves snapshot ${snapshots.current()?.id ?? 'none'}, older than ${required}; ` +
      `retry in ${RETRY_AFTER_SECONDS} s: the newer snapshot is on its way here`,
    RETRY_AFTER_SECONDS,
  );
}

/**
 * The snapshots a request names in its query: `since` of /changes, the snapshot of the event id
 * an event page or stream resumes after (`after`, or Last-Event-ID). The same for a REST request
 * and an MCP tool call (the tool's arguments are the route's query).
 */
export function namedSnapshots(
  routeId: string,
  params: RequestParams,
  lastEventId: string | null,
): Array<string | null> {
  if (routeId === 'changes') return [(params.query.since as string | undefined) ?? null];
  if (routeId !== 'events') return [];
  const eventIds = [params.query.after as string | undefined, lastEventId];
  return eventIds.map((id) => (id ? id.split(':')[0]! : null));
}

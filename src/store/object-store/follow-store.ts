import { formatTimestamp } from '../../lib/zoned-time.ts';
import type { StoreLayout } from '../layout.ts';
import { type LogEntry, readLogEnd, readLogEntriesAfter, tryReadLogEntry } from './bucket-log.ts';
import { type ObjectStore, ObjectStoreError } from './object-store.ts';
import { DamagedObjectError, pullLatestSnapshot, type SkippedCommit } from './pull-snapshot.ts';

/** Log entries read past ours when a client names a snapshot this directory does not hold. */
const AHEAD_ENTRIES = 20;

/**
 * Whether a snapshot this instance does not serve can come here: on its way, committed but
 * damaged (a pull of it failed: the reason), or not known to be committed at all.
 */
export type SnapshotArrival =
  | { state: 'coming' }
  | { state: 'damaged'; reason: string }
  | { state: 'unknown' };

/** A running follower of a bucket's log. */
export interface StoreFollower {
  /**
   * Whether `snapshotId` is committed in the bucket's log after the entry this directory is on
   * (a snapshot on its way here: monotonic reads, src/server/monotonic-read.ts); reads the log
   * entries after ours, and starts a pull at once when one is coming. A commit whose pull failed
   * is `damaged` and starts no pull (the poll tries it again).
   */
  arrivalOf(snapshotId: string): Promise<SnapshotArrival>;
  /** Calls `listener` when a pull refuses a commit as damaged; returns the function that stops it. */
  onDamaged(listener: (snapshotId: string, reason: string) => void): () => void;
  /**
   * Reads the log now (a publisher announced a commit: commit-wake.ts), or right after the read
   * under way; the poll goes on as the safety net.
   */
  wake(): void;
  /** Where an instance serving `servedId` stands against the log (the `replica` of /status). */
  describe(servedId: string | null, now: Date): Promise<ReplicaStatus>;
  /** Stops polling and waits for a pull in progress to end. */
  stop(): Promise<void>;
}

/**
 * An instance that follows a bucket, as /api/v1/status reports it (src/contract/schemas/status.ts
 * documents each field).
 */
export interface ReplicaStatus {
  store: string;
  log_seq: number | null;
  log_checked_at: string | null;
  seq: number | null;
  behind_commits: number | null;
  behind_seconds: number | null;
  last_error: { message: string; at: string } | null;
}

/** Log entries remembered to name the seq of a snapshot in service (a few more than are kept). */
const REMEMBERED_COMMITS = 64;

/** How long /status waits for the log: its first read, or entries that say where it stands. */
const STATUS_READ_MS = 1_000;

/**
 * Keeps a data directory on the bucket's newest committed snapshot: reads the log's end every
 * `intervalMs`, and at once when woken, and pulls a new snapshot (pull-snapshot.ts), which
 * switches `CURRENT`, so the server's own watch on `CURRENT` switches to it with its leases. A
 * failed pull (bucket down, a damaged object) is logged and tried again at the next poll; the
 * server keeps serving the snapshot it has meanwhile, or the newest intact commit before the
 * damaged ones (pull-snapshot.ts), and /status says how many commits it is behind.
 */
export function followStore(
  store: ObjectStore,
  layout: StoreLayout,
  options: {
    intervalMs: number;
    keep: number;
    log: (entry: Record<string, unknown>) => void;
    now?: () => Date;
  },
): StoreFollower {
  const clock = options.now ?? (() => new Date());
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let wokenMeanwhile = false;
  let lastError: { message: string; at: string } | null = null;
  let head: LogEntry | null = null;
  /** The log entry the directory is on, once a poll has read the log. */
  let onSeq = 0;
  let logCheckedAt: string | null = null;
  /** Log entries read, by seq: which seq a served snapshot is, and when each commit was made. */
  const commits = new Map<number, Pick<LogEntry, 'snapshot_id' | 'committed_at'>>();
  const remember = (entry: LogEntry) => {
    commits.set(entry.seq, { snapshot_id: entry.snapshot_id, committed_at: entry.committed_at });
    // The oldest go first (entries are read in either direction).
    while (commits.size > REMEMBERED_COMMITS) commits.delete(Math.min(...commits.keys()));
  };
  let running: Promise<void> = Promise.resolve();
  /** Commits a pull refused as damaged, by snapshot id: the reason. */
  let damaged = new Map<string, string>();
  const damageListeners = new Set<(snapshotId: string, reason: string) => void>();
  /** Each distinct skip is logged once, not once per poll. */
  let reported = new Set<string>();
  const noteSkipped = (skipped: readonly SkippedCommit[]) => {
    const next = new Map<string, string>();
    const seen = new Set<string>();
    for (const skip of skipped) {
      seen.add(skip.message);
      if (!reported.has(skip.message))
        options.log({
          event: 'store_pull_failed',
          store: store.url,
          error: skip.snapshot_id === null ? 'UnreadableLogEntry' : 'DamagedObjectError',
          seq: skip.seq,
          snapshot: skip.snapshot_id,
          message: skip.message,
        });
      if (skip.snapshot_id === null) continue;
      next.set(skip.snapshot_id, skip.message);
      if (!damaged.has(skip.snapshot_id))
        for (const listener of damageListeners) listener(skip.snapshot_id, skip.message);
    }
    damaged = next;
    reported = seen;
    lastError = skipped[0] ? { message: skipped[0].message, at: formatTimestamp(clock()) } : null;
  };
  let firstRead: () => void = () => {};
  const logRead = new Promise<void>((resolve) => {
    firstRead = resolve;
  });
  const poll = async () => {
    try {
      const end = await readLogEnd(store).finally(firstRead);
      head = end.entry;
      logCheckedAt = formatTimestamp(clock());
      const result = await pullLatestSnapshot(store, layout, { keep: options.keep, end });
      for (const entry of result.entries) remember(entry);
      if (result.seq !== null) onSeq = result.seq;
      noteSkipped(result.skipped);
      if (result.status === 'pulled')
        options.log({
          event: 'store_pulled',
          store: store.url,
          seq: result.seq,
          snapshot: result.snapshot_id,
          downloaded_files: result.downloaded.files,
          downloaded_bytes: result.downloaded.bytes,
          linked_files: result.linked,
        });
    } catch (error) {
      // Nothing intact to pull: the commits passed over are known damaged all the same.
      if (error instanceof DamagedObjectError && error.skipped.length > 0) {
        noteSkipped(error.skipped);
        return;
      }
      const message = (error as Error).message;
      // Logged once per distinct failure, not once per poll.
      if (message !== lastError?.message && !reported.has(message))
        options.log({
          event: 'store_pull_failed',
          store: store.url,
          error: (error as Error).name,
          ...(error instanceof ObjectStoreError ? { kind: error.kind } : {}),
          message,
        });
      lastError = { message, at: formatTimestamp(clock()) };
    }
  };
  const loop = () => {
    clearTimeout(timer);
    polling = true;
    running = poll().finally(() => {
      polling = false;
      if (stopped) return;
      if (wokenMeanwhile) {
        // The commit announced may be newer than the log this read saw.
        wokenMeanwhile = false;
        loop();
      } else timer = setTimeout(loop, options.intervalMs);
    });
  };
  /** Resolves with `work`, or with null after STATUS_READ_MS: a /status request waits no longer. */
  const bounded = async <T>(work: Promise<T>): Promise<T | null> => {
    let timeout: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      timeout = setTimeout(() => resolve(null), STATUS_READ_MS);
    });
    try {
      return await Promise.race([work, gaveUp]);
    } catch {
      return null;
    } finally {
      clearTimeout(timeout);
    }
  };
  /** When entry `seq` was committed: remembered, else read from the log (null if it cannot be). */
  const committedAt = async (seq: number): Promise<string | null> => {
    const known = commits.get(seq);
    if (known) return known.committed_at;
    const read = await bounded(tryReadLogEntry(store, seq));
    if (read === null || !('entry' in read)) return null;
    remember(read.entry);
    return read.entry.committed_at;
  };
  /** The seq of `snapshotId`: remembered, else read back from the log's end (null if not found). */
  const seqOf = async (snapshotId: string | null): Promise<number | null> => {
    const find = () => {
      let seq: number | null = null;
      for (const [at, entry] of commits)
        if (entry.snapshot_id === snapshotId && (seq === null || at > seq)) seq = at;
      return seq;
    };
    const known = find();
    if (known !== null || snapshotId === null || head === null) return known;
    // A snapshot the poll has not placed yet (the server switched before it, or it was refused).
    const newest = head.seq;
    await bounded(
      (async () => {
        for (let seq = newest; seq >= Math.max(1, newest - REMEMBERED_COMMITS + 1); seq--) {
          if (commits.has(seq)) continue;
          const read = await tryReadLogEntry(store, seq);
          if ('entry' in read) remember(read.entry);
          if ('entry' in read && read.entry.snapshot_id === snapshotId) return;
        }
      })(),
    );
    return find();
  };
  const wake = () => {
    if (stopped) return;
    if (polling) wokenMeanwhile = true;
    else loop();
  };
  loop();
  return {
    wake,
    arrivalOf: async (snapshotId) => {
      const ahead = await readLogEntriesAfter(store, onSeq, AHEAD_ENTRIES);
      for (const entry of ahead) remember(entry);
      if (!ahead.some((entry) => entry.snapshot_id === snapshotId)) return { state: 'unknown' };
      const reason = damaged.get(snapshotId);
      if (reason !== undefined) return { state: 'damaged', reason };
      // Pull now rather than at the next poll (right after a pull under way).
      wake();
      return { state: 'coming' };
    },
    onDamaged: (listener) => {
      damageListeners.add(listener);
      return () => damageListeners.delete(listener);
    },
    describe: async (servedId, now) => {
      // Just started: the first read of the log is under way (a second at most).
      await bounded(logRead);
      const seq = await seqOf(servedId);
      const behind = head !== null && seq !== null ? Math.max(0, head.seq - seq) : null;
      let seconds: number | null = behind === 0 ? 0 : null;
      if (behind !== null && behind > 0) {
        // Behind since the first commit it does not serve.
        const since = await committedAt(seq! + 1);
        if (since !== null) seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / 1000));
      }
      return {
        store: store.url,
        log_seq: head?.seq ?? null,
        log_checked_at: logCheckedAt,
        seq,
        behind_commits: behind,
        behind_seconds: seconds,
        last_error: lastError,
      };
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      store.close();
    },
  };
}

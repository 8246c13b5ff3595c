import { formatTimestamp } from '../../lib/zoned-time.ts';
import type { StoreLayout } from '../layout.ts';
import { type LogEntry, readLogEntriesAfter, readLogEntry, readLogHead } from './bucket-log.ts';
import type { ObjectStore } from './object-store.ts';
import { pullLatestSnapshot } from './pull-snapshot.ts';

/** Log entries read past ours when a client names a snapshot this directory does not hold. */
const AHEAD_ENTRIES = 20;

/** A running follower of a bucket's log. */
export interface StoreFollower {
  /**
   * Whether `snapshotId` is committed in the bucket's log after the entry this directory is on
   * (a snapshot on its way here: monotonic reads, src/server/monotonic-read.ts); reads the log
   * entries after ours, and starts a pull at once when there is one.
   */
  isCommittedAhead(snapshotId: string): Promise<boolean>;
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

/** How long /status waits for the log entry that says since when an instance is behind. */
const COMMIT_TIME_READ_MS = 1_000;

/**
 * Keeps a data directory on the bucket's newest committed snapshot: reads the log's end every
 * `intervalMs`, and at once when woken, and pulls a new snapshot (pull-snapshot.ts), which
 * switches `CURRENT`, so the server's own watch on `CURRENT` switches to it with its leases. A
 * failed pull (bucket down, a damaged object) is logged and tried again at the next poll; the
 * server keeps serving the snapshot it has meanwhile.
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
    for (const seq of commits.keys()) {
      if (commits.size <= REMEMBERED_COMMITS) break;
      commits.delete(seq);
    }
  };
  let running: Promise<void> = Promise.resolve();
  const poll = async () => {
    try {
      const newest = await readLogHead(store);
      head = newest;
      logCheckedAt = formatTimestamp(clock());
      if (newest) remember(newest);
      const result = await pullLatestSnapshot(store, layout, { keep: options.keep, head: newest });
      lastError = null;
      if (result.seq !== null) onSeq = result.seq;
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
      const message = (error as Error).message;
      // Logged once per distinct failure, not once per poll.
      if (message !== lastError?.message)
        options.log({ event: 'store_pull_failed', store: store.url, error: (error as Error).name, message });
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
  /** When entry `seq` was committed: remembered, else read from the log (null if it cannot be). */
  const committedAt = async (seq: number): Promise<string | null> => {
    const known = commits.get(seq);
    if (known) return known.committed_at;
    // A /status request waits for this read: a slow or unreachable bucket costs it a second at most.
    let timeout: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      timeout = setTimeout(() => resolve(null), COMMIT_TIME_READ_MS);
    });
    try {
      const entry = await Promise.race([readLogEntry(store, seq), gaveUp]);
      if (entry === null) return null;
      remember(entry);
      return entry.committed_at;
    } catch {
      return null;
    } finally {
      clearTimeout(timeout);
    }
  };
  const wake = () => {
    if (stopped) return;
    if (polling) wokenMeanwhile = true;
    else loop();
  };
  loop();
  return {
    wake,
    isCommittedAhead: async (snapshotId) => {
      const ahead = await readLogEntriesAfter(store, onSeq, AHEAD_ENTRIES);
      for (const entry of ahead) remember(entry);
      if (!ahead.some((entry) => entry.snapshot_id === snapshotId)) return false;
      // Pull now rather than at the next poll (right after a pull under way).
      wake();
      return true;
    },
    describe: async (servedId, now) => {
      let seq: number | null = null;
      for (const [at, entry] of commits)
        if (entry.snapshot_id === servedId && (seq === null || at > seq)) seq = at;
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

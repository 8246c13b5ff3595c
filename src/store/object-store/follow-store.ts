import type { StoreLayout } from '../layout.ts';
import { readLogEntriesAfter } from './bucket-log.ts';
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
  /** Stops polling and waits for a pull in progress to end. */
  stop(): Promise<void>;
}

/**
 * Keeps a data directory on the bucket's newest committed snapshot: polls the log every
 * `intervalMs` and pulls a new snapshot (pull-snapshot.ts), which switches `CURRENT`, so the
 * server's own watch on `CURRENT` switches to it with its leases. A failed pull (bucket down, a
 * damaged object) is logged and tried again at the next poll; the server keeps serving the
 * snapshot it has meanwhile.
 */
export function followStore(
  store: ObjectStore,
  layout: StoreLayout,
  options: { intervalMs: number; keep: number; log: (entry: Record<string, unknown>) => void },
): StoreFollower {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastError: string | null = null;
  let running: Promise<void> = Promise.resolve();
  /** The log entry the directory is on, once a poll has read the log. */
  let seq = 0;
  const poll = async () => {
    try {
      const result = await pullLatestSnapshot(store, layout, { keep: options.keep });
      lastError = null;
      if (result.seq !== null) seq = result.seq;
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
      if (message !== lastError)
        options.log({ event: 'store_pull_failed', store: store.url, error: (error as Error).name, message });
      lastError = message;
    }
  };
  const loop = () => {
    running = poll().finally(() => {
      if (!stopped) timer = setTimeout(loop, options.intervalMs);
    });
  };
  loop();
  return {
    async isCommittedAhead(snapshotId) {
      const ahead = await readLogEntriesAfter(store, seq, AHEAD_ENTRIES);
      if (!ahead.some((entry) => entry.snapshot_id === snapshotId)) return false;
      if (!stopped) {
        // Pull now rather than at the next poll (a pull under way is awaited first).
        clearTimeout(timer);
        void running.then(() => {
          if (!stopped) loop();
        });
      }
      return true;
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      store.close();
    },
  };
}

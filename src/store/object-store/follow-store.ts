import type { StoreLayout } from '../layout.ts';
import type { ObjectStore } from './object-store.ts';
import { pullLatestSnapshot } from './pull-snapshot.ts';

/** A running follower of a bucket's log. */
export interface StoreFollower {
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
  const poll = async () => {
    try {
      const result = await pullLatestSnapshot(store, layout, { keep: options.keep });
      lastError = null;
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
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      store.close();
    },
  };
}

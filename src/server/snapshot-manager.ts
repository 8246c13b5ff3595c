import { dropRevisionCache } from '../query/revision-cache.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { StoreLayout } from '../store/layout.ts';
import { readCurrentId } from '../store/manifest.ts';
import { watchCurrent } from '../store/watch-current.ts';

/** Keeps the server on the current snapshot and switches without failing requests in flight. */
export interface SnapshotManager {
  /** The snapshot in service, or null before the first publish (or if none could be opened). */
  current(): SnapshotDb | null;
  /** Checks CURRENT and switches if it names another snapshot that opens cleanly. */
  refresh(): Promise<void>;
  /**
   * Calls `listener` after each switch to a new snapshot (the event streams read the log then,
   * instead of polling files); returns the function that stops it.
   */
  onSwitch(listener: (db: SnapshotDb) => void): () => void;
  /**
   * Why `snapshotId` was refused (damaged, or would not open), while it waits to be tried again;
   * null when it was not.
   */
  refusal(snapshotId: string): string | null;
  /** Calls `listener` after each refusal of a snapshot; returns the function that stops it. */
  onRefused(listener: (snapshotId: string, reason: string) => void): () => void;
  close(): Promise<void>;
}

/** Options of the snapshot manager. */
export interface SnapshotManagerOptions {
  layout: StoreLayout;
  open: (snapshotId: string) => Promise<SnapshotDb>;
  log: (event: Record<string, unknown>) => void;
  /** How often CURRENT is checked, in ms (0: only on refresh()). */
  pollMs: number;
  /**
   * Also check CURRENT as soon as the data directory reports a change to it (watch-current.ts),
   * so that a switch is not up to a poll late; the poll stays as the safety net.
   */
  watch?: boolean;
  /** After a snapshot failed to open, wait this long before trying it again. */
  retryFailedMs?: number;
}

/**
 * Creates the manager: it opens the new snapshot in a new DuckDB instance, swaps the
 * reference, and closes the old instance once its queries have finished. A snapshot that is
 * damaged is refused and the previous one stays in service.
 */
export async function createSnapshotManager(options: SnapshotManagerOptions): Promise<SnapshotManager> {
  let active: SnapshotDb | null = null;
  let refreshing: Promise<void> | null = null;
  const failed = new Map<string, { at: number; reason: string }>();
  const listeners = new Set<(db: SnapshotDb) => void>();
  const refusedListeners = new Set<(snapshotId: string, reason: string) => void>();
  const retryMs = options.retryFailedMs ?? 30_000;

  async function switchTo(id: string): Promise<void> {
    const failedAt = failed.get(id)?.at;
    if (failedAt !== undefined && Date.now() - failedAt < retryMs) return;
    try {
      const next = await options.open(id);
      const previous = active;
      active = next;
      failed.delete(id);
      options.log({ event: 'snapshot_switched', snapshot: id, previous: previous?.id ?? null });
      if (previous) {
        // Its revision blocks are memory the new snapshot's cache will need (requests in flight
        // on it fall back to DuckDB, which the close waits for).
        dropRevisionCache(previous);
        void previous.close();
      }
      for (const listener of listeners) {
        try {
          listener(next);
        } catch (error) {
          options.log({ event: 'switch_listener_error', error: (error as Error).message });
        }
      }
    } catch (error) {
      const reason = (error as Error).message.split('\n')[0]!;
      failed.set(id, { at: Date.now(), reason });
      options.log({ event: 'snapshot_refused', snapshot: id, error: reason });
      for (const listener of refusedListeners) listener(id, reason);
    }
  }

  async function refresh(): Promise<void> {
    let id: string | null;
    try {
      id = readCurrentId(options.layout);
    } catch (error) {
      options.log({ event: 'current_unreadable', error: (error as Error).message });
      return;
    }
    if (id === null || id === active?.id) return;
    await switchTo(id);
  }

  let closed = false;
  // A change reported while a refresh is under way (which may have read CURRENT before it):
  // one more refresh follows it.
  let changedMeanwhile = false;
  const guardedRefresh = () => {
    refreshing ??= refresh().finally(() => {
      refreshing = null;
      if (changedMeanwhile && !closed) {
        changedMeanwhile = false;
        void guardedRefresh();
      }
    });
    return refreshing;
  };

  await guardedRefresh();
  const timer = options.pollMs > 0 ? setInterval(() => void guardedRefresh(), options.pollMs) : null;
  timer?.unref();
  const watcher = options.watch
    ? watchCurrent(options.layout, () => {
        if (refreshing) changedMeanwhile = true;
        else void guardedRefresh();
      })
    : null;

  return {
    current: () => active,
    refresh: guardedRefresh,
    onSwitch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refusal(snapshotId) {
      const refused = failed.get(snapshotId);
      return refused !== undefined && Date.now() - refused.at < retryMs ? refused.reason : null;
    },
    onRefused(listener) {
      refusedListeners.add(listener);
      return () => refusedListeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      refusedListeners.clear();
      if (timer) clearInterval(timer);
      watcher?.close();
      await refreshing;
      if (active) dropRevisionCache(active);
      await active?.close();
      active = null;
    },
  };
}

import { readDelayedReleases, releaseId } from '../api/v1/releases.ts';
import type { ReleaseEvent } from '../events/event.ts';
import { noticeDelayedReleases } from '../events/noticed-events.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { SnapshotManager } from './snapshot-manager.ts';

/** Scheduled releases older than this are history, not news: never announced as delayed. */
const LOOKBACK_HOURS = 24;

/** The running check for delayed releases. */
export interface DelayWatch {
  /** Checks now (the timer calls it; tests call it after moving the clock). */
  check(): Promise<ReleaseEvent[]>;
  close(): void;
}

/**
 * Checks every `checkMs` whether a release the calendars expected has not landed `graceMinutes`
 * after its time in the snapshot in service, and appends a `release.delayed` event for it
 * (noticed-events.ts: once per release over any number of servers on one data directory). After
 * each check `onChecked` runs, so that open streams read what this or another server appended.
 */
export function watchDelayedReleases(
  deps: {
    snapshots: SnapshotManager;
    layout: StoreLayout;
    now: () => Date;
    log: (entry: Record<string, unknown>) => void;
    onChecked: () => void;
  },
  settings: { graceMinutes: number; checkMs: number },
): DelayWatch {
  let running: Promise<ReleaseEvent[]> | null = null;
  const run = async (): Promise<ReleaseEvent[]> => {
    const db = deps.snapshots.current();
    if (!db) return [];
    const release = db.lease();
    try {
      const now = deps.now();
      const delayed = await readDelayedReleases(db, now, {
        graceMinutes: settings.graceMinutes,
        lookbackHours: LOOKBACK_HOURS,
      });
      const events = await noticeDelayedReleases(deps.layout, {
        snapshot: db.id,
        delayed,
        now,
        graceMinutes: settings.graceMinutes,
        releaseId: (r) => releaseId(r.source, r.name, r.at),
      });
      for (const event of events)
        deps.log({
          event: 'release_delayed',
          id: event.id,
          source: event.source,
          release: event.data.release,
          release_name: event.data.release_name,
        });
      return events;
    } catch (error) {
      deps.log({ event: 'delay_check_error', error: (error as Error).message });
      return [];
    } finally {
      release();
      deps.onChecked();
    }
  };
  const check = () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => void check(), settings.checkMs);
  timer.unref();
  void check();
  return {
    check,
    close: () => clearInterval(timer),
  };
}

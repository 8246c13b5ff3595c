import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { releaseKey } from '../calendar/release-names.ts';
import type { ScheduledRelease } from '../calendar/release-schedule.ts';
import { fsyncPath } from '../lib/durable-fs.ts';
import { noticedEventsDir, noticedEventsLock, type StoreLayout } from '../store/layout.ts';
import { withShortLock } from '../store/lock.ts';
import { readCurrentId, readManifest } from '../store/manifest.ts';
import type { ReleaseEvent } from './event.ts';

/**
 * Events noticed between two snapshots (docs/api/events.md, `release.delayed`): a delay is
 * noticed because nothing lands, so no snapshot can carry it. They go to an append-only file per
 * snapshot, `events/<snapshot id>.ndjson` in the data directory, numbered after that snapshot's
 * own events (`<snapshot id>:<n+1>`, ...): the log reads a snapshot's events, then these, then the
 * next snapshot's, so ids stay monotonic. Appends and the switch of CURRENT by publish take one
 * short lock (`events/.lock`), so nothing is appended to a snapshot that is no longer current.
 */

export { noticedEventsDir };

function fileOf(layout: StoreLayout, snapshot: string): string {
  return join(noticedEventsDir(layout), `${snapshot}.ndjson`);
}

/** The complete lines of a file (a line cut short by a crash is not an event yet). */
function completeText(path: string): string {
  const text = readFileSync(path, 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1);
}

/** Parsed files by path, with the size they were read at (the files only grow). */
const CACHE = new Map<string, { size: number; events: ReleaseEvent[] }>();
const MAX_CACHED = 64;

/** The events noticed while `snapshot` was current, in order (none when there is no file). */
export function readNoticedEvents(layout: StoreLayout, snapshot: string): ReleaseEvent[] {
  const path = fileOf(layout, snapshot);
  // No file is the common case (no delay noticed): no exception thrown for it.
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (size === undefined) return [];
  const cached = CACHE.get(path);
  if (cached?.size === size) return cached.events;
  const events = completeText(path)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReleaseEvent);
  CACHE.set(path, { size, events });
  while (CACHE.size > MAX_CACHED) CACHE.delete(CACHE.keys().next().value!);
  return events;
}

/** What noticeDelayedReleases is told. */
export interface DelayNotice {
  /** The snapshot the delays were decided on: nothing is written unless it is still CURRENT. */
  snapshot: string;
  /** The releases findDelayedReleases named. */
  delayed: readonly ScheduledRelease[];
  /** When they were noticed (the events' observed_at: never back-dated to the scheduled time). */
  now: Date;
  graceMinutes: number;
  /** The release's stable id, as /api/v1/releases gives it. */
  releaseId: (release: ScheduledRelease) => string;
}

/**
 * Appends a `release.delayed` event for each delayed release not noticed before, by any process
 * over this data directory: a marker file per source, release and scheduled time, created after
 * the event is written (a crash in between repeats the event at the next check: at least once,
 * never lost). Returns the events written; none when `snapshot` is no longer CURRENT (the
 * release may be in the new one: the next check decides on it).
 */
export async function noticeDelayedReleases(
  layout: StoreLayout,
  notice: DelayNotice,
): Promise<ReleaseEvent[]> {
  if (notice.delayed.length === 0) return [];
  const dir = noticedEventsDir(layout);
  const markers = join(dir, 'noticed');
  mkdirSync(markers, { recursive: true });
  return withShortLock(noticedEventsLock(layout), () => {
    if (readCurrentId(layout) !== notice.snapshot) return [];
    const markerOf = (release: ScheduledRelease) =>
      join(
        markers,
        createHash('sha256')
          .update(`${release.source}\u0000${release.name}\u0000${release.at}`)
          .digest('hex')
          .slice(0, 32),
      );
    const fresh = notice.delayed.filter((release) => !existsSync(markerOf(release)));
    if (fresh.length === 0) return [];
    const path = fileOf(layout, notice.snapshot);
    // A line cut short by a crash is dropped before appending after it.
    if (existsSync(path)) {
      const whole = Buffer.byteLength(completeText(path));
      if (whole !== statSync(path).size) truncateSync(path, whole);
    }
    const own = readManifest(layout, notice.snapshot).events?.rows ?? 0;
    const before = readNoticedEvents(layout, notice.snapshot).length;
    const observedAt = `${notice.now.toISOString().slice(0, 19)}Z`;
    const events = fresh.map(
      (release, index): ReleaseEvent => ({
        id: `${notice.snapshot}:${own + before + index + 1}`,
        type: 'release.delayed',
        snapshot: notice.snapshot,
        source: release.source,
        series: null,
        observed_at: observedAt,
        // The calendar is public, and it names only redistributable series (readReleaseSubjects).
        public: true,
        scopes: ['observations:read'],
        data: {
          release: releaseKey(release.source, release.name),
          release_name: release.name,
          release_id: notice.releaseId(release),
          scheduled_at: release.at,
          reference_period: release.reference_period,
          basis: release.basis,
          grace_minutes: notice.graceMinutes,
          series: release.series.length,
          releases: `/api/v1/releases?source=${release.source}&from=${release.at.slice(0, 10)}&to=${release.at.slice(0, 10)}`,
        },
      }),
    );
    appendFileSync(path, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    fsyncPath(path);
    for (const release of fresh) writeFileSync(markerOf(release), `${release.at}\n`, { flag: 'w' });
    fsyncPath(markers);
    return events;
  });
}

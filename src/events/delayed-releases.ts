import type { ReleaseCalendars } from '../api/v1/releases-calendars.ts';
import {
  listScheduledReleases,
  RELEASE_SOURCE_IDS,
  type ScheduledRelease,
  type ScheduleSubjects,
} from '../api/v1/releases-schedule.ts';

/** A release that landed: its source, its name as the release calendar gives it, and when it was known. */
export interface LandedRelease {
  source: string;
  name: string;
  /** RFC 3339 UTC: the knowledge time of its values (the calendar's time when one dates them). */
  released_at: string;
}

/** Options of findDelayedReleases. */
export interface DelayOptions {
  now: Date;
  /** A release is delayed once this many minutes have passed after its scheduled time. */
  graceMinutes: number;
  /** Scheduled releases older than this many hours are not looked at (they are history, not news). */
  lookbackHours: number;
}

/** How early before its scheduled time data may be dated and still count as that release. */
const EARLY_MS = 12 * 3600_000;

/**
 * The releases the shipped calendars (data/calendars, src/calendar) expected between
 * `lookbackHours` and `graceMinutes` before `now` that have not landed: no landed release of the
 * same source and name known from 12 hours before its scheduled time on. This decides the
 * `release.delayed` event of docs/api/events.md; the caller passes the releases the store holds
 * (query/releases.ts readPastReleases, named as /api/v1/releases names them).
 */
export function findDelayedReleases(
  calendars: ReleaseCalendars,
  subjects: ScheduleSubjects,
  landed: readonly LandedRelease[],
  options: DelayOptions,
): ScheduledRelease[] {
  const now = options.now.getTime();
  const from = new Date(now - options.lookbackHours * 3600_000);
  const due = utc(now - options.graceMinutes * 60_000);
  return listScheduledReleases(calendars, subjects, RELEASE_SOURCE_IDS, from).filter((release) => {
    if (release.at > due) return false;
    const earliest = utc(Date.parse(release.at) - EARLY_MS);
    return !landed.some(
      (done) => done.source === release.source && done.name === release.name && done.released_at >= earliest,
    );
  });
}

/** RFC 3339 UTC in whole seconds, as the calendar writes its times (comparable as text). */
function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

import type { ReleaseCalendars } from '../calendar/release-calendars.ts';
import {
  listScheduledReleases,
  RELEASE_SOURCE_IDS,
  type ScheduledRelease,
  type ScheduleSubjects,
} from '../calendar/release-schedule.ts';

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

/**
 * A store follows a release when it holds one of its earlier releases known in this many days
 * before the scheduled time: longer than the longest regular gap between two releases of the
 * calendars (monthly BLS news releases, five weeks at most). A store that does not follow a
 * release (the bundled sample, whose data ends months ago; a source never updated) cannot tell
 * that its publisher is late: its releases are not judged.
 */
export const FOLLOW_DAYS = 45;

/** How early before its scheduled time data may be dated and still count as that release. */
const EARLY_MS = 12 * 3600_000;

/**
 * The releases the shipped calendars (data/calendars, src/calendar) expected between
 * `lookbackHours` and `graceMinutes` before `now` that have not landed: no landed release of the
 * same source and name known from 12 hours before its scheduled time on, although one was known
 * in the FOLLOW_DAYS before it (the store follows that release). This decides the
 * `release.delayed` event of docs/api/events.md; the caller passes the releases the store holds
 * from FOLLOW_DAYS before the lookback on (query/releases.ts readPastReleases, named as
 * /api/v1/releases names them).
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
    const followedFrom = utc(Date.parse(release.at) - FOLLOW_DAYS * 86_400_000);
    const same = landed.filter((done) => done.source === release.source && done.name === release.name);
    return (
      same.some((done) => done.released_at >= followedFrom && done.released_at < earliest) &&
      !same.some((done) => done.released_at >= earliest)
    );
  });
}

/** RFC 3339 UTC in whole seconds, as the calendar writes its times (comparable as text). */
function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

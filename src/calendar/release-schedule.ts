// The schedule of coming releases (BLS, CFTC COT, ECB) that the calendars and the publishers' rules
// give: /api/v1/releases serves it, the delay noticer (events/) compares the store against it.
import { addDays, zonedTimeToUtc } from '../lib/zoned-time.ts';
import { blsReleaseForSeries } from './bls-calendar.ts';
import { CFTC_DOCUMENTED_RELEASES } from './cftc-documented-releases.ts';
import { ecbReleaseTime } from './ecb-calendar.ts';
import type { ReleaseCalendars } from './release-calendars.ts';
import { SINGLE_RELEASE_NAMES } from './release-names.ts';
import { isTargetClosingDay } from './target-days.ts';
import type { BlsRelease, CalendarTime } from './types.ts';

/** How far ahead the rule calendars are served (the BLS file: as far as its rows go). */
export const RELEASE_HORIZON_DAYS = { cftc: 91, ecb: 31 } as const;

/** The publishers whose releases the calendar serves, with their zone and release name. */
export const RELEASE_SOURCES = {
  bls: { time_zone: 'America/New_York', name: null },
  cftc: { time_zone: 'America/New_York', name: SINGLE_RELEASE_NAMES.cftc },
  ecb: { time_zone: 'Europe/Berlin', name: SINGLE_RELEASE_NAMES.ecb },
} as const;
export type ReleaseSource = keyof typeof RELEASE_SOURCES;
export const RELEASE_SOURCE_IDS = Object.keys(RELEASE_SOURCES) as ReleaseSource[];

/** Where a row's time comes from. */
export type ReleaseBasis =
  /** The knowledge time of the values the snapshot holds (a past release). */
  | 'store'
  /** A row of data/calendars/bls_release_dates.csv. */
  | 'calendar_file'
  /** A row of data/calendars/cftc_cot_release_exceptions.csv, or a documented CFTC notice. */
  | 'exception'
  /** The publisher's standing rule (COT: Friday 15:30 New York after federal holidays; ECB: TARGET days at 16:00 CET). */
  | 'rule';

/** One scheduled release from a calendar, before it is shaped for the response. */
export interface ScheduledRelease {
  source: ReleaseSource;
  name: string;
  /** RFC 3339 UTC. */
  at: string;
  reference_period: string;
  basis: ReleaseBasis;
  note: string | null;
  source_url: string | null;
  /** The series keys it is expected to carry. */
  series: string[];
}

/** The catalog's series keys per source (BLS, ECB) and the tracked COT series keys. */
export interface ScheduleSubjects {
  bls: readonly string[];
  ecb: readonly string[];
  cftc: readonly string[];
}

/**
 * Lists the releases the calendars schedule after `now`: every BLS file row of the releases that
 * carry a catalogued BLS series, the COT reports up to RELEASE_HORIZON_DAYS.cftc ahead (exception
 * rows first, then the holiday-shifted Friday rule), the ECB reference rates of each TARGET day up
 * to RELEASE_HORIZON_DAYS.ecb ahead. Sorted by time.
 */
export function listScheduledReleases(
  calendars: ReleaseCalendars,
  subjects: ScheduleSubjects,
  sources: readonly ReleaseSource[],
  now: Date,
): ScheduledRelease[] {
  const releases: ScheduledRelease[] = [];
  if (sources.includes('bls')) releases.push(...scheduledBls(calendars, subjects.bls, now));
  if (sources.includes('cftc')) releases.push(...scheduledCftc(calendars, subjects.cftc, now));
  if (sources.includes('ecb')) releases.push(...scheduledEcb(subjects.ecb, now));
  return releases.sort((a, b) => a.at.localeCompare(b.at) || a.source.localeCompare(b.source));
}

function scheduledBls(calendars: ReleaseCalendars, keys: readonly string[], now: Date): ScheduledRelease[] {
  const byRelease = new Map<BlsRelease, string[]>();
  for (const key of keys) {
    const release = blsReleaseForSeries(key.slice(key.indexOf('.') + 1));
    if (release !== null) byRelease.set(release, [...(byRelease.get(release) ?? []), key]);
  }
  const after = now.toISOString();
  return calendars.blsRows.flatMap((row) => {
    const series = byRelease.get(row.release);
    // Rows of days before yesterday (UTC) are past in any zone: no time to compute.
    if (series === undefined || row.release_date < addDays(after.slice(0, 10), -1)) return [];
    const at = zonedTimeToUtc(row.release_date, row.release_time_et, 'America/New_York');
    if (at <= after) return [];
    return [
      {
        source: 'bls' as const,
        name: row.release,
        at,
        reference_period: row.reference_period,
        basis: 'calendar_file' as const,
        note: null,
        source_url: row.source_url,
        series,
      },
    ];
  });
}

function scheduledCftc(calendars: ReleaseCalendars, keys: readonly string[], now: Date): ScheduledRelease[] {
  const exceptions = new Map(calendars.cftcExceptions.map((row) => [row.report_date, row]));
  const documented = new Set(CFTC_DOCUMENTED_RELEASES.map((row) => row.report_date));
  const after = now.toISOString();
  const horizon = new Date(now.getTime() + RELEASE_HORIZON_DAYS.cftc * 86_400_000).toISOString();
  const releases: ScheduledRelease[] = [];
  // Reports of the last ten weeks may still be due (a shutdown catch-up); later weeks until the
  // horizon. The as-of day is the Tuesday, or the Monday where the exceptions file names one.
  for (
    let tuesday = firstTuesdayOnOrAfter(addDays(after.slice(0, 10), -70));
    ;
    tuesday = addDays(tuesday, 7)
  ) {
    const monday = addDays(tuesday, -1);
    const reportDate = exceptions.has(monday) ? monday : tuesday;
    const time: CalendarTime = calendars.cftc.releaseOf(reportDate);
    if (reportDate > horizon.slice(0, 10)) break;
    if (time.observed_at <= after || time.observed_at > horizon) continue;
    const row = exceptions.get(reportDate);
    releases.push({
      source: 'cftc',
      name: RELEASE_SOURCES.cftc.name,
      at: time.observed_at,
      reference_period: reportDate,
      // The documented early publication and the estimated shutdown gaps (src/calendar/) are
      // exceptions too; their note says which.
      basis:
        row !== undefined || documented.has(reportDate) || time.method === 'estimated' ? 'exception' : 'rule',
      note: time.note,
      source_url: row?.source_url ?? null,
      series: [...keys],
    });
  }
  return releases;
}

function scheduledEcb(keys: readonly string[], now: Date): ScheduledRelease[] {
  const after = now.toISOString();
  const releases: ScheduledRelease[] = [];
  const today = after.slice(0, 10);
  const last = addDays(today, RELEASE_HORIZON_DAYS.ecb);
  for (let day = today; day <= last; day = addDays(day, 1)) {
    if (isTargetClosingDay(day)) continue;
    const time = ecbReleaseTime(day);
    if (time.observed_at <= after) continue;
    releases.push({
      source: 'ecb',
      name: RELEASE_SOURCES.ecb.name,
      at: time.observed_at,
      reference_period: day,
      basis: 'rule',
      note: null,
      source_url: null,
      series: [...keys],
    });
  }
  return releases;
}

function firstTuesdayOnOrAfter(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, (2 - weekday + 7) % 7);
}

import type { KnowledgeTime, Timestamp } from '../model/records.ts';

/** The BLS releases the shipped calendar knows (data/calendars/bls_release_dates.csv). */
export const BLS_RELEASES = [
  'Employment Situation',
  'Consumer Price Index',
  'Producer Price Index',
  'State Employment and Unemployment',
] as const;
export type BlsRelease = (typeof BLS_RELEASES)[number];

/** A knowledge time from a calendar, with a note where it is an exception or an estimate. */
export interface CalendarTime extends KnowledgeTime {
  /** Why this release differs from the rule (holiday, closure, shutdown), or how it was estimated. */
  note: string | null;
}

/** When the CFTC released each weekly Commitments of Traders report. */
export interface CftcCalendar {
  /**
   * The release of the report with positions as of `reportDate` (`YYYY-MM-DD`, normally a
   * Tuesday, sometimes a Monday): the published exception where there is one, else Friday
   * 15:30 America/New_York of that week shifted past U.S. federal holidays.
   */
  releaseOf(reportDate: string): CalendarTime;
}

/** When the BLS released each monthly publication. */
export interface BlsCalendar {
  /** The release that first carried `referencePeriod` (`YYYY-MM`), or null outside the calendar. */
  releaseOf(release: BlsRelease, referencePeriod: string): CalendarTime | null;
  /** The newest release at or before `at`, or null when the calendar has none that early. */
  latestReleaseAtOrBefore(
    release: BlsRelease,
    at: Timestamp,
  ): { reference_period: string; time: CalendarTime } | null;
  /** The first release after `after`, or null when the calendar ends before it. */
  nextReleaseAfter(
    release: BlsRelease,
    after: Timestamp,
  ): { reference_period: string; time: CalendarTime } | null;
  /** The last release date the shipped calendar knows, per release (so staleness can be reported). */
  coverageEnd(release: BlsRelease): string | null;
}

/** Every calendar the pipeline and the API use. */
export interface Calendars {
  cftc: CftcCalendar;
  bls: BlsCalendar;
}

/** One row of data/calendars/cftc_cot_release_exceptions.csv: a COT report released off the rule. */
export interface CftcReleaseException {
  /** The as-of date the CFTC uses (`YYYY-MM-DD`, normally a Tuesday). */
  report_date: string;
  /** The day it was actually released (`YYYY-MM-DD`, America/New_York). */
  release_date: string;
  /** `HH:MM` America/New_York, or null where no source states a time. */
  release_time_et: string | null;
  reason: string;
  source_url: string;
}

/** One row of data/calendars/bls_release_dates.csv: the release that first carried a month. */
export interface BlsReleaseDate {
  release: BlsRelease;
  /** `YYYY-MM`. */
  reference_period: string;
  /** `YYYY-MM-DD`, America/New_York. */
  release_date: string;
  /** `HH:MM`, America/New_York. */
  release_time_et: string;
  source_url: string;
}

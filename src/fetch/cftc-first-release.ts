import type { CftcCalendar } from '../calendar/types.ts';

/** The first weekly report of a year: its positions date and when it is (or was) released. */
export interface FirstCftcRelease {
  /** `YYYY-MM-DD`, the first Tuesday after New Year's Day. */
  reportDate: string;
  /** `YYYY-MM-DD` (America/New_York) of the release. */
  releaseDate: string;
  /** The release as an instant, for comparisons with the clock. */
  releaseAt: Date;
}

// Releases are at 15:30 New York time; 21:00 UTC is after that in both winter and summer time.
const RELEASE_UTC_HOUR = 21;

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * When the CFTC's first report of `year` comes out: the calendar's answer when one is given
 * (it knows holiday shifts and closures), else the regular rule, Friday of the same week.
 */
export function findFirstCftcRelease(year: number, calendar?: CftcCalendar): FirstCftcRelease {
  // New Year's Day is a holiday, so the first positions date is the first Tuesday after it.
  const tuesday = new Date(Date.UTC(year, 0, 2));
  while (tuesday.getUTCDay() !== 2) tuesday.setUTCDate(tuesday.getUTCDate() + 1);
  const reportDate = isoDate(tuesday);
  if (calendar) {
    const release = calendar.releaseOf(reportDate);
    const at = new Date(release.observed_at);
    return { reportDate, releaseDate: isoDate(at), releaseAt: at };
  }
  const friday = new Date(tuesday);
  friday.setUTCDate(friday.getUTCDate() + 3);
  friday.setUTCHours(RELEASE_UTC_HOUR);
  return { reportDate, releaseDate: isoDate(friday), releaseAt: friday };
}

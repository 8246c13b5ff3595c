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

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** When the CFTC's first report of `year` comes out, by the release calendar (holidays, closures). */
export function findFirstCftcRelease(year: number, calendar: CftcCalendar): FirstCftcRelease {
  // New Year's Day is a holiday, so the first positions date is the first Tuesday after it.
  const tuesday = new Date(Date.UTC(year, 0, 2));
  while (tuesday.getUTCDay() !== 2) tuesday.setUTCDate(tuesday.getUTCDate() + 1);
  const reportDate = isoDate(tuesday);
  const at = new Date(calendar.releaseOf(reportDate).observed_at);
  return { reportDate, releaseDate: isoDate(at), releaseAt: at };
}

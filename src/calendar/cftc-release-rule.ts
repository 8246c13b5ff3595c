import { addDays } from '../lib/zoned-time.ts';
import { assertDate } from './assert-date.ts';
import type { UsFederalHolidays } from './us-federal-holidays.ts';

/** The CFTC's standing release time for Commitments of Traders reports (America/New_York). */
export const CFTC_RELEASE_TIME_ET = '15:30';

/** The release day the rule gives for one report, and the holidays that moved it off the Friday. */
export interface CftcRuleRelease {
  /** `YYYY-MM-DD`, America/New_York. */
  release_date: string;
  /** The Friday of the report's week, the release day when no holiday intervenes. */
  friday: string;
  /** `YYYY-MM-DD name` of each federal holiday on Wednesday to Friday of that week. */
  delayed_by: string[];
}

/**
 * Applies the CFTC's release rule to a report date: Friday of the report's week, or, when a
 * federal holiday (or its observed day) falls on the Wednesday, Thursday or Friday of that week,
 * the next business day after that Friday.
 */
export function cftcRuleRelease(reportDate: string, holidays: UsFederalHolidays): CftcRuleRelease {
  const weekday = weekdayOf(reportDate);
  if (weekday < 1 || weekday > 4) {
    throw new RangeError(`COT report date ${reportDate} is not a Monday to Thursday`);
  }
  const friday = addDays(reportDate, 5 - weekday);
  // The window starts on Wednesday: the exceptions file shows a Tuesday holiday never delays
  // (the Monday as-of weeks 2012-12-24, 2017-07-03 and 2023-07-03 went out on their Friday),
  // while a Wednesday, Thursday or Friday holiday always moved the release to the next business
  // day after the Friday (Veterans Day on a Thursday: Monday release).
  const delayedBy: string[] = [];
  for (let day = addDays(friday, -2); day <= friday; day = addDays(day, 1)) {
    const name = day > reportDate ? holidays.holidayOn(day) : null;
    if (name !== null) delayedBy.push(`${day} ${name}`);
  }
  const releaseDate = delayedBy.length === 0 ? friday : holidays.nextBusinessDayAfter(friday);
  return { release_date: releaseDate, friday, delayed_by: delayedBy };
}

/** The day of the week of a `YYYY-MM-DD` date (0 Sunday to 6 Saturday); throws on a bad date. */
function weekdayOf(date: string): number {
  assertDate(date);
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

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

/**
 * The first report date the exceptions file (data/calendars/cftc_cot_release_exceptions.csv)
 * covers: its sources are the CFTC's schedules from 2010 on. Before it the CFTC's exceptions are
 * not known, and the calendar uses cftcLateRuleRelease instead of the rule.
 */
export const CFTC_EXCEPTIONS_KNOWN_FROM = '2009-12-29';

/**
 * The first report date of a weekly Friday release schedule that any source we hold shows (the
 * archived CFTC schedule of 2003-12, exceptions file source A'). Before it the CFTC published
 * biweekly or monthly with other lags: no rule dates those releases.
 */
export const CFTC_WEEKLY_SCHEDULE_KNOWN_FROM = '2003-11-25';

/**
 * The release day used where the CFTC's exceptions are not known (reports before
 * CFTC_EXCEPTIONS_KNOWN_FROM): the rule's release, then one business day more, so that the stamp
 * errs late, never early. One day is the largest delay past the rule that any known release shows
 * outside shutdown catch-ups and the 2023 ION incident: the one-day closures the holiday table
 * cannot know (2004-06-11 Reagan, 2007-01-02 Ford, 2014-12-26, 2025-01-09) each moved a release by
 * one business day; of 2018-12-05 no source says whether it moved the release at all.
 * No lapse in appropriations closed the CFTC from 2003 to 2009.
 */
export function cftcLateRuleRelease(
  reportDate: string,
  holidays: UsFederalHolidays,
): CftcRuleRelease & { rule_date: string } {
  const rule = cftcRuleRelease(reportDate, holidays);
  return {
    ...rule,
    rule_date: rule.release_date,
    release_date: holidays.nextBusinessDayAfter(rule.release_date),
  };
}

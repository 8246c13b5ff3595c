import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import { CFTC_DOCUMENTED_RELEASES, CFTC_ESTIMATED_RELEASES } from './cftc-documented-releases.ts';
import {
  CFTC_EXCEPTIONS_KNOWN_FROM,
  CFTC_RELEASE_TIME_ET,
  cftcLateRuleRelease,
  cftcRuleRelease,
} from './cftc-release-rule.ts';
import type { CalendarTime, CftcCalendar, CftcReleaseException } from './types.ts';
import { createUsFederalHolidays, type UsFederalHolidays } from './us-federal-holidays.ts';

const NEW_YORK = 'America/New_York';

/** Options for createCftcCalendar. */
export interface CftcCalendarOptions {
  /** The federal-holiday lookup; one is created from date-holidays when absent. */
  holidays?: UsFederalHolidays;
}

/**
 * Creates the COT release calendar: a row of the exceptions file wins, then the documented
 * early publication and the estimated shutdown gaps, else the Friday rule with holiday shifts;
 * before the exceptions are known (reports before 2009-12-29), the rule one business day later
 * (`release_rule`, cftcLateRuleRelease).
 */
export function createCftcCalendar(
  exceptions: readonly CftcReleaseException[],
  options: CftcCalendarOptions = {},
): CftcCalendar {
  const holidays = options.holidays ?? createUsFederalHolidays();
  const known = new Map<string, CalendarTime>();

  for (const row of exceptions) {
    if (known.has(row.report_date)) {
      throw new Error(`COT release exceptions: report ${row.report_date} appears twice`);
    }
    // A blank time means no source states one; the standing 15:30 is the best guess, and the
    // note says it is one so that nobody mistakes it for a published time.
    const time = row.release_time_et ?? CFTC_RELEASE_TIME_ET;
    const note =
      row.release_time_et === null
        ? `${row.reason}; release time not published, ${CFTC_RELEASE_TIME_ET} ET assumed`
        : row.reason;
    known.set(row.report_date, atNewYork(row.release_date, time, 'release_calendar', note));
  }
  for (const row of CFTC_DOCUMENTED_RELEASES) {
    if (!known.has(row.report_date)) {
      known.set(
        row.report_date,
        atNewYork(row.release_date, row.release_time_et, 'release_calendar', row.note),
      );
    }
  }
  for (const gap of CFTC_ESTIMATED_RELEASES) {
    const time = atNewYork(gap.release_date, gap.release_time_et, 'estimated', gap.note);
    for (const reportDate of gap.report_dates) {
      if (!known.has(reportDate)) known.set(reportDate, time);
    }
  }

  return {
    releaseOf(reportDate) {
      const listed = known.get(reportDate);
      if (listed !== undefined) return { ...listed };
      if (reportDate < CFTC_EXCEPTIONS_KNOWN_FROM) {
        const late = cftcLateRuleRelease(reportDate, holidays);
        const note =
          `release rule, the CFTC's exceptions before 2010 not being known: the rule gives ${late.rule_date} ` +
          `${CFTC_RELEASE_TIME_ET} ET (Friday of the report week, after federal holidays), one business day ` +
          'is added for a closure the rule cannot know (the largest such delay seen), so this errs late, never early';
        return atNewYork(late.release_date, CFTC_RELEASE_TIME_ET, 'release_rule', note);
      }
      const rule = cftcRuleRelease(reportDate, holidays);
      const note =
        rule.delayed_by.length === 0
          ? null
          : `federal holiday in the release week (${rule.delayed_by.join(', ')}): next business day after ${rule.friday}`;
      return atNewYork(rule.release_date, CFTC_RELEASE_TIME_ET, 'release_calendar', note);
    },
  };
}

function atNewYork(
  date: string,
  time: string,
  method: CalendarTime['method'],
  note: string | null,
): CalendarTime {
  return { observed_at: zonedTimeToUtc(date, time, NEW_YORK), method, note };
}

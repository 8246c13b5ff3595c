import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCftcCalendar } from '../../../src/calendar/cftc-calendar.ts';
import {
  CFTC_EXCEPTIONS_KNOWN_FROM,
  CFTC_WEEKLY_SCHEDULE_KNOWN_FROM,
  cftcLateRuleRelease,
  cftcRuleRelease,
} from '../../../src/calendar/cftc-release-rule.ts';
import { createUsFederalHolidays } from '../../../src/calendar/us-federal-holidays.ts';
import { addDays, zonedTimeToUtc } from '../../../src/lib/zoned-time.ts';
import { GAP_REPORT_DATES, loadCftcExceptions, weeklyReportDates } from './calendar-fixture.ts';

const exceptions = await loadCftcExceptions();
const calendar = createCftcCalendar(exceptions);
const exceptionDates = new Set(exceptions.map((row) => row.report_date));
const newYork = (date: string, time = '15:30') => zonedTimeToUtc(date, time, 'America/New_York');

describe('createCftcCalendar: exception rows (the file is the expected data)', () => {
  it.each(exceptions)('$report_date → $release_date $release_time_et', (row) => {
    const time = calendar.releaseOf(row.report_date);
    expect(time.observed_at).toBe(newYork(row.release_date, row.release_time_et ?? '15:30'));
    expect(time.method).toBe('release_calendar');
    expect(time.note).toContain(row.reason);
    // A blank time in the file is unknown: the standing 15:30 is used and the note says so.
    if (row.release_time_et === null) expect(time.note).toContain('15:30 ET assumed');
    else expect(time.note).not.toContain('assumed');
  });
});

describe('createCftcCalendar: the rule', () => {
  it('gives Friday 15:30 New York for every plain report date 2010-01-05..2026-12-22', () => {
    const plain = weeklyReportDates(exceptions).filter(
      (d) => !exceptionDates.has(d) && !GAP_REPORT_DATES.has(d),
    );
    expect(plain.length).toBeGreaterThan(760);
    const wrong = plain.filter((reportDate) => {
      const weekday = new Date(`${reportDate}T00:00:00Z`).getUTCDay();
      const time = calendar.releaseOf(reportDate);
      return (
        time.observed_at !== newYork(addDays(reportDate, 5 - weekday)) || time.method !== 'release_calendar'
      );
    });
    expect(wrong).toEqual([]);
  });

  it('legacy report of 2025-01-07 → Monday 2025-01-13 15:30 New York (federal closure Jan 9)', () => {
    expect(calendar.releaseOf('2025-01-07')).toEqual({
      observed_at: '2025-01-13T20:30:00Z',
      method: 'release_calendar',
      note: 'national day of mourning (Carter), CFTC closed Jan 9',
    });
  });

  it('2026-01-06 → 2026-01-09 and 2026-01-13 → 2026-01-16: the file (plan of 2025-12-09) wins over the superseded plan of 2025-11-18 (2026-01-16, 2026-01-20)', () => {
    expect(calendar.releaseOf('2026-01-06').observed_at).toBe('2026-01-09T20:30:00Z');
    expect(calendar.releaseOf('2026-01-13').observed_at).toBe('2026-01-16T20:30:00Z');
  });

  it('report 2025-03-11 → Friday 2025-03-14 19:30Z (daylight saving time began on 2025-03-09)', () => {
    expect(calendar.releaseOf('2025-03-11')).toEqual({
      observed_at: '2025-03-14T19:30:00Z',
      method: 'release_calendar',
      note: null,
    });
  });

  it('dates after the file (2027) follow the rule and the holidays', () => {
    // Thanksgiving on Thursday 2027-11-25: the next business day after the Friday.
    expect(calendar.releaseOf('2027-11-23')).toEqual({
      observed_at: '2027-11-29T20:30:00Z',
      method: 'release_calendar',
      note: 'federal holiday in the release week (2027-11-25 Thanksgiving Day): next business day after 2027-11-26',
    });
    // New Year's Day 2027 is a Friday; Christmas 2027 (Saturday) is observed on Friday Dec 24.
    expect(calendar.releaseOf('2026-12-29').observed_at).toBe('2027-01-04T20:30:00Z');
    expect(calendar.releaseOf('2027-12-21').observed_at).toBe('2027-12-27T20:30:00Z');
    expect(calendar.releaseOf('2027-03-09').observed_at).toBe('2027-03-12T20:30:00Z');
  });

  it('serves the documented early publication of the 2014-07-01 report (Friday, not the scheduled Monday)', () => {
    expect(calendar.releaseOf('2014-07-01')).toMatchObject({
      observed_at: '2014-07-04T19:30:00Z',
      method: 'release_calendar',
    });
  });

  it('rejects report dates that are not a Monday to Thursday', () => {
    expect(() => calendar.releaseOf('2025-03-15')).toThrow(RangeError);
    expect(() => calendar.releaseOf('not a date')).toThrow(/not a date/);
  });

  it('refuses an exceptions list that names a report twice', () => {
    const row = exceptions[0]!;
    expect(() => createCftcCalendar([row, row])).toThrow(/appears twice/);
  });
});

describe('createCftcCalendar: documented gaps are estimated, never early', () => {
  it.each([...GAP_REPORT_DATES])('%s is an estimate with a note', (reportDate) => {
    const time = calendar.releaseOf(reportDate);
    expect(time.method).toBe('estimated');
    expect(time.note).toMatch(/^estimated: /);
  });

  it('2013 shutdown: every undated report by the 2013-11-08 release', () => {
    for (const reportDate of ['2013-10-08', '2013-10-15', '2013-10-22', '2013-10-29']) {
      expect(calendar.releaseOf(reportDate).observed_at).toBe('2013-11-08T20:30:00Z');
    }
    // The first delayed report has its own announced date (blank time in the file).
    expect(calendar.releaseOf('2013-10-01').observed_at).toBe('2013-10-25T19:30:00Z');
  });

  it('2018-19 shutdown: no earlier than the Tuesday/Friday plan, by the 2019-03-08 release', () => {
    // Per the plan after 2019-02-01: one report each Tuesday and Friday, in order.
    const planned = ['2019-02-05', '2019-02-08', '2019-02-12', '2019-02-15', '2019-02-19', '2019-02-22'];
    planned.push('2019-02-26', '2019-03-01', '2019-03-05');
    const undated = [...GAP_REPORT_DATES].filter((d) => d >= '2018-12-31');
    expect(undated).toHaveLength(planned.length);
    undated.forEach((reportDate, index) => {
      const time = calendar.releaseOf(reportDate);
      expect(time.observed_at).toBe('2019-03-08T20:30:00Z');
      expect(time.observed_at >= newYork(planned[index]!)).toBe(true);
    });
    expect(calendar.releaseOf('2019-03-05')).toMatchObject({
      observed_at: '2019-03-08T20:30:00Z',
      note: null,
    });
  });

  it('2018-12-04 (closure on 2018-12-05, no date announced): the later Monday, estimated', () => {
    // The sourced file has no row for it (its notes: whether it was delayed is unknown), so the
    // stamp is an estimate, never a calendar fact (docs/data-sources.md).
    expect(exceptionDates.has('2018-12-04')).toBe(false);
    expect(calendar.releaseOf('2018-12-04')).toMatchObject({
      observed_at: '2018-12-10T20:30:00Z',
      method: 'estimated',
    });
    expect(calendar.releaseOf('2018-12-04').note).toContain('whether the report was delayed is unknown');
  });
});

/**
 * Releases of 2003-2009 off the Friday, from the archived CFTC release schedules of those years
 * (cftc_cot_release_exceptions.md, source A': `cftc_release_schedule_parsed.csv`, captures
 * 2004-02 to 2010-04; 2008 and most of 2009 were not captured). Report date (the Tuesday of the
 * release's week) → release day. They are test data, not calendar rows: the shared compilation
 * starts in 2010, and the calendar does not use them.
 */
const ARCHIVED_2003_2009: Record<string, string> = {
  '2003-11-25': '2003-12-01',
  '2003-12-23': '2003-12-29',
  '2003-12-30': '2004-01-05',
  // Friday 2004-06-11: national day of mourning (Reagan); the holiday table does not know it.
  '2004-06-08': '2004-06-14',
  '2004-11-09': '2004-11-15',
  '2004-11-23': '2004-11-29',
  '2004-12-21': '2004-12-27',
  '2004-12-28': '2005-01-03',
  '2005-11-08': '2005-11-14',
  '2005-11-22': '2005-11-28',
  '2006-11-07': '2006-11-13',
  '2006-11-21': '2006-11-27',
  // Tuesday 2007-01-02: national day of mourning (Ford); schedule moved from Friday 01-05.
  '2007-01-02': '2007-01-08',
  '2007-07-03': '2007-07-09',
  '2007-11-20': '2007-11-26',
  '2009-12-22': '2009-12-28',
};

describe('createCftcCalendar: before 2010 the rule errs late, never early (release_rule)', () => {
  const holidays = createUsFederalHolidays();
  const lateRule = (reportDate: string) => cftcLateRuleRelease(reportDate, holidays).release_date;
  const fridayOf = (reportDate: string) =>
    addDays(reportDate, 5 - new Date(`${reportDate}T00:00:00Z`).getUTCDay());

  it('takes over exactly where the exceptions file starts', () => {
    expect(exceptions.map((row) => row.report_date).sort()[0]).toBe(CFTC_EXCEPTIONS_KNOWN_FROM);
    expect(calendar.releaseOf(CFTC_EXCEPTIONS_KNOWN_FROM).method).toBe('release_calendar');
    expect(calendar.releaseOf(addDays(CFTC_EXCEPTIONS_KNOWN_FROM, -7)).method).toBe('release_rule');
  });

  // The justification of the one extra business day: outside shutdown catch-ups and the 2023
  // ION incident, no known release came later than it; the plain rule is early for some.
  it('is no earlier than any known release of 2010-2026 but the shutdown and ION catch-ups', () => {
    const rows = exceptions.filter((row) => !/shutdown|ION/.test(row.reason));
    expect(rows.length).toBe(59);
    expect(rows.filter((row) => lateRule(row.report_date) < row.release_date)).toEqual([]);
    const rulesEarly = rows.filter(
      (row) => cftcRuleRelease(row.report_date, holidays).release_date < row.release_date,
    );
    expect(rulesEarly.map((row) => row.report_date)).toEqual(['2014-12-23', '2025-01-07']);
    // The undated 2018-12-04 report: estimated at the Monday after the closure.
    expect(lateRule('2018-12-04')).toBe('2018-12-10');
  });

  it('is no earlier than any release of the archived 2003-2009 schedules', () => {
    const early = Object.entries(ARCHIVED_2003_2009).filter(
      ([report, released]) => lateRule(report) < released,
    );
    expect(early).toEqual([]);
    // The two one-day closures the holiday table cannot know: the plain rule would be early.
    for (const [report, released] of [
      ['2004-06-08', '2004-06-14'],
      ['2007-01-02', '2007-01-08'],
    ] as const) {
      expect(cftcRuleRelease(report, holidays).release_date < released).toBe(true);
      expect(calendar.releaseOf(report)).toMatchObject({
        observed_at: newYork(released),
        method: 'release_rule',
      });
    }
  });

  it('any report of the weekly era before 2010: one business day after the rule, 15:30 New York, with a note', () => {
    const first = Date.parse(`${CFTC_WEEKLY_SCHEDULE_KNOWN_FROM}T00:00:00Z`);
    const last = Date.parse(`${addDays(CFTC_EXCEPTIONS_KNOWN_FROM, -1)}T00:00:00Z`);
    const reportDates = fc
      .integer({ min: 0, max: Math.floor((last - first) / 86_400_000) })
      .map((days) => addDays(CFTC_WEEKLY_SCHEDULE_KNOWN_FROM, days))
      .filter((date) => [1, 2, 3, 4].includes(new Date(`${date}T00:00:00Z`).getUTCDay()));
    fc.assert(
      fc.property(reportDates, (reportDate) => {
        const time = calendar.releaseOf(reportDate);
        const rule = cftcRuleRelease(reportDate, holidays).release_date;
        expect(time.method).toBe('release_rule');
        expect(time.observed_at).toBe(newYork(holidays.nextBusinessDayAfter(rule)));
        expect(time.observed_at > newYork(fridayOf(reportDate))).toBe(true);
        expect(time.observed_at > newYork(rule)).toBe(true);
        expect(time.note).toContain(`the rule gives ${rule} 15:30 ET`);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { createCftcCalendar } from '../../../src/calendar/cftc-calendar.ts';
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
    expect(calendar.releaseOf('2018-12-04').observed_at).toBe('2018-12-10T20:30:00Z');
  });
});

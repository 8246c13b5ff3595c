import { describe, expect, it } from 'vitest';
import { cftcRuleRelease } from '../../../src/calendar/cftc-release-rule.ts';
import { createUsFederalHolidays } from '../../../src/calendar/us-federal-holidays.ts';
import { loadCftcExceptions } from './calendar-fixture.ts';

const holidays = createUsFederalHolidays();
const exceptions = await loadCftcExceptions();

/**
 * Holiday rows of the exceptions file the rule alone gets wrong, with what the rule gives and
 * why; they stay in the file as data, which wins over the rule.
 */
const UNPREDICTABLE_HOLIDAY_ROWS: Record<string, { rule: string; reason: string }> = {
  '2014-12-23': {
    rule: '2014-12-29',
    reason: 'Dec 26, 2014 was an extra federal closure by executive order, unknown to date-holidays',
  },
};

// Rows the file files under a holiday (observed days, the 2020 and 2021 extra days included).
const holidayRows = exceptions.filter((row) => /holiday|Independence Day/i.test(row.reason));

describe('cftcRuleRelease against the exception rows caused by a federal holiday', () => {
  it('finds the holiday rows of the file', () => {
    expect(holidayRows.length).toBe(58);
  });

  it.each(holidayRows)('$report_date → $release_date ($reason)', (row) => {
    const predicted = cftcRuleRelease(row.report_date, holidays).release_date;
    const unpredictable = UNPREDICTABLE_HOLIDAY_ROWS[row.report_date];
    if (unpredictable === undefined) expect(predicted).toBe(row.release_date);
    else expect(predicted).toBe(unpredictable.rule);
  });

  it('predicts the Christmas-week end of the 2025 catch-up, filed under another reason', () => {
    expect(cftcRuleRelease('2025-12-23', holidays).release_date).toBe('2025-12-29');
  });
});

describe('cftcRuleRelease: Friday of the report week, shifted past federal holidays', () => {
  it('gives the Friday when no holiday falls on Wednesday to Friday', () => {
    expect(cftcRuleRelease('2025-03-11', holidays)).toEqual({
      release_date: '2025-03-14',
      friday: '2025-03-14',
      delayed_by: [],
    });
    // Monday as-of weeks: the Tuesday holiday itself does not delay the Friday release.
    expect(cftcRuleRelease('2012-12-24', holidays).release_date).toBe('2012-12-28');
    expect(cftcRuleRelease('2023-07-03', holidays).release_date).toBe('2023-07-07');
    // A Monday holiday before a Tuesday report date does not delay either (Labor Day 2025).
    expect(cftcRuleRelease('2025-09-02', holidays).release_date).toBe('2025-09-05');
  });

  it('counts observed days, including those date-holidays files as bank substitutes', () => {
    // Veterans Day 2017 fell on a Saturday and was observed on Friday Nov 10.
    expect(cftcRuleRelease('2017-11-07', holidays)).toEqual({
      release_date: '2017-11-13',
      friday: '2017-11-10',
      delayed_by: ['2017-11-10 Veterans Day (substitute day)'],
    });
    // New Year's Day 2022 (Saturday) was observed on Friday 2021-12-31.
    expect(cftcRuleRelease('2021-12-28', holidays).release_date).toBe('2022-01-03');
  });

  it('rejects dates that are not a Monday to Thursday', () => {
    expect(() => cftcRuleRelease('2025-03-14', holidays)).toThrow(RangeError);
    expect(() => cftcRuleRelease('2025-02-30', holidays)).toThrow(/not a date/);
    expect(() => cftcRuleRelease('20250311', holidays)).toThrow(/not a date/);
  });
});

describe('createUsFederalHolidays', () => {
  it('knows Juneteenth from 2021 on and ignores observances such as Christmas Eve', () => {
    expect(holidays.holidayOn('2020-06-19')).toBeNull();
    expect(holidays.holidayOn('2021-06-18')).toBe('Juneteenth (substitute day)');
    expect(holidays.holidayOn('2025-12-24')).toBeNull();
    expect(holidays.isBusinessDay('2025-11-28')).toBe(true);
    expect(holidays.nextBusinessDayAfter('2025-12-24')).toBe('2025-12-26');
  });
});

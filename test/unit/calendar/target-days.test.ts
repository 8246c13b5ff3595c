import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Holidays from 'date-holidays';
import { describe, expect, it } from 'vitest';
import { easterSunday, isTargetClosingDay, nextTargetDayAfter } from '../../../src/calendar/target-days.ts';
import { addDays } from '../../../src/lib/zoned-time.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

/** The reference dates of the ECB's own history file: the days it published rates. */
const PUBLISHED = new Set(
  readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8')
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.slice(0, 10))
    .filter((date) => /^\d{4}-\d{2}-\d{2}$/.test(date)),
);

describe('TARGET closing days (the ECB release rule)', () => {
  it('gives exactly the days the ECB published rates, 2002 to 2025, in its real history file', () => {
    // From 2002 the TARGET calendar has its six closing days (1999-2001 had others).
    const ruleDays: string[] = [];
    for (let day = '2002-01-01'; day <= '2025-12-31'; day = addDays(day, 1)) {
      if (!isTargetClosingDay(day)) ruleDays.push(day);
    }
    const published = [...PUBLISHED].filter((day) => day >= '2002-01-01' && day <= '2025-12-31').sort();
    expect(published.length).toBeGreaterThan(6000);
    expect(ruleDays).toEqual(published);
  });

  it('computes Easter as date-holidays does (Good Friday and Easter Monday closings)', () => {
    const germany = new Holidays('DE');
    for (let year = 2000; year <= 2040; year += 1) {
      const easter = germany
        .getHolidays(year)
        .find((holiday) => holiday.rule === 'easter')
        ?.date.slice(0, 10);
      expect(easterSunday(year), String(year)).toBe(easter);
    }
  });

  it('steps over a closing day to the next TARGET day', () => {
    expect(nextTargetDayAfter('2026-04-02')).toBe('2026-04-07');
    expect(nextTargetDayAfter('2026-12-24')).toBe('2026-12-28');
    expect(nextTargetDayAfter('2026-12-31')).toBe('2027-01-04');
  });
});

// The ECB's TARGET calendar: closing days, the next business day, Easter.
import { addDays } from '../lib/zoned-time.ts';

/**
 * TARGET closing days, on which the ECB publishes no euro reference rates: Saturdays, Sundays,
 * New Year's Day, Good Friday, Easter Monday, 1 May, 25 and 26 December (the ECB's TARGET
 * calendar, unchanged since 2002). A rule, not a list: the calendar has no ad-hoc closures.
 */
export function isTargetClosingDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return true;
  const monthDay = date.slice(5);
  if (['01-01', '05-01', '12-25', '12-26'].includes(monthDay)) return true;
  const easter = easterSunday(Number(date.slice(0, 4)));
  return date === addDays(easter, -2) || date === addDays(easter, 1);
}

/** The first TARGET business day strictly after `date`. */
export function nextTargetDayAfter(date: string): string {
  let day = addDays(date, 1);
  while (isTargetClosingDay(day)) day = addDays(day, 1);
  return day;
}

/** Easter Sunday of a Gregorian year (`YYYY-MM-DD`), by the anonymous Gregorian (Meeus) algorithm. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

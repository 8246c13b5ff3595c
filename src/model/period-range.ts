/**
 * Period filters (`from`/`to` and their aliases `observation_start`/`observation_end`) as a range
 * of calendar days, and the text bounds that select the periods overlapping it.
 *
 * A stored period has one of four forms (CONTRACT section 5): `YYYY-MM-DD` (daily, weekly report
 * date), `YYYY-MM` (monthly), `YYYY-Qn` (quarterly) and `YYYY` (annual). Each covers a span of
 * days: its day, its month, its quarter, its year. A filter `from=A&to=B` is the day range
 * [first day of A, last day of B], and a period is selected when its span shares at least one day
 * with that range. Within one form, text order is time order and the periods partition the days,
 * so "the span overlaps [d, e]" is "the period of d in that form <= period <= the period of e in
 * that form": one pair of text bounds per form (periodsHoldingDay), computed once per request and
 * compared by src/query/history.ts.
 */

/** The text of one period form that holds a given day: its day, month, quarter and year. */
export interface PeriodBounds {
  day: string;
  month: string;
  quarter: string;
  year: string;
}

/** A period filter resolved to days: inclusive, `YYYY-MM-DD`; null for an open end. */
export interface PeriodRange {
  /** The first day of `from`, or null when not given. */
  firstDay: string | null;
  /** The last day of `to`, or null when not given. */
  lastDay: string | null;
}

/** The period forms a filter accepts (the same four as the stored periods). */
export const PERIOD_FILTER_FORMS = 'YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD';

const PERIOD_TEXT = /^(\d{4})(?:-(?:(\d{2})(?:-(\d{2}))?|Q([1-4])))?$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in a month of the proleptic Gregorian calendar (month 1-based). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const formatDay = (year: number, month: number, day: number) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`;

/**
 * The days a period covers, first and last (`YYYY-MM-DD`), or null when the text is not a real
 * period of one of the four forms (`2025-13`, `2025-02-30`, `2025-Q5`, `2025-6`, `2025-W23`).
 */
export function periodDaySpan(text: string): { first: string; last: string } | null {
  const match = PERIOD_TEXT.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const [, , monthText, dayText, quarterText] = match;
  if (quarterText !== undefined) {
    const lastMonth = Number(quarterText) * 3;
    return {
      first: formatDay(year, lastMonth - 2, 1),
      last: formatDay(year, lastMonth, daysInMonth(year, lastMonth)),
    };
  }
  if (monthText === undefined) return { first: formatDay(year, 1, 1), last: formatDay(year, 12, 31) };
  const month = Number(monthText);
  if (month < 1 || month > 12) return null;
  if (dayText === undefined)
    return { first: formatDay(year, month, 1), last: formatDay(year, month, daysInMonth(year, month)) };
  const day = Number(dayText);
  if (day < 1 || day > daysInMonth(year, month)) return null;
  return { first: text, last: text };
}

/** Tells whether the text is a real period of one of the four forms. */
export function isRealPeriod(text: string): boolean {
  return periodDaySpan(text) !== null;
}

/** The period of each form that holds a day `YYYY-MM-DD` (a valid one). */
export function periodsHoldingDay(day: string): PeriodBounds {
  const month = Number(day.slice(5, 7));
  return {
    day,
    month: day.slice(0, 7),
    quarter: `${day.slice(0, 4)}-Q${Math.floor((month - 1) / 3) + 1}`,
    year: day.slice(0, 4),
  };
}

/**
 * The range of days of a `from`/`to` pair of valid periods (either may be absent). Callers check
 * that the first day is not after the last one (`isEmptyRange`).
 */
export function resolvePeriodRange(from: string | null, to: string | null): PeriodRange {
  return {
    firstDay: from === null ? null : (periodDaySpan(from)?.first ?? null),
    lastDay: to === null ? null : (periodDaySpan(to)?.last ?? null),
  };
}

/** True when `from` starts after `to` ends: no day, so no period, could be selected. */
export function isEmptyRange(range: PeriodRange): boolean {
  return range.firstDay !== null && range.lastDay !== null && range.firstDay > range.lastDay;
}

/**
 * Period helpers shared by the parsers. CONTRACT section 5 allows four period formats:
 * `YYYY-MM-DD` (daily), `YYYY-MM` (monthly), `YYYY-Qn` (quarterly) and `YYYY` (annual).
 */

/** A calendar date split into its parts (month and day are 1-based). */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** The frequencies a list of observation dates can be filed under. */
export type DateFrequency = 'daily' | 'monthly' | 'quarterly' | 'annual';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const BLS_PERIOD = /^([MQA])(\d{2})$/;

/** Parses a `YYYY-MM-DD` date, or returns null when the text is not a real calendar date. */
export function parseIsoDate(text: string): CalendarDate | null {
  const match = ISO_DATE.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  // Date.UTC rolls 2025-02-30 over into March, so a round trip rejects impossible dates.
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return null;
  }
  return { year, month, day };
}

/** Tells whether the text is a `YYYY-MM` monthly period. */
export function isMonthPeriod(text: string): boolean {
  return MONTH_PERIOD.test(text);
}

/** Formats a year and month as a `YYYY-MM` period. */
export function formatMonthPeriod(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}`;
}

/**
 * Converts a BLS period code of a year to a period: `M01`..`M12` to `YYYY-MM`, `Q01`..`Q04` to
 * `YYYY-Qn`, `A01` to `YYYY`; null for any other code (callers decide which codes to skip).
 */
export function convertBlsPeriod(year: string, code: string): string | null {
  const match = BLS_PERIOD.exec(code);
  if (!match || !/^\d{4}$/.test(year)) return null;
  const number = Number(match[2]);
  if (match[1] === 'M' && number >= 1 && number <= 12) return `${year}-${match[2]}`;
  if (match[1] === 'Q' && number >= 1 && number <= 4) return `${year}-Q${number}`;
  if (match[1] === 'A' && number === 1) return year;
  return null;
}

/**
 * Infers how a series' dates should be filed: first-of-month dates are monthly, quarterly
 * (quarter-start months, steps of whole quarters) or annual (Januaries, steps of whole years);
 * anything else, and a single date, is daily, which keeps the full date and loses nothing.
 */
export function inferDateFrequency(dates: readonly CalendarDate[]): DateFrequency {
  if (dates.some((date) => date.day !== 1)) return 'daily';
  const months = [...new Set(dates.map((date) => date.year * 12 + date.month - 1))].sort((a, b) => a - b);
  if (months.length < 2) return 'daily';
  // The greatest common step tolerates gaps (a missing quarter is a step of two quarters).
  let step = 0;
  for (let index = 1; index < months.length; index++) {
    step = greatestCommonDivisor(step, (months[index] ?? 0) - (months[index - 1] ?? 0));
  }
  if (step % 12 === 0 && dates.every((date) => date.month === 1)) return 'annual';
  if (step % 3 === 0 && dates.every((date) => (date.month - 1) % 3 === 0)) return 'quarterly';
  return 'monthly';
}

/** Formats a date as a period of the given frequency. */
export function formatDatePeriod(date: CalendarDate, frequency: DateFrequency): string {
  switch (frequency) {
    case 'annual':
      return String(date.year);
    case 'quarterly':
      return `${date.year}-Q${Math.floor((date.month - 1) / 3) + 1}`;
    case 'monthly':
      return formatMonthPeriod(date.year, date.month);
    case 'daily':
      return `${formatMonthPeriod(date.year, date.month)}-${String(date.day).padStart(2, '0')}`;
  }
}

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

import Holidays from 'date-holidays';
import { addDays } from '../lib/zoned-time.ts';

/** U.S. federal holidays and business days, as the CFTC's release rule needs them. */
export interface UsFederalHolidays {
  /** The holiday's name when `date` (`YYYY-MM-DD`) is a federal holiday or its observed day, else null. */
  holidayOn(date: string): string | null;
  /** True on Monday to Friday when the day is not a federal holiday (or observed day). */
  isBusinessDay(date: string): boolean;
  /** The first business day strictly after `date`. */
  nextBusinessDayAfter(date: string): string;
}

/**
 * Creates the federal-holiday lookup from `date-holidays` (country US): the public holidays plus
 * their observed (substitute) days, cached per year.
 */
export function createUsFederalHolidays(): UsFederalHolidays {
  const holidays = new Holidays('US');
  const byYear = new Map<number, Map<string, string>>();

  function daysOf(year: number): Map<string, string> {
    let days = byYear.get(year);
    if (days === undefined) {
      days = new Map();
      for (const holiday of holidays.getHolidays(year)) {
        // date-holidays files some observed days (Veterans Day moved to a Friday or Monday) as
        // 'bank' substitutes; the federal government closes on them as on the holiday itself.
        const federal = holiday.type === 'public' || (holiday.substitute === true && holiday.type === 'bank');
        // `date` is the local wall date ("2021-12-31 00:00:00"): its prefix is zone-independent.
        if (federal && !days.has(holiday.date.slice(0, 10)))
          days.set(holiday.date.slice(0, 10), holiday.name);
      }
      byYear.set(year, days);
    }
    return days;
  }

  const holidayOn = (date: string): string | null => daysOf(Number(date.slice(0, 4))).get(date) ?? null;

  const isBusinessDay = (date: string): boolean => {
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    return weekday !== 0 && weekday !== 6 && holidayOn(date) === null;
  };

  return {
    holidayOn,
    isBusinessDay,
    nextBusinessDayAfter(date) {
      let day = addDays(date, 1);
      while (!isBusinessDay(day)) day = addDays(day, 1);
      return day;
    },
  };
}

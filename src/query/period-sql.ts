/**
 * A period range in SQL: the bound parameters and the condition every history read uses to keep
 * the periods with a day in the range (model/period-range.ts resolves the range).
 */
import { type PeriodBounds, type PeriodRange, periodsHoldingDay } from '../model/period-range.ts';

/** Above every period (they start with a digit): the upper bounds of an open end. */
const AFTER_EVERY_PERIOD = '~';

/**
 * The parameters of periodRangeSql for a range of days: per period form, the period holding the
 * first day and the one holding the last day (model/period-range.ts); '' below every period
 * for an open start, '~' above every period for an open end.
 */
export function bindPeriodRange(range: PeriodRange): Record<string, string> {
  const lower: PeriodBounds = range.firstDay
    ? periodsHoldingDay(range.firstDay)
    : { day: '', month: '', quarter: '', year: '' };
  const upper: PeriodBounds = range.lastDay
    ? periodsHoldingDay(range.lastDay)
    : {
        day: AFTER_EVERY_PERIOD,
        month: AFTER_EVERY_PERIOD,
        quarter: AFTER_EVERY_PERIOD,
        year: AFTER_EVERY_PERIOD,
      };
  return {
    from_day: lower.day,
    from_month: lower.month,
    from_quarter: lower.quarter,
    from_year: lower.year,
    to_day: upper.day,
    to_month: upper.month,
    to_quarter: upper.quarter,
    to_year: upper.year,
  };
}

/** SQL: the bound of one side for the form of the period in `column` (by length, then the `Q`). */
function boundForForm(column: string, side: 'from' | 'to'): string {
  return `CASE length(${column}) WHEN 10 THEN $${side}_day WHEN 4 THEN $${side}_year
              ELSE CASE WHEN substr(${column}, 6, 1) = 'Q' THEN $${side}_quarter ELSE $${side}_month END END`;
}

/**
 * SQL condition, with the parameters of bindPeriodRange: the period in `column` has a day in the
 * range. Within one period form text order is time order and the periods tile the calendar, so a
 * period overlaps [first, last] exactly when it lies between the period of its form holding
 * `first` and the one holding `last` (the CASE comparisons). The first two comparisons are implied
 * by those but are plain comparisons of the column with a parameter, which DuckDB pushes into the
 * Parquet scan to skip row groups (the files are sorted by series and period): over all forms the
 * year of the first day is the lowest bound (`2025` < `2025-01` < `2025-01-01` < `2025-Q1`) and the
 * quarter of the last day the highest (`2025-Q2` > any `2025-…` with a digit there), so they let
 * through at most a year more on each side. A text of no known form (none is stored) is compared
 * with the month bounds.
 */
export function periodRangeSql(column: string): string {
  return `${column} >= $from_year AND ${column} <= $to_quarter
          AND ${column} >= ${boundForForm(column, 'from')}
          AND ${column} <= ${boundForForm(column, 'to')}`;
}

import { periodDaySpan } from '../model/period-range.ts';
import {
  AVERAGE_EXTRA_DECIMALS,
  FREQUENCY_OF_CODE,
  PERIODS_PER_YEAR,
  type SeriesFrequency,
  type TransformAggregation,
  type TransformFrequency,
  type TransformNote,
  type TransformUnits,
} from '../model/transforms.ts';
import { decimalAggregate, decimalsOf, roundTo } from './decimal-arithmetic.ts';
import type { InForceRow } from './history-rows.ts';

/**
 * The transforms of docs/api/transforms.md over the values in force at as_of (the rows of
 * readValuesInForceAsOf): aggregation to a coarser frequency, then FRED's units. Plain
 * TypeScript over already selected rows, so that it cannot see a revision later than as_of;
 * endpoints 5 and 8, JSON and CSV, all go through `transformSeries`.
 */

/** What to apply: frequency and aggregation (both null: none), and the units code. */
export interface TransformSpec {
  frequency: TransformFrequency | null;
  aggregation: TransformAggregation | null;
  units: TransformUnits;
}

/** One transformed period. */
export interface TransformedRow {
  /** The period (of the target frequency when aggregated; a week is labelled by its Friday). */
  period: string;
  /** The value after aggregation and units; null with a note when it cannot be computed. */
  value: number | null;
  /** The value after as_of selection and aggregation, before units. */
  level: number | null;
  /** How many values in force went into the level (1 without aggregation). */
  source_values: number;
  /** Whether the values known at as_of cover the whole period (always true without aggregation). */
  complete: boolean;
  /** The latest knowledge time of every value the row was computed from. */
  observed_at: string;
  note: TransformNote | null;
}

const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayText = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The frequency a period's text implies, for a series the catalog does not describe. */
export function frequencyOfPeriod(period: string): SeriesFrequency {
  if (period.length === 4) return 'annual';
  if (period.includes('Q')) return 'quarterly';
  return period.length === 7 ? 'monthly' : 'daily';
}

/** The first day of the week ending Friday that holds a day (Saturday), and that Friday. */
function weekEndingFriday(day: string): string {
  const n = dayNumber(day);
  // 1970-01-01 was a Thursday: (n + 4) % 7 is the weekday, 0 = Sunday, 5 = Friday.
  const weekday = (((n + 4) % 7) + 7) % 7;
  return dayText(n + ((5 - weekday + 7) % 7));
}

/** The period of the target frequency that holds a source period. */
export function targetPeriod(period: string, frequency: TransformFrequency): string {
  const year = period.slice(0, 4);
  if (frequency === 'a') return year;
  if (frequency === 'q') {
    if (period.includes('Q')) return period;
    return `${year}-Q${Math.floor((Number(period.slice(5, 7)) - 1) / 3) + 1}`;
  }
  if (frequency === 'm') return period.slice(0, 7);
  return weekEndingFriday(period);
}

/** The days a target period covers (a week: Saturday to its Friday). */
function targetSpan(period: string, frequency: TransformFrequency): { first: string; last: string } {
  if (frequency === 'w') return { first: dayText(dayNumber(period) - 6), last: period };
  return periodDaySpan(period)!;
}

/** Source periods in one target period when the series is monthly or quarterly; null for daily and weekly. */
function expectedCount(source: SeriesFrequency, frequency: TransformFrequency): number | null {
  if (source === 'monthly') return frequency === 'q' ? 3 : 12;
  if (source === 'quarterly') return 4;
  return null;
}

const maxTime = (a: string, b: string) => (a > b ? a : b);

interface Level {
  period: string;
  level: number | null;
  source_values: number;
  complete: boolean;
  observed_at: string;
  note: TransformNote | null;
}

/** Step 2: aggregation of the values in force to the target frequency (or the values as they are). */
function aggregate(
  rows: readonly InForceRow[],
  source: SeriesFrequency,
  frequency: TransformFrequency | null,
  aggregation: TransformAggregation,
): Level[] {
  const finite = (value: number) => (Number.isFinite(value) ? value : null);
  if (frequency === null)
    return rows.map((row) => ({
      period: row.period,
      level: finite(row.value),
      source_values: 1,
      complete: true,
      observed_at: row.observed_at,
      note: Number.isFinite(row.value) ? null : 'not_finite',
    }));
  const groups = new Map<string, InForceRow[]>();
  for (const row of rows) {
    const label = targetPeriod(row.period, frequency);
    const group = groups.get(label);
    if (group) group.push(row);
    else groups.set(label, [row]);
  }
  const expected = expectedCount(source, frequency);
  const firstDay = rows.length ? periodDaySpan(rows[0]!.period)!.first : '';
  const lastDay = rows.length ? periodDaySpan(rows.at(-1)!.period)!.last : '';
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([period, members]) => {
      const span = targetSpan(period, frequency);
      const complete =
        expected !== null ? members.length === expected : firstDay <= span.first && lastDay >= span.last;
      const observed_at = members.map((m) => m.observed_at).reduce(maxTime);
      const base = { period, source_values: members.length, complete, observed_at };
      if (members.some((m) => !Number.isFinite(m.value))) return { ...base, level: null, note: 'not_finite' };
      if (!complete && aggregation !== 'avg') return { ...base, level: null, note: 'incomplete_period' };
      const level =
        aggregation === 'eop'
          ? members.at(-1)!.value
          : decimalAggregate(
              members.map((m) => m.value),
              aggregation,
              AVERAGE_EXTRA_DECIMALS,
            );
      return { ...base, level, note: null };
    });
}

/** The period just before, for monthly, quarterly and annual periods. */
function previousPeriod(period: string): string {
  const year = Number(period.slice(0, 4));
  if (period.length === 4) return String(year - 1).padStart(4, '0');
  if (period.includes('Q')) {
    const quarter = Number(period.slice(6));
    return quarter === 1
      ? `${String(year - 1).padStart(4, '0')}-Q4`
      : `${period.slice(0, 4)}-Q${quarter - 1}`;
  }
  const month = Number(period.slice(5, 7));
  return month === 1
    ? `${String(year - 1).padStart(4, '0')}-12`
    : `${period.slice(0, 4)}-${String(month - 1).padStart(2, '0')}`;
}

/**
 * The same period a year earlier, by its label (2024-03 for 2025-03, 2024-Q1, 2024-03-14); a
 * week 52 weeks (364 days) earlier, since no week has the same date a year on.
 */
function yearAgoPeriod(period: string, weekly: boolean): string {
  if (weekly) return dayText(dayNumber(period) - 364);
  return `${String(Number(period.slice(0, 4)) - 1).padStart(4, '0')}${period.slice(4)}`;
}

type UnitsResult = { value: number | null; note: TransformNote | null };

/** FRED's formulas (docs/api/transforms.md); null with a note where the value has no meaning. */
function applyUnits(
  units: TransformUnits,
  x: number,
  previous: number | null,
  yearAgo: number | null,
  n: number,
): UnitsResult {
  const lag = units === 'ch1' || units === 'pc1' ? yearAgo : previous;
  const needsLag = units !== 'lin' && units !== 'log';
  if (needsLag && lag === null)
    return {
      value: null,
      note: units === 'ch1' || units === 'pc1' ? 'no_year_ago_value' : 'no_previous_value',
    };
  const base = lag as number;
  let value: number;
  switch (units) {
    case 'lin':
      value = x;
      break;
    case 'chg':
    case 'ch1':
      // A difference of decimals is exact at the most decimals of the two (meta.transform.rounding).
      value = roundTo(x - base, Math.max(decimalsOf(x), decimalsOf(base)));
      break;
    case 'pch':
    case 'pc1':
      if (base <= 0) return { value: null, note: 'non_positive_base' };
      value = (x / base - 1) * 100;
      break;
    case 'pca':
      if (base <= 0) return { value: null, note: 'non_positive_base' };
      if (x < 0) return { value: null, note: 'negative_ratio' };
      value = ((x / base) ** n - 1) * 100;
      break;
    case 'cch':
    case 'cca':
      if (base <= 0) return { value: null, note: 'non_positive_base' };
      if (x <= 0) return { value: null, note: 'non_positive_value' };
      value = (Math.log(x) - Math.log(base)) * 100 * (units === 'cca' ? n : 1);
      break;
    case 'log':
      if (x <= 0) return { value: null, note: 'non_positive_value' };
      value = Math.log(x);
      break;
  }
  return Number.isFinite(value) ? { value, note: null } : { value: null, note: 'not_finite' };
}

/** The frequency of the transformed periods, and its n (FRED's n_obs_per_yr). */
export function outputFrequency(source: SeriesFrequency, frequency: TransformFrequency | null) {
  const output = frequency === null ? source : FREQUENCY_OF_CODE[frequency];
  return { frequency: output, periodsPerYear: PERIODS_PER_YEAR[output] };
}

/**
 * Steps 2 and 3 over the values in force (step 1): aggregation, then units. The previous value
 * is the previous period by label for monthly, quarterly and annual periods (a gap gives null),
 * and the previous value of the series for daily and weekly ones (no values on weekends);
 * a year ago is the same label a year earlier (weeks: 52 weeks earlier).
 */
export function transformSeries(
  rows: readonly InForceRow[],
  source: SeriesFrequency,
  spec: TransformSpec,
): TransformedRow[] {
  const levels = aggregate(rows, source, spec.frequency, spec.aggregation ?? 'avg');
  const { frequency, periodsPerYear } = outputFrequency(source, spec.frequency);
  const byPeriod = new Map(levels.map((level) => [level.period, level]));
  const byLabel = frequency === 'monthly' || frequency === 'quarterly' || frequency === 'annual';
  return levels.map((row, i) => {
    const previous = byLabel ? byPeriod.get(previousPeriod(row.period)) : levels[i - 1];
    const yearAgo = byPeriod.get(yearAgoPeriod(row.period, frequency === 'weekly'));
    // The fields in the order of the JSON rows and the CSV columns.
    const present = (value: number | null, observed_at: string, note: TransformNote | null) => ({
      period: row.period,
      value,
      level: row.level,
      source_values: row.source_values,
      complete: row.complete,
      observed_at,
      note,
    });
    if (row.level === null) return present(null, row.observed_at, row.note);
    const result = applyUnits(
      spec.units,
      row.level,
      previous?.level ?? null,
      yearAgo?.level ?? null,
      periodsPerYear,
    );
    // The row is known once every value it was computed from is known (the lag too, when used).
    const lag = spec.units === 'ch1' || spec.units === 'pc1' ? yearAgo : previous;
    const usesLag = spec.units !== 'lin' && spec.units !== 'log' && lag !== undefined;
    return present(
      result.value,
      usesLag ? maxTime(row.observed_at, lag.observed_at) : row.observed_at,
      result.note,
    );
  });
}

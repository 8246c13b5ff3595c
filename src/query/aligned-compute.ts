import { periodDaySpan } from '../model/period-range.ts';
import type { SeriesFrequency } from '../model/transforms.ts';
import { targetPeriod } from './transforms-compute.ts';

/**
 * The alignment of /api/v1/observations/aligned (docs/api/aligned.md) over values already
 * selected at as_of: plain TypeScript, so that it cannot see a revision later than as_of. The
 * target periods and their days are the transforms' (query/transforms-compute.ts): a week ends
 * on Friday and is labelled by that Friday, a month is YYYY-MM.
 */

/** The target frequencies of the alignment. */
export const ALIGNED_FREQUENCIES = ['w', 'm'] as const;
export type AlignedFrequency = (typeof ALIGNED_FREQUENCIES)[number];

/** How a period without a value of its own is filled; ffill is the default. */
export const ALIGNED_FILLS = ['ffill', 'none'] as const;
export type AlignedFill = (typeof ALIGNED_FILLS)[number];

/**
 * How a series' periods meet the target periods: `end_of_period` for a series as fine as the
 * target or finer (its last value in the period), `containing_period` for a coarser one (the
 * value of the period that holds the target period's days).
 */
export type AlignedMapping = 'end_of_period' | 'containing_period';

/** One value of a series in force at as_of. */
export interface AlignedPoint {
  period: string;
  value: number | null;
}

/** One aligned row: the target period and one value per series, and whether it was carried forward. */
export interface AlignedRow {
  period: string;
  values: Array<number | null>;
  filled: boolean[];
}

const RANK: Readonly<Record<SeriesFrequency, number>> = {
  daily: 0,
  weekly: 1,
  monthly: 2,
  quarterly: 3,
  annual: 4,
};
const TARGET_RANK: Readonly<Record<AlignedFrequency, number>> = { w: 1, m: 2 };

/** How a series of this frequency maps to the target frequency. */
export function alignedMapping(source: SeriesFrequency, frequency: AlignedFrequency): AlignedMapping {
  return RANK[source] <= TARGET_RANK[frequency] ? 'end_of_period' : 'containing_period';
}

const DAY_MS = 86_400_000;

/** The target period after one (the next Friday, the next month). */
export function nextTargetPeriod(period: string, frequency: AlignedFrequency): string {
  if (frequency === 'w')
    return new Date(Date.parse(`${period}T00:00:00Z`) + 7 * DAY_MS).toISOString().slice(0, 10);
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  return month === 12
    ? `${String(year + 1).padStart(4, '0')}-01`
    : `${period.slice(0, 4)}-${String(month + 1).padStart(2, '0')}`;
}

/** The target period before one. */
export function previousTargetPeriod(period: string, frequency: AlignedFrequency): string {
  if (frequency === 'w')
    return new Date(Date.parse(`${period}T00:00:00Z`) - 7 * DAY_MS).toISOString().slice(0, 10);
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  return month === 1
    ? `${String(year - 1).padStart(4, '0')}-12`
    : `${period.slice(0, 4)}-${String(month - 1).padStart(2, '0')}`;
}

/** The target period that holds a day. */
const targetOfDay = (day: string, frequency: AlignedFrequency) => targetPeriod(day, frequency);

/**
 * Per target period the series' own value: the value of the latest of its periods (in period
 * order) that has a day in the target period. A value that is not a finite number counts as none.
 */
export function ownValues(points: readonly AlignedPoint[], frequency: AlignedFrequency): Map<string, number> {
  const own = new Map<string, number>();
  for (const point of points) {
    if (point.value === null || !Number.isFinite(point.value)) continue;
    const span = periodDaySpan(point.period);
    if (!span) continue;
    const last = targetOfDay(span.last, frequency);
    for (let t = targetOfDay(span.first, frequency); t <= last; t = nextTargetPeriod(t, frequency))
      own.set(t, point.value);
  }
  return own;
}

/** The days every series' periods cover together (null when no series has a value). */
function dataExtent(series: ReadonlyArray<readonly AlignedPoint[]>): { first: string; last: string } | null {
  let first: string | null = null;
  let last: string | null = null;
  for (const points of series) {
    for (const point of points) {
      if (point.value === null || !Number.isFinite(point.value)) continue;
      const span = periodDaySpan(point.period);
      if (!span) continue;
      if (first === null || span.first < first) first = span.first;
      if (last === null || span.last > last) last = span.last;
    }
  }
  return first === null || last === null ? null : { first, last };
}

/**
 * The aligned rows: one per target period from the first to the last that holds a day of any
 * series' values, and a day of the range [firstDay, lastDay] when given, one value per series in the
 * order given. A period without a value of its own takes, with ffill, the previous period's own
 * value (at most one period: a carried value is never carried again); with none it is null.
 */
export function alignSeries(
  series: ReadonlyArray<readonly AlignedPoint[]>,
  frequency: AlignedFrequency,
  fill: AlignedFill,
  range: { firstDay: string | null; lastDay: string | null },
): AlignedRow[] {
  const calendar = alignedCalendar(series, frequency, range);
  if (!calendar) return [];
  const { first, last } = calendar;
  const own = series.map((points) => ownValues(points, frequency));
  const rows: AlignedRow[] = [];
  for (let t = first; t <= last; t = nextTargetPeriod(t, frequency)) {
    const previous = previousTargetPeriod(t, frequency);
    const values: Array<number | null> = [];
    const filled: boolean[] = [];
    for (const seriesOwn of own) {
      const value = seriesOwn.get(t);
      if (value !== undefined) {
        values.push(value);
        filled.push(false);
        continue;
      }
      const carried = fill === 'ffill' ? seriesOwn.get(previous) : undefined;
      values.push(carried ?? null);
      filled.push(carried !== undefined);
    }
    rows.push({ period: t, values, filled });
  }
  return rows;
}

/**
 * The first and last rows of the calendar: the target periods holding the first and the last day
 * of any series' values, cut to those holding a day of the range; null when no row remains.
 */
export function alignedCalendar(
  series: ReadonlyArray<readonly AlignedPoint[]>,
  frequency: AlignedFrequency,
  range: { firstDay: string | null; lastDay: string | null },
): { first: string; last: string } | null {
  const extent = dataExtent(series);
  if (!extent) return null;
  // The periods holding a day of the data, cut to those holding a day of the range.
  const dataFirst = targetOfDay(extent.first, frequency);
  const dataLast = targetOfDay(extent.last, frequency);
  const rangeFirst = range.firstDay === null ? null : targetOfDay(range.firstDay, frequency);
  const rangeLast = range.lastDay === null ? null : targetOfDay(range.lastDay, frequency);
  const first = rangeFirst !== null && rangeFirst > dataFirst ? rangeFirst : dataFirst;
  const last = rangeLast !== null && rangeLast < dataLast ? rangeLast : dataLast;
  return first > last ? null : { first, last };
}

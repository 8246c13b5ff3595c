import { formatTimestamp } from '../lib/zoned-time.ts';
import { periodDaySpan } from '../model/period-range.ts';
import type { StoredRevision } from './aligned.ts';
import {
  type AlignedFill,
  type AlignedFrequency,
  type AlignedPoint,
  type AlignedRow,
  nextTargetPeriod,
  previousTargetPeriod,
} from './aligned-compute.ts';
import { targetPeriod } from './transforms-compute.ts';

/**
 * The point-in-time panel of /api/v1/observations/aligned?as_of=row (docs/api/aligned.md): each
 * row with every series as known at the end of the row's last day (UTC), computed in plain
 * TypeScript from every revision of each series, read once (query/aligned.ts), never one query
 * per row. A cell is what alignSeries (aligned-compute.ts) gives for the row over the values in
 * force at the row's instant: the series' own value of the row, else with ffill its own value of
 * the previous row, both as known at that instant.
 */

/** One period of a series and its revisions (value and knowledge time), in revision order. */
export interface PeriodHistory {
  period: string;
  revisions: Array<{ revision_number: number; observed_us: number; value: number | null }>;
}

/** A panel row: the period, the instant it is as known at, its values and fill flags. */
export interface PanelRow {
  period: string;
  as_of: string;
  values: Array<number | null>;
  filled: boolean[];
}

/** Groups revisions (ordered by period, then revision) by period, each with the value a column reads. */
export function groupRevisions<T>(
  rows: ReadonlyArray<StoredRevision<T>>,
  read: (fields: T) => number | null,
): PeriodHistory[] {
  const out: PeriodHistory[] = [];
  for (const row of rows) {
    let last = out.at(-1);
    if (last?.period !== row.period) {
      last = { period: row.period, revisions: [] };
      out.push(last);
    }
    last.revisions.push({
      revision_number: row.revision_number,
      observed_us: row.observed_us,
      value: read(row.fields),
    });
  }
  return out;
}

/**
 * The revision in force at an instant (epoch microseconds): the highest revision observed at or
 * before it, as the as_of queries choose it; undefined when none was known then.
 */
function inForceAt(history: PeriodHistory, us: number): { value: number | null } | undefined {
  let found: PeriodHistory['revisions'][number] | undefined;
  for (const revision of history.revisions)
    if (revision.observed_us <= us && (!found || revision.revision_number > found.revision_number))
      found = revision;
  return found;
}

/** The values in force in the snapshot (its latest revision per period): the rows' calendar. */
export function latestPoints(histories: readonly PeriodHistory[]): AlignedPoint[] {
  return histories.map((history) => ({
    period: history.period,
    value: inForceAt(history, Number.POSITIVE_INFINITY)?.value ?? null,
  }));
}

/**
 * The instant a row is known at: 23:59:59Z of its last day (the week's Friday, the month's last
 * day), or `now` in whole seconds when that is still ahead (the current week or month).
 */
export function rowInstant(period: string, now: Date): string {
  const end = `${periodDaySpan(period)!.last}T23:59:59Z`;
  const current = formatTimestamp(now);
  return end < current ? end : current;
}

/** Per target period the series' periods holding a day of it, in period order. */
function periodsByTarget(histories: readonly PeriodHistory[], frequency: AlignedFrequency) {
  const index = new Map<string, PeriodHistory[]>();
  for (const history of histories) {
    const span = periodDaySpan(history.period);
    if (!span) continue;
    const last = targetPeriod(span.last, frequency);
    for (let t = targetPeriod(span.first, frequency); t <= last; t = nextTargetPeriod(t, frequency)) {
      const list = index.get(t);
      if (list) list.push(history);
      else index.set(t, [history]);
    }
  }
  return index;
}

/**
 * A series' own value of a target period as known at an instant: the value in force then of the
 * latest of its periods holding a day of the target whose value then is a finite number.
 */
function ownValueAt(periods: readonly PeriodHistory[] | undefined, us: number): number | undefined {
  if (!periods) return undefined;
  for (let i = periods.length - 1; i >= 0; i -= 1) {
    const value = inForceAt(periods[i]!, us)?.value;
    if (value !== undefined && value !== null && Number.isFinite(value)) return value;
  }
  return undefined;
}

/** The panel rows of the given periods (a page of the calendar), one value per series in the order given. */
export function panelRows(
  series: ReadonlyArray<readonly PeriodHistory[]>,
  periods: readonly string[],
  frequency: AlignedFrequency,
  fill: AlignedFill,
  now: Date,
): PanelRow[] {
  const indexes = series.map((histories) => periodsByTarget(histories, frequency));
  return periods.map((period) => {
    const asOf = rowInstant(period, now);
    const us = Date.parse(asOf) * 1000;
    const previous = previousTargetPeriod(period, frequency);
    const row: AlignedRow = { period, values: [], filled: [] };
    for (const index of indexes) {
      const own = ownValueAt(index.get(period), us);
      const carried = own === undefined && fill === 'ffill' ? ownValueAt(index.get(previous), us) : undefined;
      row.values.push(own ?? carried ?? null);
      row.filled.push(carried !== undefined);
    }
    return { period, as_of: asOf, values: row.values, filled: row.filled };
  });
}

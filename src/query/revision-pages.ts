import { resolvePeriodRange } from '../model/period-range.ts';
import type { HistoryQuery } from './history-rows.ts';
import { bindPeriodRange } from './period-sql.ts';
import type { RevisionBlock } from './revision-block.ts';

/**
 * Choosing a page of a series' revisions from its block (revision-cache.ts) exactly as the SQL of
 * history.ts chooses it: the period range, as_of, the cursor and the page size. Only indices into
 * the block come out; the rows' bytes stay the block's.
 */

/**
 * The period filter of periodRangeSql (history.ts) in JavaScript: per period form (by length,
 * then a `Q` at position 6) the bounds of bindPeriodRange, plus the two plain comparisons.
 */
export function resolvePeriodFilter(query: HistoryQuery): (period: string) => boolean {
  if (query.from === null && query.to === null) return () => true;
  const range = resolvePeriodRange(query.from, query.to);
  // The same bounds the SQL is bound with.
  const b = bindPeriodRange(range);
  const bound = (period: string, side: 'from' | 'to') => {
    if (period.length === 10) return b[`${side}_day`]!;
    if (period.length === 4) return b[`${side}_year`]!;
    return period[5] === 'Q' ? b[`${side}_quarter`]! : b[`${side}_month`]!;
  };
  return (period) =>
    period >= b.from_year! &&
    period <= b.to_quarter! &&
    period >= bound(period, 'from') &&
    period <= bound(period, 'to');
}

/**
 * The page: the revisions observed at or before as_of in a period of the range and not before
 * the cursor's period are "known"; a known row is in force when the next known row has another
 * period (lead(period) in the SQL); the rows after the cursor's (period, revision), limit + 1 of
 * them, tell the page and whether more follow.
 */
export function computePage(
  block: RevisionBlock,
  asOfUs: number,
  inRange: (period: string) => boolean,
  after: HistoryQuery['after'],
  limit: number,
): { indices: number[]; inForce: boolean[]; more: boolean } {
  const { periods, revisions, observedUs } = block;
  const indices: number[] = [];
  const flags: boolean[] = [];
  const afterPeriod = after?.period ?? '';
  const afterRevision = after?.revision_number ?? 0;
  // The previous known row, waiting for the next to tell whether it is in force.
  let pending = -1;
  let rangePeriod: string | null = null;
  let rangeOk = false;
  const emit = (i: number, inForce: boolean) => {
    const period = periods[i]!;
    if (
      afterPeriod === '' ||
      period > afterPeriod ||
      (period === afterPeriod && revisions[i]! > afterRevision)
    ) {
      indices.push(i);
      flags.push(inForce);
    }
  };
  for (let i = 0; i < block.count && indices.length <= limit; i++) {
    if (observedUs[i]! > asOfUs) continue;
    const period = periods[i]!;
    if (period !== rangePeriod) {
      rangePeriod = period;
      rangeOk = inRange(period) && (afterPeriod === '' || period >= afterPeriod);
    }
    if (!rangeOk) continue;
    if (pending >= 0) emit(pending, periods[pending] !== period);
    pending = i;
  }
  if (pending >= 0 && indices.length <= limit) emit(pending, true);
  const more = indices.length > limit;
  if (more) {
    indices.length = limit;
    flags.length = limit;
  }
  return { indices, inForce: flags, more };
}

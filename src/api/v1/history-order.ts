import type { RequestParams } from '../../contract/parse-request.ts';
import type { HistoryCursor } from './cursor.ts';

/**
 * `sort_order` of the history endpoints (docs/api/history-and-as-of.md): asc (default) oldest
 * period first, desc newest first. The payloads that compute their rows in memory (public history,
 * transforms, aligned) page them here; the SQL pages of history.ts and revisions.ts take the same
 * order (HistoryQuery.order).
 */
export type SortOrder = 'asc' | 'desc';

/** The order a request asks for. */
export function requestedOrder(params: RequestParams): SortOrder {
  return params.query.sort_order === 'desc' ? 'desc' : 'asc';
}

/**
 * One page of rows held oldest period first (one row per period): in the order asked, after the
 * cursor's period (later periods for asc, earlier for desc), at most `limit` rows.
 */
export function pageByPeriod<T extends { period: string }>(
  rows: readonly T[],
  order: SortOrder,
  after: HistoryCursor | null,
  limit: number,
): { rows: T[]; more: boolean } {
  const ordered = order === 'desc' ? [...rows].reverse() : rows;
  const selected = after
    ? ordered.filter((row) => (order === 'desc' ? row.period < after.period : row.period > after.period))
    : ordered;
  return { rows: selected.slice(0, limit), more: selected.length > limit };
}

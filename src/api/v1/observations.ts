import type { Payload } from '../../contract/envelope.ts';
import { invalidParameter, notFound } from '../../contract/errors.ts';
import { PARAMS } from '../../contract/params.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import {
  type HistoryPage,
  type HistoryQuery,
  type ObservationRow,
  readObservationHistory,
  readSeriesInfo,
  type SeriesInfo,
} from '../../query/history.ts';
import { presentObservation } from '../../query/revision-block.ts';
import type { PayloadFunction } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { requestedOrder } from './history-order.ts';
import { describeSeries } from './series-summary.ts';
import { presentTransformedHistory, requestedTransform } from './transforms.ts';
import { presentVintageView, requestedVintageView } from './vintages.ts';

/** Rows per page when the request names no `limit` (CONTRACT section 6). */
export const DEFAULT_LIMIT = 1000;

/**
 * Reads the history parameters shared by endpoints 3 (keyed), 5 and 8: as_of (never after
 * `now`), the period range, the page size and where the previous page ended. Formats were
 * checked by parseRequest, which also moved observation_start/observation_end to from/to and
 * refused a range that starts after it ends; what is left is what needs the clock or the cursor
 * codec. The query layer turns from/to into days (model/period-range.ts).
 */
export function resolveHistoryQuery(params: RequestParams, now: Date): HistoryQuery {
  const { as_of: asOf, from, to, limit, cursor } = params.query;
  // Normalised by parseRequest: a day alone is its last second, so today's date is still ahead.
  if (typeof asOf === 'string' && Date.parse(asOf) > now.getTime())
    throw invalidParameter('as_of', `${PARAMS.as_of.expected} (read as ${asOf}, which is after now)`);
  return {
    asOf: typeof asOf === 'string' ? asOf : null,
    from: typeof from === 'string' ? from : null,
    to: typeof to === 'string' ? to : null,
    after: typeof cursor === 'string' ? decodeCursor(cursor) : null,
    limit: typeof limit === 'number' ? limit : DEFAULT_LIMIT,
    order: requestedOrder(params),
  };
}

/** The meta fields every history payload shares: knowledge time, filters and the next page. */
export function describeHistoryPage(
  query: HistoryQuery,
  last: { period: string; revision_number: number } | undefined,
  more: boolean,
) {
  return {
    as_of: query.asOf,
    filters: { from: query.from, to: query.to },
    sort_order: query.order ?? 'asc',
    next_cursor: more && last ? encodeCursor(last) : null,
  };
}

/**
 * Shapes one page of a series' revision records with their provenance, and the series'
 * catalog description; shared by endpoint 8 and endpoint 5 so that one row layout (and one
 * CSV layout) serves both.
 */
export function presentSeriesHistory(
  series: SeriesInfo,
  query: HistoryQuery,
  page: HistoryPage<ObservationRow>,
): Payload {
  return {
    data: page.rows.map(presentObservation),
    meta: describeSeriesHistory(series, query, page.rows.at(-1), page.more),
  };
}

/** The meta of a page of endpoints 5 and 8: the series, knowledge time, filters, next page and rights. */
export function describeSeriesHistory(
  series: SeriesInfo,
  query: HistoryQuery,
  last: { period: string; revision_number: number } | undefined,
  more: boolean,
): Record<string, unknown> {
  return {
    view: 'revisions',
    series: describeSeries(series),
    ...describeHistoryPage(query, last, more),
    licence: series.licence,
    attribution: series.attribution,
  };
}

/**
 * Endpoint 8: every revision of every period of one series with full provenance, or with
 * as_of only what was known then, the revision in force marked. Keyed callers see licensed
 * series too; only an unknown key is a 404.
 */
export const getObservations: PayloadFunction = async ({ db, now }, params) => {
  const key = String(params.query.series);
  // realtime_start/realtime_end, output_type or vintage_dates: ALFRED's view (docs/api/vintages.md).
  const vintages = requestedVintageView(params, now);
  if (vintages) {
    const info = await readSeriesInfo(db, key);
    if (!info) throw notFound(`series ${key}`);
    return presentVintageView(db, info, vintages);
  }
  const query = resolveHistoryQuery(params, now);
  // units, frequency or aggregation: one transformed row per period (docs/api/transforms.md).
  const transform = requestedTransform(params);
  if (transform) {
    const info = await readSeriesInfo(db, key);
    if (!info) throw notFound(`series ${key}`);
    return presentTransformedHistory(db, info, query, transform);
  }
  // Both reads start at once; the rows of an unknown key are simply dropped.
  const [series, page] = await Promise.all([readSeriesInfo(db, key), readObservationHistory(db, key, query)]);
  if (!series) throw notFound(`series ${key}`);
  return presentSeriesHistory(series, query, page);
};

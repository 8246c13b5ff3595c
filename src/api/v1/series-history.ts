import { notFound } from '../../contract/errors.ts';
import { CSV_PATH_SUFFIX } from '../../contract/routes.ts';
import { periodDaySpan, resolvePeriodRange } from '../../model/period-range.ts';
import { readPublicHistorySeries, readValuesInForce } from '../../query/series-history.ts';
import type { PayloadFunction } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { pageByPeriod, requestedOrder } from './history-order.ts';
import { describeSeries } from './series-summary.ts';

/** Path of a series' public history (endpoint 15) as JSON. */
export function seriesHistoryPath(slug: string): string {
  return `/api/v1/series/${slug}`;
}

/** Path of the same history as CSV (the route's CSV path; `?format=csv` on the JSON path is the same). */
export function seriesHistoryCsvPath(slug: string): string {
  return `${seriesHistoryPath(slug)}${CSV_PATH_SUFFIX}`;
}

/**
 * The links endpoints 4 and 9 give per series: its public history as JSON and as CSV, or null
 * when it has none (a series without data; they list only redistributable series).
 */
export function historyLinks(slug: string, hasData: boolean) {
  return {
    history_url: hasData ? seriesHistoryPath(slug) : null,
    history_csv_url: hasData ? seriesHistoryCsvPath(slug) : null,
  };
}

/**
 * Endpoint 15: the public history of one catalogued series of a redistributable source (public
 * domain or open licence): per period the value in force in the snapshot (its latest revision),
 * oldest period first, with the licence and attribution. A series that is unknown, licensed or
 * proprietary, or without data is 404, exactly like an unknown slug: the reply never tells a
 * licensed series apart. from/to keep the periods with a day in the range, sort_order and limit
 * with cursor page them (no limit: every period). Revisions, as_of and units stay keyed
 * (endpoints 5 and 8).
 */
export const getSeriesHistory: PayloadFunction = async ({ db }, params) => {
  const series = params.slug === null ? null : await readPublicHistorySeries(db, params.slug);
  if (!series) throw notFound(`series ${params.slug}`);
  const { from, to, limit, cursor } = params.query;
  const range = resolvePeriodRange(
    typeof from === 'string' ? from : null,
    typeof to === 'string' ? to : null,
  );
  const inRange = (await readValuesInForce(db, series.key)).filter((row) => {
    const span = periodDaySpan(row.period);
    return (
      span !== null &&
      (range.firstDay === null || span.last >= range.firstDay) &&
      (range.lastDay === null || span.first <= range.lastDay)
    );
  });
  const order = requestedOrder(params);
  const page = pageByPeriod(
    inRange,
    order,
    typeof cursor === 'string' ? decodeCursor(cursor) : null,
    typeof limit === 'number' ? limit : inRange.length,
  );
  const rows = page.rows;
  const last = rows.at(-1);
  return {
    data: rows.map((row) => ({
      period: row.period,
      value: row.value,
      revision_number: row.revision_number,
      observed_at: row.observed_at,
    })),
    meta: {
      series: { ...describeSeries(series), seasonal_adjustment: series.seasonal_adjustment },
      first_period: rows[0]?.period ?? null,
      last_period: last?.period ?? null,
      filters: { from: typeof from === 'string' ? from : null, to: typeof to === 'string' ? to : null },
      sort_order: order,
      next_cursor:
        page.more && last
          ? encodeCursor({ period: last.period, revision_number: last.revision_number })
          : null,
      rights: series.rights,
      licence: series.licence,
      licence_url: series.licence_url,
      attribution: series.attribution,
      csv_url: seriesHistoryCsvPath(series.slug),
    },
  };
};

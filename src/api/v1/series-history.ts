import { notFound } from '../../contract/errors.ts';
import { CSV_PATH_SUFFIX } from '../../contract/routes.ts';
import { readPublicHistorySeries, readValuesInForce } from '../../query/series-history.ts';
import type { PayloadFunction } from './context.ts';

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
 * licensed series apart. Revisions and as_of stay keyed (endpoints 5 and 8).
 */
export const getSeriesHistory: PayloadFunction = async ({ db }, params) => {
  const series = params.slug === null ? null : await readPublicHistorySeries(db, params.slug);
  if (!series) throw notFound(`series ${params.slug}`);
  const rows = await readValuesInForce(db, series.key);
  return {
    data: rows.map((row) => ({
      period: row.period,
      value: row.value,
      revision_number: row.revision_number,
      observed_at: row.observed_at,
    })),
    meta: {
      series: {
        key: series.key,
        slug: series.slug,
        name: series.name,
        unit: series.unit,
        frequency: series.frequency,
        source: series.source,
        seasonal_adjustment: series.seasonal_adjustment,
      },
      first_period: rows[0]?.period ?? null,
      last_period: rows.at(-1)?.period ?? null,
      rights: series.rights,
      licence: series.licence,
      licence_url: series.licence_url,
      attribution: series.attribution,
      csv_url: seriesHistoryCsvPath(series.slug),
    },
  };
};

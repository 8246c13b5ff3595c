import { notFound } from '../../contract/errors.ts';
import { readMacroSeries, readObservationHistory } from '../../query/history.ts';
import type { PayloadFunction } from './context.ts';
import { presentSeriesHistory, resolveHistoryQuery } from './observations.ts';
import { presentTransformedHistory, requestedTransform } from './transforms.ts';
import { presentVintageView, requestedVintageView } from './vintages.ts';

/**
 * Endpoint 5: the history of one series tracked on /macro, every revision record with its
 * provenance, in the same row layout as endpoint 8; a slug that is not a macro series is 404.
 */
export const getMacroHistory: PayloadFunction = async ({ db, now }, params) => {
  const vintages = requestedVintageView(params, now);
  const query = resolveHistoryQuery(params, now);
  const series = params.slug === null ? null : await readMacroSeries(db, params.slug);
  if (!series) throw notFound(`macro series ${params.slug}`);
  // realtime_start/realtime_end, output_type or vintage_dates: ALFRED's view (docs/api/vintages.md).
  if (vintages) return presentVintageView(db, series, vintages);
  // units, frequency or aggregation: one transformed row per period (docs/api/transforms.md).
  const transform = requestedTransform(params);
  if (transform) return presentTransformedHistory(db, series, query, transform);
  return presentSeriesHistory(series, query, await readObservationHistory(db, series.key, query));
};

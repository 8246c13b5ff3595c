import type { SeriesIdentity } from '../../model/reference-records.ts';
import type { SeriesInfo } from '../../query/history.ts';

/** The series a history answer is of, as its `series` object says it (in this key order). */
export function describeSeries(series: SeriesInfo) {
  return {
    key: series.key,
    slug: series.slug,
    name: series.name,
    unit: series.unit,
    frequency: series.frequency,
    source: series.source,
  };
}

/** The fields that name a series in a list of series (catalogue, macro), in this key order. */
export function seriesIdentity(row: SeriesIdentity): SeriesIdentity {
  return {
    key: row.key,
    slug: row.slug,
    name: row.name,
    source: row.source,
    frequency: row.frequency,
    unit: row.unit,
  };
}

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

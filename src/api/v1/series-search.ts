import { searchSeries } from '../../query/series-search.ts';
import type { PayloadFunction } from './context.ts';
import { DEFAULT_LIMIT } from './observations.ts';
import { historyLinks } from './series-history.ts';

/**
 * Endpoint 26: the series search (docs/api/series-search.md), FRED's fred/series/search by its
 * parameter names: the ranked matches of search_text among the series of /api/v1/series, paged
 * by offset and limit.
 */
export const getSeriesSearch: PayloadFunction = async ({ db }, params) => {
  const text = String(params.query.search_text);
  const offset = typeof params.query.offset === 'number' ? params.query.offset : 0;
  const limit = typeof params.query.limit === 'number' ? params.query.limit : DEFAULT_LIMIT;
  const matches = await searchSeries(db, text);
  const page = matches.slice(offset, offset + limit);
  return {
    data: page.map(({ series, score }) => ({
      key: series.key,
      slug: series.slug,
      name: series.name,
      source: series.source,
      frequency: series.frequency,
      unit: series.unit,
      country: series.country,
      region: series.region,
      seasonal_adjustment: series.seasonal_adjustment,
      fred_id: series.fred_id,
      notes: series.description,
      score,
      latest:
        series.period === null
          ? null
          : { period: series.period, value: series.value, observed_at: series.observed_at },
      ...historyLinks(series.slug, series.period !== null),
    })),
    meta: {
      search_text: text,
      matches: matches.length,
      offset,
      limit,
      next_offset: offset + limit < matches.length ? offset + limit : null,
    },
  };
};

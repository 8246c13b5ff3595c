import { readSeriesCatalogue } from '../../query/catalog-lists.ts';
import { readAttribution } from './attribution.ts';
import type { PayloadFunction } from './context.ts';
import { resolveGeoFilters } from './filters.ts';
import { historyLinks } from './series-history.ts';
import { seriesIdentity } from './series-summary.ts';

/**
 * Endpoint 9: the catalog series of redistributable sources with their latest value, filtered
 * by country, region and currency (all given filters must hold). Series of other sources are
 * never listed, not even without values.
 */
export const getSeriesCatalogue: PayloadFunction = async ({ db }, params) => {
  const filters = await resolveGeoFilters(db, params);
  const rows = await readSeriesCatalogue(db, {
    country: filters.country ?? '',
    region: filters.region ?? '',
    currency: filters.currency ?? '',
  });
  const sources = [...new Set(rows.map((row) => row.source))].sort();
  return {
    data: rows.map((row) => ({
      ...seriesIdentity(row),
      country: row.country,
      region: row.region,
      currency: row.currency,
      sector: row.sector,
      seasonal_adjustment: row.seasonal_adjustment,
      latest:
        row.period === null
          ? null
          : {
              period: row.period,
              value: row.value,
              observed_at: row.observed_at,
              revision_number: row.revision_number,
            },
      ...historyLinks(row.slug, row.period !== null),
    })),
    meta: {
      filters,
      attribution: await readAttribution(db, sources),
    },
  };
};

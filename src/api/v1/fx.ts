import { readSourceTerms } from '../../query/catalog.ts';
import { readLatestEcbRates } from '../../query/fx.ts';
import type { PayloadFunction } from './context.ts';
import { resolveGeoFilters } from './filters.ts';

/** Endpoint 11: the latest euro reference rate per currency (units of currency per euro). */
export const getEcbRates: PayloadFunction = async ({ db }, params) => {
  const filters = await resolveGeoFilters(db, params);
  const rows = await readLatestEcbRates(db, filters.currency ?? '');
  const terms = await readSourceTerms(db, 'ecb');
  return {
    data: rows.map((row) => ({
      currency: row.currency,
      currency_name: row.currency_name,
      rate: row.rate,
      base: 'EUR',
      date: row.date,
      observed_at: row.observed_at,
      observed_at_method: row.observed_at_method ?? 'collected',
      revision_number: row.revision_number,
      series_key: row.series_key,
    })),
    meta: {
      filters,
      date: rows[0]?.date ?? null,
      attribution: terms?.attribution ?? null,
      licence: terms?.licence ?? null,
    },
  };
};

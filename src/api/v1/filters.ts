import { invalidParameter } from '../../contract/errors.ts';
import { PARAMS } from '../../contract/params.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import { hasCountry, hasCurrency, hasVenueCountry, resolveRegion } from '../../query/reference-codes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

/** Geography filters after checking them against the reference lists. */
export interface GeoFilters {
  country?: string;
  /** Always the three-digit M49 code, whichever spelling was asked for. */
  region?: string;
  currency?: string;
}

/** Which list a `country` filter is checked against. */
export interface ResolveGeoFiltersOptions {
  /**
   * `countries` (default): the ISO 3166-1 country list. `venue-countries`: that list plus the
   * codes the ISO 10383 MIC list uses as countries (`ZZ` for venues of no country), so that every
   * venue can be filtered on the country it is published with.
   */
  countryList?: 'countries' | 'venue-countries';
}

/**
 * Checks the filters a request carries against the snapshot's reference lists: a well-formed
 * but unknown code is `invalid_parameter`; a known code may still match nothing.
 */
export async function resolveGeoFilters(
  db: SnapshotDb,
  params: RequestParams,
  options: ResolveGeoFiltersOptions = {},
): Promise<GeoFilters> {
  const filters: GeoFilters = {};
  const { country, region, currency } = params.query;
  if (typeof country === 'string') {
    const known =
      options.countryList === 'venue-countries'
        ? await hasVenueCountry(db, country)
        : await hasCountry(db, country);
    if (!known) throw invalidParameter('country', PARAMS.country.expected);
    filters.country = country;
  }
  if (typeof region === 'string') {
    const code = await resolveRegion(db, region);
    if (code === null) throw invalidParameter('region', PARAMS.region.expected);
    filters.region = code;
  }
  if (typeof currency === 'string') {
    if (!(await hasCurrency(db, currency))) throw invalidParameter('currency', PARAMS.currency.expected);
    filters.currency = currency;
  }
  return filters;
}

import {
  type CountryRow,
  readCountries,
  readCountryTimeZones,
  readCurrencies,
  readVenues,
} from '../../query/reference-lists.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { readAttribution } from './attribution.ts';
import type { PayloadFunction } from './context.ts';
import { resolveGeoFilters } from './filters.ts';
import { findUsualVenueZones, resolveVenueTimeZone } from './venue-time-zone.ts';

/** The catalog sources each reference list is compiled from, for `meta.attribution`. */
const LIST_SOURCES = {
  countries: ['un-m49', 'iso', 'iana-tz'],
  currencies: ['iso'],
  venues: ['swift-mic', 'iana-tz', 'iso'],
} as const;

async function readZonesByCountry(db: SnapshotDb): Promise<Map<string, string[]>> {
  return new Map((await readCountryTimeZones(db)).map((row) => [row.country, row.zones]));
}

function area(code: string | null, name: string | null, slug: string | null) {
  return code === null ? null : { code, name, slug };
}

function presentCountry(row: CountryRow, zones: readonly string[]) {
  return {
    iso2: row.iso2,
    iso3: row.iso3,
    numeric: row.numeric,
    name: row.name,
    region: area(row.region_code, row.region_name, row.region_slug),
    sub_region: area(row.sub_region_code, row.sub_region_name, row.sub_region_slug),
    intermediate_region: area(
      row.intermediate_region_code,
      row.intermediate_region_name,
      row.intermediate_region_slug,
    ),
    currencies: row.currencies,
    time_zones: zones,
    coverage: { series: row.series_count, venues: row.venues_count },
  };
}

/** Endpoint 12: ISO 3166-1 countries by ISO2 with M49 areas, currencies, time zones and coverage; filter by region. */
export const getCountries: PayloadFunction = async ({ db }, params) => {
  const filters = await resolveGeoFilters(db, params);
  const [rows, zones] = await Promise.all([readCountries(db, filters.region ?? ''), readZonesByCountry(db)]);
  return {
    data: rows.map((row) => presentCountry(row, zones.get(row.iso2) ?? [])),
    meta: { filters, attribution: await readAttribution(db, LIST_SOURCES.countries) },
  };
};

/** Endpoint 13: every ISO 4217 code, current and withdrawn, by code. */
export const getCurrencies: PayloadFunction = async ({ db }) => {
  const rows = await readCurrencies(db);
  return {
    data: rows.map((row) => ({
      code: row.code,
      numeric: row.numeric,
      name: row.name,
      minor_units: row.minor_units,
      is_fund: row.is_fund,
      current: row.withdrawn === null,
      withdrawn: row.withdrawn,
      withdrawals: row.withdrawals,
      entities: row.entities,
    })),
    meta: { attribution: await readAttribution(db, LIST_SOURCES.currencies) },
  };
};

/** Endpoint 14: ISO 10383 venues by MIC, whatever their status, with time zone and currencies; filter by country. */
export const getVenues: PayloadFunction = async ({ db }, params) => {
  // The MIC list files venues of no country under `ZZ`; that code must filter them too.
  const filters = await resolveGeoFilters(db, params, { countryList: 'venue-countries' });
  const [rows, zones] = await Promise.all([readVenues(db, filters.country ?? ''), readZonesByCountry(db)]);
  // A country filter keeps all of that country's venues, so the usual zone is the same either way.
  const usual = findUsualVenueZones(rows, zones);
  return {
    data: rows.map((row) => ({
      mic: row.mic,
      operating_mic: row.operating_mic,
      kind: row.kind,
      name: row.name,
      legal_name: row.legal_name,
      lei: row.lei,
      acronym: row.acronym,
      category: row.category,
      country: row.country,
      city: row.city,
      status: row.status,
      website: row.website,
      ...resolveVenueTimeZone(row.city, zones.get(row.country) ?? [], usual.get(row.country) ?? null),
      currencies: row.currencies,
    })),
    meta: { filters, attribution: await readAttribution(db, LIST_SOURCES.venues) },
  };
};

import type { Country } from '../model/reference-records.ts';
import type { SnapshotDb } from './snapshot-db.ts';

/** A country with its M49 areas, currencies and how much redistributable data covers it. */
export interface CountryRow extends Omit<Country, 'ldc' | 'lldc' | 'sids'> {
  region_slug: string | null;
  sub_region_slug: string | null;
  intermediate_region_slug: string | null;
  currencies: string[];
  series_count: number;
  venues_count: number;
}

/**
 * Reads the countries by ISO2, optionally only those inside an M49 area at any level (empty
 * string: all); the world (a global area) contains every country. Coverage counts catalog
 * series of redistributable sources about the country and its venues in
 * service (status ACTIVE or UPDATED, i.e. not EXPIRED).
 */
export async function readCountries(db: SnapshotDb, region: string): Promise<CountryRow[]> {
  return db.query<CountryRow>(
    `WITH RECURSIVE area(code) AS (
       SELECT code FROM regions WHERE code = $region
       UNION SELECT r.code FROM regions r JOIN area a ON r.parent_code = a.code)
     SELECT c.iso2, c.iso3, c.numeric, c.name,
            c.region_code, r1.name AS region_name, r1.slug AS region_slug,
            c.sub_region_code, r2.name AS sub_region_name, r2.slug AS sub_region_slug,
            c.intermediate_region_code, r3.name AS intermediate_region_name,
            r3.slug AS intermediate_region_slug,
            coalesce(cc.currencies, []::VARCHAR[]) AS currencies,
            (SELECT count(*) FROM series s JOIN series_rights sr ON sr.key = s.key AND sr.redistributable
              WHERE s.country = c.iso2)::INTEGER AS series_count,
            (SELECT count(*) FROM venues v WHERE v.country = c.iso2 AND v.status <> 'EXPIRED')::INTEGER
              AS venues_count
       FROM countries c
       LEFT JOIN regions r1 ON r1.code = c.region_code
       LEFT JOIN regions r2 ON r2.code = c.sub_region_code
       LEFT JOIN regions r3 ON r3.code = c.intermediate_region_code
       LEFT JOIN country_currencies cc ON cc.iso2 = c.iso2
      WHERE $region = ''
         OR c.region_code IN (SELECT code FROM area)
         OR c.sub_region_code IN (SELECT code FROM area)
         OR c.intermediate_region_code IN (SELECT code FROM area)
         OR EXISTS (SELECT 1 FROM regions w WHERE w.code = $region AND w.level = 'global')
      ORDER BY c.iso2`,
    { region },
  );
}

/** An ISO 4217 currency or fund. */
export interface CurrencyRow {
  code: string;
  numeric: string | null;
  name: string;
  minor_units: number | null;
  is_fund: boolean;
  withdrawn: string | null;
  entities: string[];
  /** Every ISO 4217 list-three entry of the code, oldest first. */
  withdrawals: Array<{ entity: string | null; name: string; withdrawn: string }>;
}

/**
 * Reads every ISO 4217 code, current and withdrawn, by code. Rows stored before withdrawals
 * were kept have none (NULL), read as an empty list.
 */
export async function readCurrencies(db: SnapshotDb): Promise<CurrencyRow[]> {
  return db.query<CurrencyRow>(
    `SELECT code, numeric, name, minor_units, is_fund, withdrawn, coalesce(entities, []::VARCHAR[]) AS entities,
            coalesce(withdrawals, []::STRUCT(entity VARCHAR, name VARCHAR, withdrawn VARCHAR)[]) AS withdrawals
       FROM currencies ORDER BY code`,
  );
}

/** An ISO 10383 venue with the currencies of its country. */
export interface VenueRow {
  mic: string;
  operating_mic: string;
  kind: string;
  name: string;
  legal_name: string | null;
  lei: string | null;
  acronym: string | null;
  category: string | null;
  country: string;
  city: string | null;
  status: string;
  website: string | null;
  currencies: string[];
}

/** Reads every venue by MIC, whatever its status, optionally of one country (empty string: all). */
export async function readVenues(db: SnapshotDb, country: string): Promise<VenueRow[]> {
  return db.query<VenueRow>(
    `SELECT v.mic, v.operating_mic, v.kind, v.name, v.legal_name, v.lei, v.acronym, v.category,
            v.country, v.city, v.status, v.website, coalesce(cc.currencies, []::VARCHAR[]) AS currencies
       FROM venues v LEFT JOIN country_currencies cc ON cc.iso2 = v.country
      WHERE $country = '' OR v.country = $country
      ORDER BY v.mic`,
    { country },
  );
}

/** The IANA zones that overlap one country. */
export interface CountryTimeZonesRow {
  country: string;
  /** In the order of the time_zones table (by zone name). */
  zones: string[];
}

/** Reads, per country code the tz tables mention, the zones that overlap it. */
export async function readCountryTimeZones(db: SnapshotDb): Promise<CountryTimeZonesRow[]> {
  return db.query<CountryTimeZonesRow>(
    `SELECT country, list(zone ORDER BY zone) AS zones
       FROM (SELECT zone, unnest(countries) AS country FROM time_zones)
      GROUP BY country
      ORDER BY country`,
  );
}

/**
 * Reference and catalog records: the lists facts hang on (UN M49, ISO 3166/4217/10383, IANA
 * zones) and the project's catalog (sources, series, markets, sectors) and research notes.
 * Stored records use the snake_case column names directly (see records.ts).
 */
import type { CotReportType, Frequency, Rights, Timestamp } from './vocabulary.ts';

/** A UN M49 area above country level (world, region, sub-region, intermediate region). */
export interface Region {
  /** Three-digit M49 code, zero-padded (`001`, `150`). */
  code: string;
  name: string;
  /** Kebab-case English name (`northern-europe`). */
  slug: string;
  level: 'global' | 'region' | 'sub-region' | 'intermediate-region';
  parent_code: string | null;
}

/** ISO 3166-1 country with its UN M49 classification. */
export interface Country {
  iso2: string;
  iso3: string;
  /** ISO 3166-1 numeric = M49 code, zero-padded to three digits. */
  numeric: string;
  name: string;
  region_code: string | null;
  region_name: string | null;
  sub_region_code: string | null;
  sub_region_name: string | null;
  intermediate_region_code: string | null;
  intermediate_region_name: string | null;
  ldc: boolean;
  lldc: boolean;
  sids: boolean;
}

/** ISO 4217 currencies used by a country (from the datahub country-codes join). */
export interface CountryCurrencies {
  iso2: string;
  currencies: string[];
}

/** One IANA time zone and the countries it covers (zone1970.tab / zone.tab). */
export interface TimeZone {
  zone: string;
  countries: string[];
  /** ISO 6709 coordinates as published. */
  coordinates: string;
  comment: string | null;
}

/** ISO 4217 currency or fund. */
export interface Currency {
  code: string;
  /** Three-digit numeric code, zero-padded; null for a few non-currency entries. */
  numeric: string | null;
  name: string;
  /** null where ISO says `N.A.` (gold, SDR, ...). */
  minor_units: number | null;
  is_fund: boolean;
  /** Entities (countries, areas) that use it, as ISO writes them. */
  entities: string[];
  /** `YYYY-MM` (or a range) when withdrawn: the latest of `withdrawals`; null while current. */
  withdrawn: string | null;
  /**
   * Every ISO 4217 list-three entry of the code (an entity that stopped using it, under the name
   * it had then), oldest first; a current code keeps those of entities that left it.
   */
  withdrawals: Array<{ entity: string | null; name: string; withdrawn: string }>;
}

/** ISO 10383 market identifier code. */
export interface Venue {
  mic: string;
  operating_mic: string;
  /** `OPRT` (operating) or `SGMT` (segment). */
  kind: string;
  name: string;
  legal_name: string | null;
  lei: string | null;
  category: string | null;
  acronym: string | null;
  country: string;
  city: string | null;
  website: string | null;
  status: string;
  created: string | null;
  updated: string | null;
  expiry: string | null;
  comments: string | null;
}

/** A published research finding (Markdown with front matter). */
export interface ResearchNote {
  id: string;
  slug: string;
  title: string;
  published_at: Timestamp;
  authors: string[];
  tags: string[];
  summary: string;
  /** Series keys the finding is about. */
  series: string[];
  body_markdown: string;
  source_ref: string;
}

/** A source in the catalog. */
export interface SourceEntry {
  id: string;
  name: string;
  publisher: string;
  url: string;
  licence: string;
  licence_url: string | null;
  rights: Rights;
  attribution: string;
  /** Expected release cadence and the usual release time, used for freshness. */
  cadence: Frequency;
  /** How long after the cadence a source counts as stale, in days. */
  stale_after_days: number;
  sample: boolean;
}

/** What names a series in every list of series: its key, slug, name, source, frequency and unit. */
export interface SeriesIdentity {
  key: string;
  slug: string;
  name: string;
  source: string;
  frequency: string;
  unit: string;
}

/** A series in the catalogue. */
export interface SeriesEntry extends SeriesIdentity {
  frequency: Frequency;
  country: string | null;
  region: string | null;
  currency: string | null;
  sector: string | null;
  seasonal_adjustment: string | null;
  /** Whether /macro tracks it (BLS series). */
  macro: boolean;
  description: string | null;
  /** FRED/ALFRED id whose vintages are filed under this key (PAYEMS for bls.CES0000000001). */
  fred_id: string | null;
}

/**
 * The catalog's override of a COT market, keyed on the CFTC contract market code. Every market
 * of the files is listed without one (src/query/cot-markets.ts); a null field keeps the value
 * derived from the data.
 */
export interface MarketEntry {
  code: string;
  slug: string | null;
  /** Display name. */
  name: string | null;
  /** Display name of the exchange. */
  exchange: string | null;
  /** ISO 10383 MIC of the exchange. */
  mic: string | null;
  sector: string | null;
  /**
   * Report types in the order to offer them (the first is the default); types the data has
   * beyond these follow in the usual order. Empty: the data's types in the usual order.
   */
  report_types: CotReportType[];
}

/** A sector; coverage is measured from the data at query time. */
export interface SectorEntry {
  id: string;
  name: string;
  description: string;
}

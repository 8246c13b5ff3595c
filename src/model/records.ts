/**
 * The data model: the typed records that flow from ingest through the store into snapshots.
 * docs/data-model.md explains every table; the column types for Parquet live in ./tables.ts.
 * TypeScript names are camelCase only where the record never reaches Parquet or the wire;
 * stored records use the snake_case column names directly so that there is one spelling.
 */

/** CONTRACT section 5: how far a value has been checked. */
export const VERIFICATION_STATUSES = ['unverified', 'verified', 'disputed'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** CONTRACT section 5: where a value comes from. */
export const DATA_CLASSES = ['official', 'derived', 'estimate'] as const;
export type DataClass = (typeof DATA_CLASSES)[number];

/** CONTRACT section 5: rights classes; the first two are redistributable. */
export const RIGHTS = ['public_domain', 'open_licence', 'licensed', 'proprietary'] as const;
export type Rights = (typeof RIGHTS)[number];
export const REDISTRIBUTABLE_RIGHTS: readonly Rights[] = ['public_domain', 'open_licence'];

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'quarterly', 'annual'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** COT report types: the three main reports and the Commodity Index Trader supplement (`cit`). */
export const COT_REPORT_TYPES = ['legacy', 'disaggregated', 'tff', 'cit'] as const;
export type CotReportType = (typeof COT_REPORT_TYPES)[number];

/** Whether a COT report counts futures only or futures and options combined (the CIT report). */
export const COT_SCOPES = ['futures_only', 'combined'] as const;
export type CotScope = (typeof COT_SCOPES)[number];

/** Timestamps are RFC 3339 UTC strings with a `Z` (`2025-03-14T19:30:00Z`). */
export type Timestamp = string;

/**
 * How a fact's knowledge time (`observed_at`) was established (docs/data-sources.md):
 * - `release_calendar`: the publisher's release of that period, from its calendar and rules;
 * - `vintage`: the vintage date of an ALFRED-style real-time data set;
 * - `publisher_timestamp`: a time the publisher printed in or on the file;
 * - `collected`: only the time we collected it is known (corrections, periods without calendar);
 * - `estimated`: from a publisher's announced plan where no per-report date was published; the
 *   latest plausible time is used, so that `as_of` never sees a value early.
 */
export const KNOWLEDGE_METHODS = [
  'release_calendar',
  'vintage',
  'publisher_timestamp',
  'collected',
  'estimated',
] as const;
export type KnowledgeMethod = (typeof KNOWLEDGE_METHODS)[number];

/** A knowledge time and how it was established. */
export interface KnowledgeTime {
  observed_at: Timestamp;
  method: KnowledgeMethod;
}

/** Provenance a parser supplies for each fact; the store adds the revision fields. */
export interface ProvenanceInput {
  /** Where the value was read: `<file name>:<line>` or a URL. */
  source_ref: string;
  /** When the value became known (knowledge time), UTC. */
  observed_at: Timestamp;
  /** How `observed_at` was established. */
  observed_at_method: KnowledgeMethod;
  /**
   * The knowledge time to use if this fact turns out to be a correction: its key already has a
   * different value known at or after `observed_at` (a calendar gives the first release only).
   * Absent when the parser cannot know it (a local file without a collection time): the store
   * then refuses the correction instead of back-dating it. Never stored.
   */
  correction?: KnowledgeTime;
  verification_status: VerificationStatus;
  /** 0 to 1. */
  confidence: number;
  data_class: DataClass;
}

/** The revision fields the store assigns when it appends a fact. */
export interface RevisionFields {
  id: string;
  collector_version: string;
  revision_number: number;
  supersedes_id: string | null;
  batch_id: string;
}

/** One value of one series for one period, as a parser reads it. */
export interface ObservationInput extends ProvenanceInput {
  /** `<source>.<native id>`, e.g. `ecb.USD`, `bls.CUUR0000SA0`. */
  series_key: string;
  /** `YYYY-MM-DD`, `YYYY-MM`, `YYYY-Qn` or `YYYY`. */
  period: string;
  value: number;
  /** The publisher's footnotes on this value (BLS: `P` Preliminary, `C` Correction, …). */
  footnotes?: Footnote[];
}

/** A publisher's footnote on a value, as printed (either part may be absent). */
export interface Footnote {
  code: string | null;
  text: string | null;
}

export type Observation = ObservationInput & RevisionFields;

/** Positions of one trader category in one COT report (all futures, "All" crop years). */
export interface CotPosition {
  /** Normalised category, e.g. `noncommercial`, `managed_money`, `dealer`, `nonreportable`. */
  category: string;
  long: number | null;
  short: number | null;
  /** Spreading positions; null for categories the CFTC reports without spreads. */
  spread: number | null;
  change_long: number | null;
  change_short: number | null;
  change_spread: number | null;
  pct_oi_long: number | null;
  pct_oi_short: number | null;
  pct_oi_spread: number | null;
  traders_long: number | null;
  traders_short: number | null;
  traders_spread: number | null;
}

/** One weekly COT report of one market, as a parser reads it. */
export interface CotReportInput extends ProvenanceInput {
  /**
   * `cftc.<contract market code>.<report type>` for futures only (`cftc.088691.legacy`), with
   * `.combined` appended for futures and options combined (`cftc.088691.legacy.combined`).
   */
  series_key: string;
  report_type: CotReportType;
  scope: CotScope;
  /** CFTC contract market code, trimmed, leading zeros kept (`002602`, `13874A`). */
  market_code: string;
  /** The CFTC's exchange code ("CFTC Market Code in Initials": `CMX`, `NYME`), trimmed. */
  exchange_code: string | null;
  /** The CFTC's region code (`00`, `01`), where the file carries it. */
  region_code: string | null;
  /** The CFTC's commodity code (`088`), trimmed. */
  commodity_code: string | null;
  /** The CFTC's commodity subgroup (`N25`, `F85`): disaggregated and TFF files only. */
  subgroup_code: string | null;
  /** The Tuesday the positions are dated, `YYYY-MM-DD`. */
  period: string;
  /** Market and exchange name as published that week (it changes over the years). */
  market_name: string;
  contract_units: string | null;
  open_interest: number | null;
  change_open_interest: number | null;
  traders_total: number | null;
  /** Concentration: % of open interest held by the largest 4 and 8 traders, gross long/short. */
  conc_gross_le4_long: number | null;
  conc_gross_le4_short: number | null;
  conc_gross_le8_long: number | null;
  conc_gross_le8_short: number | null;
  positions: CotPosition[];
}

export type CotReport = CotReportInput & RevisionFields & { content_hash: string };

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

/** A series in the catalogue. */
export interface SeriesEntry {
  key: string;
  slug: string;
  name: string;
  source: string;
  frequency: Frequency;
  unit: string;
  country: string | null;
  region: string | null;
  currency: string | null;
  sector: string | null;
  seasonal_adjustment: string | null;
  /** Whether /macro tracks it (BLS series). */
  macro: boolean;
  description: string | null;
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

/** Everything one ingest of one source produced. Any table may be absent. */
export interface ParsedBatch {
  observations?: ObservationInput[];
  cot_reports?: CotReportInput[];
  regions?: Region[];
  countries?: Country[];
  country_currencies?: CountryCurrencies[];
  time_zones?: TimeZone[];
  currencies?: Currency[];
  venues?: Venue[];
  research?: ResearchNote[];
  sources?: SourceEntry[];
  series?: SeriesEntry[];
  markets?: MarketEntry[];
  sectors?: SectorEntry[];
  /** Rows read from the files, for the command summary. */
  rows_read: number;
  /** Values skipped on purpose (missing markers such as `N/A` or `.`). */
  rows_skipped: number;
}

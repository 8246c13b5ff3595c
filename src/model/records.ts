/**
 * The data model: the typed records that flow from ingest through the store into snapshots.
 * docs/data-model.md explains every table; the column types for Parquet live in ./tables.ts.
 * TypeScript names are camelCase only where the record never reaches Parquet or the wire;
 * stored records use the snake_case column names directly so that there is one spelling.
 */

export * from './vocabulary.ts';

import type { CotReportType, CotScope, DataClass, Timestamp, VerificationStatus } from './vocabulary.ts';

/**
 * How a fact's knowledge time (`observed_at`) was established (docs/data-sources.md):
 * - `release_calendar`: the publisher's release of that period, from its calendar and rules;
 * - `vintage`: the vintage date of an ALFRED-style real-time data set;
 * - `publisher_timestamp`: a time the publisher printed in or on the file;
 * - `collected`: only the time we collected it is known (corrections, periods without calendar);
 * - `estimated`: from a publisher's announced plan where no per-report date was published; the
 *   latest plausible time is used, so that `as_of` never sees a value early;
 * - `release_rule`: the publisher's standing release rule where its exceptions are not known
 *   (COT reports before 2010), moved late by the largest delay past the rule ever seen outside
 *   shutdowns, so that it errs late, never early;
 * - `later_release`: a value collected after a later release of its publisher's program, which
 *   could have revised it, dated by the newest such release before the collection rather than by
 *   its first release (which only a vintage or the collection time can prove).
 */
export const KNOWLEDGE_METHODS = [
  'release_calendar',
  'vintage',
  'publisher_timestamp',
  'collected',
  'estimated',
  'later_release',
  'release_rule',
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

/** The fields of a CotPosition besides its category, in the order the CFTC files give them. */
export const COT_POSITION_FIELDS = [
  'long',
  'short',
  'spread',
  'change_long',
  'change_short',
  'change_spread',
  'pct_oi_long',
  'pct_oi_short',
  'pct_oi_spread',
  'traders_long',
  'traders_short',
  'traders_spread',
] as const satisfies readonly Exclude<keyof CotPosition, 'category'>[];

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

/** The numeric fields of a whole COT report (beside its trader categories' positions). */
export type CotReportField =
  | 'open_interest'
  | 'change_open_interest'
  | 'traders_total'
  | 'conc_gross_le4_long'
  | 'conc_gross_le4_short'
  | 'conc_gross_le8_long'
  | 'conc_gross_le8_short';

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

/** The net concentration ratios: % of open interest held net long or short by the largest 4 and 8 traders. */
export interface CotNetConcentration {
  conc_net_le4_long: number | null;
  conc_net_le4_short: number | null;
  conc_net_le8_long: number | null;
  conc_net_le8_short: number | null;
}

/** The gross concentration ratios, as a report's totals carry them. */
export interface CotGrossConcentration {
  conc_gross_le4_long: number | null;
  conc_gross_le4_short: number | null;
  conc_gross_le8_long: number | null;
  conc_gross_le8_short: number | null;
}

/**
 * One crop year of a legacy or disaggregated report: `old` (the old crop year's contracts) or
 * `other` (every other month). The CFTC publishes no week-on-week changes per crop year, so the
 * positions' change fields are null.
 */
export interface CotCropYear extends CotGrossConcentration, CotNetConcentration {
  crop: 'old' | 'other';
  open_interest: number | null;
  traders_total: number | null;
  positions: CotPosition[];
}

/**
 * The columns of a COT report stored beside it (table cot_report_columns, docs/data-model.md
 * "COT report columns"): the net concentration ratios and, for legacy and disaggregated reports,
 * the Old and Other crop years. Keyed like the report; its content hash is its own, so that the
 * report's content hash (and its revision detection) is what it was before they were stored.
 */
export interface CotReportColumnsInput extends ProvenanceInput, CotNetConcentration {
  series_key: string;
  period: string;
  /** `[old, other]` for legacy and disaggregated reports; null for TFF (which has no crop years). */
  crop_years: CotCropYear[] | null;
}

export type * from './reference-records.ts';

import type {
  Country,
  CountryCurrencies,
  Currency,
  MarketEntry,
  Region,
  ResearchNote,
  SectorEntry,
  SeriesEntry,
  SourceEntry,
  TimeZone,
  Venue,
} from './reference-records.ts';

/**
 * Fact rows that stay in DuckDB: a SELECT, evaluated on the ingest's connection, that yields the
 * table's candidate columns (those a parser sets; a missing one is NULL), one row per candidate.
 * `correction` is a STRUCT(observed_at TIMESTAMP, method VARCHAR) or NULL. The rows are read once,
 * by the store's planner, so the relation must stay valid until the batch is appended.
 */
export interface FactRelation {
  kind: 'relation';
  sql: string;
  /** ORDER BY list over the relation's columns giving the input order (must be total). */
  orderBy: string;
  /** How many rows the SELECT yields. */
  rows: number;
}

/** A fact table as a parser hands it: JavaScript records, or a relation in DuckDB. */
export type FactRows<T> = T[] | FactRelation;

/** Whether fact rows are a DuckDB relation rather than a JavaScript array. */
export function isFactRelation<T>(rows: FactRows<T> | readonly object[]): rows is FactRelation {
  return !Array.isArray(rows) && (rows as FactRelation).kind === 'relation';
}

/** How many rows fact rows hold, in either form. */
export function countFactRows(rows: FactRows<unknown> | readonly object[] | undefined): number {
  if (rows === undefined) return 0;
  return isFactRelation(rows) ? rows.rows : rows.length;
}

/** Everything one ingest of one source produced. Any table may be absent. */
export interface ParsedBatch {
  observations?: FactRows<ObservationInput>;
  cot_reports?: FactRows<CotReportInput>;
  cot_report_columns?: FactRows<CotReportColumnsInput>;
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

/** A parsed batch whose fact tables are JavaScript arrays (the parsers of small inputs). */
export type RecordBatch = ParsedBatch & {
  observations?: ObservationInput[];
  cot_reports?: CotReportInput[];
  cot_report_columns?: CotReportColumnsInput[];
};

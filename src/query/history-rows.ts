/**
 * The shapes of a history read (what is asked, the rows and pages answered), apart from the readers
 * (history.ts, transforms.ts, revision-cache.ts) so that they import them without importing each
 * other.
 */

/** A series as the history payloads describe it: catalog fields (null when not catalogued) and terms. */
export interface SeriesInfo {
  key: string;
  slug: string | null;
  name: string | null;
  unit: string | null;
  frequency: string | null;
  /** The catalog's source of the series; null when the key is not catalogued. */
  source: string | null;
  /** Licence and attribution of the source that owns the key (by catalog, else by key prefix). */
  licence: string | null;
  attribution: string | null;
}

/** What to read of one history: knowledge time, period range, where the previous page ended, page size. */
export interface HistoryQuery {
  /** RFC 3339 instant, or null for everything the snapshot knows. */
  asOf: string | null;
  /**
   * The period range as asked for (YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD, valid; null for an open
   * end): the periods whose days overlap [first day of from, last day of to] are read.
   */
  from: string | null;
  to: string | null;
  /** The last (period, revision) of the previous page, or null for the first page. */
  after: { period: string; revision_number: number } | null;
  limit: number;
  /**
   * Row order (sort_order): asc (absent) oldest period and revision first, desc newest first; the
   * cursor continues in the same order.
   */
  order?: 'asc' | 'desc';
}

/** One stored revision of an observation with its provenance, and whether it was in force. */
export interface ObservationRow {
  id: string;
  series_key: string;
  period: string;
  value: number;
  source_ref: string;
  observed_at: string;
  observed_at_method: string | null;
  footnotes: Array<{ code: string | null; text: string | null }> | null;
  collector_version: string;
  verification_status: string;
  confidence: number;
  data_class: string;
  revision_number: number;
  supersedes_id: string | null;
  in_force: boolean;
}

/** One period of a series as known at an instant: the revision then in force. */
export interface InForceRow {
  period: string;
  value: number;
  revision_number: number;
  observed_at: string;
}

/** A page of rows and whether more follow it. */
export interface HistoryPage<T> {
  rows: T[];
  more: boolean;
}

/** The columns of an observation row, in the order of ObservationRow. */
export const OBSERVATION_COLUMNS = [
  'id',
  'series_key',
  'period',
  'value',
  'source_ref',
  'observed_at',
  'observed_at_method',
  'footnotes',
  'collector_version',
  'verification_status',
  'confidence',
  'data_class',
  'revision_number',
  'supersedes_id',
  'in_force',
] as const;

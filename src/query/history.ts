import type { CotReportRow } from './cot.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

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
  from: string | null;
  to: string | null;
  /** The last (period, revision) of the previous page, or null for the first page. */
  after: { period: string; revision_number: number } | null;
  limit: number;
}

/** One stored revision of an observation with its provenance, and whether it was in force. */
export interface ObservationRow {
  id: string;
  series_key: string;
  period: string;
  value: number;
  source_ref: string;
  observed_at: string;
  collector_version: string;
  verification_status: string;
  confidence: number;
  data_class: string;
  revision_number: number;
  supersedes_id: string | null;
  in_force: boolean;
}

/** A page of rows and whether more follow it. */
export interface HistoryPage<T> {
  rows: T[];
  more: boolean;
}

const SERIES_INFO = `SELECT r.key, s.slug, s.name, s.unit, s.frequency, s.source, src.licence, src.attribution
  FROM series_rights r
  LEFT JOIN series s ON s.key = r.key
  LEFT JOIN sources src ON src.id = r.source`;

/**
 * Reads a series key known to the snapshot (catalogued or holding observations), whatever its
 * rights: the keyed endpoints serve licensed data too. Null for an unknown key.
 */
export async function readSeriesInfo(db: SnapshotDb, key: string): Promise<SeriesInfo | null> {
  const [row] = await db.query<SeriesInfo>(
    `${SERIES_INFO}
      WHERE r.key = $key
        AND (s.key IS NOT NULL OR EXISTS (SELECT 1 FROM observations o WHERE o.series_key = $key))`,
    { key },
  );
  return row ?? null;
}

/** Reads the catalog series tracked on /macro with this slug, or null. */
export async function readMacroSeries(db: SnapshotDb, slug: string): Promise<SeriesInfo | null> {
  const [row] = await db.query<SeriesInfo>(`${SERIES_INFO} WHERE s.slug = $slug AND s.macro`, { slug });
  return row ?? null;
}

/** Binds the shared filters; '' stands for "no filter" because DuckDB cannot compare with a bound NULL. */
function bindHistory(query: HistoryQuery) {
  return {
    as_of: query.asOf ?? '',
    from: query.from ?? '',
    to: query.to ?? '',
    after_period: query.after?.period ?? '',
    // One row more than asked tells whether another page follows.
    limit: query.limit + 1,
  };
}

function toPage<T>(rows: T[], limit: number): HistoryPage<T> {
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * Reads one page of a series' observation revisions ordered by period and revision. With an
 * as_of, only revisions observed at or before it count, and `in_force` marks the highest of
 * them per period. The period range and the cursor's period drop whole periods, so they may
 * filter before the window without changing any mark (and let DuckDB skip row groups of the
 * Parquet file, sorted by series, period and revision); the exact keyset comes after it.
 */
export async function readObservationHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<ObservationRow>> {
  const rows = await db.query<ObservationRow>(
    `WITH known AS (
       SELECT *, revision_number = max(revision_number) OVER (PARTITION BY period) AS in_force
         FROM observations
        WHERE series_key = $series
          AND ($as_of = '' OR observed_at <= TRY_CAST($as_of AS TIMESTAMP))
          AND ($from = '' OR period >= $from)
          AND ($to = '' OR period <= $to)
          AND ($after_period = '' OR period >= $after_period))
     SELECT id, series_key, period, value, source_ref, ${rfc3339('observed_at')} AS observed_at,
            collector_version, verification_status, confidence, data_class, revision_number,
            supersedes_id, in_force
       FROM known
      WHERE $after_period = '' OR (period, revision_number) > ($after_period, $after_revision::INTEGER)
      ORDER BY period, revision_number
      LIMIT $limit`,
    { series: seriesKey, ...bindHistory(query), after_revision: query.after?.revision_number ?? 0 },
  );
  return toPage(rows, query.limit);
}

/**
 * Reads one page of a COT series' reports, one per report date: the revision in force at
 * as_of (the latest revision when as_of is null), oldest report first. Every period filter
 * drops whole report dates, so it may run before QUALIFY picks the revision.
 */
export async function readCotHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<CotReportRow>> {
  const rows = await db.query<CotReportRow>(
    `SELECT id, series_key, report_type, market_code, period, market_name, contract_units, open_interest,
            change_open_interest, traders_total, conc_gross_le4_long, conc_gross_le4_short,
            conc_gross_le8_long, conc_gross_le8_short, positions, ${rfc3339('observed_at')} AS observed_at,
            revision_number, supersedes_id, source_ref
       FROM cot_reports
      WHERE series_key = $series
        AND ($as_of = '' OR cot_reports.observed_at <= TRY_CAST($as_of AS TIMESTAMP))
        AND ($from = '' OR period >= $from)
        AND ($to = '' OR period <= $to)
        AND ($after_period = '' OR period > $after_period)
     QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1
      ORDER BY period
      LIMIT $limit`,
    { series: seriesKey, ...bindHistory(query) },
  );
  return toPage(rows, query.limit);
}

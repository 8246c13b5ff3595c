/**
 * Every market's Commitments of Traders report of one report date and report type, the way
 * Socrata users of the CFTC ask for it (`report_date_as_yyyy_mm_dd=...`): one read over the
 * report type's series, each report with its analytics and whether it is in the public window.
 */
import { CFTC_IS_OPEN, type CotReportRow, cotAnalyticsSql, publicCotWindowSql } from './cot.ts';
import type { SnapshotDb } from './snapshot-db.ts';

/** A report of one date, with its market and whether it is one of the market's public reports. */
export type CotReportOfDate = CotReportRow & {
  slug: string;
  code: string;
  exchange: string | null;
  mic: string | null;
  sector: string | null;
  in_window: boolean;
};

/**
 * The LIKE pattern of the series keys of one served report type: `seriesSuffix` is the part of
 * the key after the market code (`legacy`, `legacy.combined`, `cit.combined`).
 */
function seriesPattern(seriesSuffix: string): string {
  return `cftc.%.${seriesSuffix}`;
}

/** The newest report date of a report type (series key suffix), or null when it has none. */
export async function readLatestReportDate(db: SnapshotDb, seriesSuffix: string): Promise<string | null> {
  const [row] = await db.query<{ date: string | null }>(
    `SELECT max(period) AS date FROM cot_reports WHERE series_key LIKE $pattern`,
    { pattern: seriesPattern(seriesSuffix) },
  );
  return row?.date ?? null;
}

/**
 * The in-force report of `date` of every market in the report type (the analytics computed over
 * each market's reports up to it), by market slug, each flagged `in_window` when it is one of the
 * market's 12 most recent reports (query/cot.ts PUBLIC_COT_REPORTS).
 */
export async function readReportsOfDate(
  db: SnapshotDb,
  seriesSuffix: string,
  date: string,
): Promise<CotReportOfDate[]> {
  return db.query<CotReportOfDate>(
    `WITH reports AS (${cotAnalyticsSql('cot_reports', 'series_key LIKE $pattern')}),
          public_window AS (${publicCotWindowSql('(SELECT series_key, period FROM cot_reports WHERE series_key LIKE $pattern)')})
     SELECT r.*, m.slug, m.code, m.exchange, m.mic, m.sector, (w.series_key IS NOT NULL) AS in_window
       FROM reports r
       JOIN cot_markets m ON m.code = r.market_code
       LEFT JOIN public_window w ON w.series_key = r.series_key AND w.period = r.period
      WHERE r.period = $date AND ${CFTC_IS_OPEN}
      ORDER BY m.slug`,
    { pattern: seriesPattern(seriesSuffix), date },
  );
}

import type { CotPosition } from '../model/records.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** A tracked market from the catalog. */
export interface MarketRow {
  slug: string;
  code: string;
  name: string;
  exchange: string;
  mic: string | null;
  sector: string;
  report_types: string[];
}

/** One COT report revision as stored. */
export interface CotReportRow {
  id: string;
  series_key: string;
  report_type: string;
  market_code: string;
  period: string;
  market_name: string;
  contract_units: string | null;
  open_interest: number | null;
  change_open_interest: number | null;
  traders_total: number | null;
  conc_gross_le4_long: number | null;
  conc_gross_le4_short: number | null;
  conc_gross_le8_long: number | null;
  conc_gross_le8_short: number | null;
  positions: CotPosition[];
  observed_at: string;
  revision_number: number;
  supersedes_id: string | null;
  source_ref: string;
}

const REPORT_COLUMNS = `id, series_key, report_type, market_code, period, market_name, contract_units, open_interest,
  change_open_interest, traders_total, conc_gross_le4_long, conc_gross_le4_short, conc_gross_le8_long,
  conc_gross_le8_short, positions, ${rfc3339('observed_at')} AS observed_at, revision_number, supersedes_id, source_ref`;

/** Reads every tracked market whose source is redistributable, by slug. */
export async function readMarkets(db: SnapshotDb): Promise<MarketRow[]> {
  return db.query<MarketRow>(
    `SELECT m.slug, m.code, m.name, m.exchange, m.mic, m.sector, m.report_types
       FROM markets m
      WHERE EXISTS (SELECT 1 FROM sources s WHERE s.id = 'cftc' AND s.rights IN ('public_domain', 'open_licence'))
      ORDER BY m.slug`,
  );
}

/** Reads one tracked market by slug, or null. */
export async function readMarket(db: SnapshotDb, slug: string): Promise<MarketRow | null> {
  const markets = await readMarkets(db);
  return markets.find((m) => m.slug === slug) ?? null;
}

/** Reads the latest report (in-force revision) of every series key given. */
export async function readLatestReports(db: SnapshotDb): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(`SELECT ${REPORT_COLUMNS} FROM cot_latest ORDER BY series_key`);
}

/** Reads the in-force revision of the `weeks` most recent reports of one series, oldest first. */
export async function readRecentReports(
  db: SnapshotDb,
  seriesKey: string,
  weeks: number,
): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(
    `SELECT * FROM (
       SELECT ${REPORT_COLUMNS} FROM cot_reports WHERE series_key = $key
       QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1
       ORDER BY period DESC LIMIT $weeks)
     ORDER BY period`,
    { key: seriesKey, weeks },
  );
}

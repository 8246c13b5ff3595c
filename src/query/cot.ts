import type { CotPosition } from '../model/records.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** One name a market was published under, and the report dates it was used from and to. */
export interface MarketNameRow {
  name: string;
  first_report: string;
  last_report: string;
}

/** A COT market: every market code of the files, the catalog's overrides applied (cot-market-table.ts). */
export interface MarketRow {
  slug: string;
  code: string;
  name: string;
  exchange: string | null;
  mic: string | null;
  sector: string | null;
  /** The CFTC's own codes of the market, as its latest report gives them. */
  exchange_code: string | null;
  region_code: string | null;
  commodity_code: string | null;
  subgroup_code: string | null;
  /** Futures-only report types served for the market, the default first. */
  report_types: string[];
  names: MarketNameRow[];
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
  observed_at_method: string | null;
  revision_number: number;
  supersedes_id: string | null;
  source_ref: string;
}

const REPORT_COLUMNS = `id, series_key, report_type, market_code, period, market_name, contract_units, open_interest,
  change_open_interest, traders_total, conc_gross_le4_long, conc_gross_le4_short, conc_gross_le8_long,
  conc_gross_le8_short, positions, ${rfc3339('observed_at')} AS observed_at, observed_at_method, revision_number,
  supersedes_id, source_ref`;

const MARKET_COLUMNS = `slug, code, name, exchange, mic, sector, exchange_code, region_code, commodity_code,
  subgroup_code, report_types, names`;

// Markets are public only while the CFTC source is redistributable.
const CFTC_IS_OPEN = `EXISTS (SELECT 1 FROM sources s WHERE s.id = 'cftc' AND s.rights IN ('public_domain', 'open_licence'))`;

/** Reads every COT market (of a redistributable CFTC source), by slug. */
export async function readMarkets(db: SnapshotDb): Promise<MarketRow[]> {
  return db.query<MarketRow>(`SELECT ${MARKET_COLUMNS} FROM cot_markets WHERE ${CFTC_IS_OPEN} ORDER BY slug`);
}

/** Reads one COT market by slug, or null. */
export async function readMarket(db: SnapshotDb, slug: string): Promise<MarketRow | null> {
  const rows = await db.query<MarketRow>(
    `SELECT ${MARKET_COLUMNS} FROM cot_markets WHERE slug = $slug AND ${CFTC_IS_OPEN}`,
    { slug },
  );
  return rows[0] ?? null;
}

/** Reads the latest report (in-force revision) of every series key given. */
export async function readLatestReports(db: SnapshotDb): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(`SELECT ${REPORT_COLUMNS} FROM cot_latest ORDER BY series_key`);
}

/** Reads the in-force revision of the `limit` most recent reports of one series, oldest first. */
export async function readRecentReports(
  db: SnapshotDb,
  seriesKey: string,
  limit: number,
): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(
    `SELECT * FROM (
       SELECT ${REPORT_COLUMNS} FROM ${db.factRelation('cot_reports', seriesKey)} AS cot_reports WHERE series_key = $key
       QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1
       ORDER BY period DESC LIMIT $limit)
     ORDER BY period`,
    { key: seriesKey, limit },
  );
}

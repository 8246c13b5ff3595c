import type { CotCropYear, CotNetConcentration, CotReportField, CotReportInput } from '../model/records.ts';
import { roundedRatioSql, roundedRootRatioSql } from './exact-round.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/**
 * The public COT window (SPEC rule 1): per market and report type (per COT series key) the 12
 * most recent report dates. Every public view of COT reports holds these dates only: endpoint 3
 * without cot:history, the site's market pages, the public bulk file, /changes; anything older is
 * for a key holding cot:history (docs/keys.md).
 */
export const PUBLIC_COT_REPORTS = 12;

/**
 * The one SQL statement of the public window: `(series_key, period)` of the PUBLIC_COT_REPORTS
 * most recent report dates of each series of `relation` (a relation with the columns of
 * cot_reports). Join it to keep the public reports only.
 */
export function publicCotWindowSql(relation: string): string {
  return `SELECT series_key, period FROM (SELECT DISTINCT series_key, period FROM ${relation})
           QUALIFY row_number() OVER (PARTITION BY series_key ORDER BY period DESC) <= ${PUBLIC_COT_REPORTS}`;
}

/** One name a market was published under, and the report dates it was used from and to. */
export interface MarketNameRow {
  name: string;
  first_report: string;
  last_report: string;
}

/** A COT market: every market code of the files, the catalog's overrides applied (store/cot-market-table.ts). */
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
  /** The first and last report date of the market in any report type; null for a catalog-only market. */
  first_report: string | null;
  last_report: string | null;
  /** Reported in the latest report date of one of its report types (store/cot-market-table.ts). */
  active: boolean;
  /** The codes the files show this market handing over to, and taking over from (contract lineage). */
  replaced_by: MarketLinkRow[];
  replaces: MarketLinkRow[];
}

/** A market another one is linked to by contract lineage. */
export interface MarketLinkRow {
  code: string;
  slug: string;
}

/** One COT report revision as stored: the fields of its parsed report it keeps, and its revision. */
export interface CotReportRow
  extends Pick<
    CotReportInput,
    'market_code' | 'period' | 'market_name' | 'contract_units' | CotReportField | 'positions'
  > {
  id: string;
  series_key: string;
  report_type: string;
  observed_at: string;
  observed_at_method: string | null;
  revision_number: number;
  supersedes_id: string | null;
  source_ref: string;
  /** Per category the analytics of this report (cotAnalyticsSql); null for a report without positions. */
  analytics: CotAnalyticsRow[] | null;
}

/** The columns stored beside a report (cot_report_columns), as the keyed history reads them. */
export const COT_EXTRA_COLUMNS = [
  'conc_net_le4_long',
  'conc_net_le4_short',
  'conc_net_le8_long',
  'conc_net_le8_short',
  'crop_years',
] as const;

/**
 * A report of the keyed history (endpoint 3 with cot:history): the report and the columns stored
 * beside it in force at as_of, null where the store has none for it.
 */
export type CotHistoryRow = CotReportRow & {
  [K in keyof CotNetConcentration]: number | null;
} & { crop_years: CotCropYear[] | null };

/** The analytics of one trader category of one report (docs/api/cot-analytics.md). */
export interface CotAnalyticsRow {
  category: string;
  pct_oi_net: number | null;
  cot_index_26: number | null;
  cot_index_52: number | null;
  cot_index_156: number | null;
  z_score_52: number | null;
}

/**
 * The windows of the analytics, in reports: the COT Index over each of `index`, the z-score over
 * `z`. Each names its field (`cot_index_<n>`, `z_score_<n>`).
 */
export interface CotAnalyticsWindows {
  index: readonly number[];
  z: number;
}

/** The windows the API serves: COT Index over 26, 52 and 156 reports, z-score over 52. */
export const SERVED_WINDOWS: CotAnalyticsWindows = { index: [26, 52, 156], z: 52 };

/** The struct entry of the COT Index over n reports: null until n reports have a net, or when max = min. */
const indexEntry = (n: number) =>
  `cot_index_${n}: CASE WHEN n${n} = ${n} AND max${n} > min${n}
                        THEN ${roundedRatioSql(`(net - min${n}) * 100`, `max${n} - min${n}`, 2)} END`;

/**
 * The in-force reports of `relation` that `where` keeps (a condition on cot_reports, e.g. the
 * series and as_of), one per series and report date, each with its `analytics`: per category
 * net as % of open interest, the COT Index over 26, 52 and 156 reports and the 52-report
 * z-score of net. The windows run over every report `where` keeps, so filter periods and page
 * outside this query (docs/api/cot-analytics.md has the definitions).
 */
export function cotAnalyticsSql(
  relation: string,
  where: string,
  windows: CotAnalyticsWindows = SERVED_WINDOWS,
): string {
  const { index, z } = windows;
  const all = [...new Set([...index, z])];
  const frames = all
    .map(
      (n) =>
        `w${n} AS (PARTITION BY series_key, category ORDER BY period ROWS BETWEEN ${n - 1} PRECEDING AND CURRENT ROW)`,
    )
    .join(',\n      ');
  const stats = all
    .map(
      (n) => `count(net) OVER w${n} AS n${n}, min(net) OVER w${n} AS min${n}, max(net) OVER w${n} AS max${n}`,
    )
    .join(',\n           ');
  return `WITH in_force AS (
    SELECT ${REPORT_COLUMNS} FROM ${relation} AS cot_reports WHERE ${where}
    QUALIFY row_number() OVER (PARTITION BY series_key, period ORDER BY revision_number DESC) = 1
  ), nets AS (
    SELECT series_key, period, open_interest, p.category AS category,
           CAST(p.long AS BIGINT) - CAST(p.short AS BIGINT) AS net
      FROM (SELECT series_key, period, open_interest, unnest(positions) AS p FROM in_force)
  ), windows AS (
    SELECT *, ${stats},
           sum(net) OVER w${z} AS sum${z}, sum(CAST(net AS HUGEINT) * net) OVER w${z} AS squares${z}
      FROM nets
    WINDOW ${frames}
  ), moments AS (
    -- The z-score (net - mean) / sd is (N net - sum) / sqrt(N squares - sum^2), in integers.
    SELECT *, ${z} * net - sum${z} AS deviation${z}, ${z} * squares${z} - sum${z} * sum${z} AS spread${z}
      FROM windows
  ), analytics AS (
    SELECT series_key, period, list({
             category: category,
             pct_oi_net: CASE WHEN open_interest > 0 THEN ${roundedRatioSql('net * 100', 'open_interest', 2)} END,
             ${index.map(indexEntry).join(',\n             ')},
             z_score_${z}: CASE WHEN n${z} = ${z} AND spread${z} > 0
                                THEN ${roundedRootRatioSql(`deviation${z}`, `spread${z}`, 4)} END
           } ORDER BY category) AS analytics
      FROM moments GROUP BY series_key, period
  )
  SELECT in_force.*, analytics.analytics
    FROM in_force LEFT JOIN analytics USING (series_key, period)`;
}

const REPORT_COLUMNS = `id, series_key, report_type, market_code, period, market_name, contract_units, open_interest,
  change_open_interest, traders_total, conc_gross_le4_long, conc_gross_le4_short, conc_gross_le8_long,
  conc_gross_le8_short, positions, ${rfc3339('observed_at')} AS observed_at, observed_at_method, revision_number,
  supersedes_id, source_ref`;

const MARKET_COLUMNS = `slug, code, name, exchange, mic, sector, exchange_code, region_code, commodity_code,
  subgroup_code, report_types, names, first_report, last_report, active, replaced_by, replaces`;

// Markets are public only while the CFTC source is redistributable.
export const CFTC_IS_OPEN = `EXISTS (SELECT 1 FROM sources s WHERE s.id = 'cftc' AND s.rights IN ('public_domain', 'open_licence'))`;

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

/** Reads one COT market by its CFTC contract market code (`088691`, upper case), or null. */
export async function readMarketByCode(db: SnapshotDb, code: string): Promise<MarketRow | null> {
  const rows = await db.query<MarketRow>(
    `SELECT ${MARKET_COLUMNS} FROM cot_markets WHERE code = $code AND ${CFTC_IS_OPEN}`,
    { code },
  );
  return rows[0] ?? null;
}

/**
 * Reads the latest report (in-force revision) of every series, with its analytics computed over
 * the series' reports up to it.
 */
export async function readLatestReports(db: SnapshotDb): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(
    `SELECT * FROM (${cotAnalyticsSql('cot_reports', 'TRUE')})
     QUALIFY row_number() OVER (PARTITION BY series_key ORDER BY period DESC) = 1
     ORDER BY series_key`,
  );
}

/**
 * Reads the in-force revision of the `limit` most recent reports of one series, oldest first;
 * by default the public window (the same dates as publicCotWindowSql).
 */
export async function readRecentReports(
  db: SnapshotDb,
  seriesKey: string,
  limit: number = PUBLIC_COT_REPORTS,
): Promise<CotReportRow[]> {
  return db.query<CotReportRow>(
    `SELECT * FROM (
       SELECT * FROM (${cotAnalyticsSql(db.factRelation('cot_reports', seriesKey), 'series_key = $key')})
       ORDER BY period DESC LIMIT $limit)
     ORDER BY period`,
    { key: seriesKey, limit },
  );
}

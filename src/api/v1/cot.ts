import { CFTC_CODE } from '../../contract/cot-params.ts';
import { invalidParameter, notFound } from '../../contract/errors.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import {
  type CotReportRow,
  type MarketRow,
  PUBLIC_COT_REPORTS,
  readLatestReports,
  readMarket,
  readMarketByCode,
  readMarkets,
  readRecentReports,
} from '../../query/cot.ts';
import type { PayloadFunction } from './context.ts';
import { cotSeriesKey, presentCotReport } from './cot-report.ts';

/** Weekly reports an anonymous caller sees (SPEC rule 1): the public window of query/cot.ts. */
export const PUBLIC_REPORTS = PUBLIC_COT_REPORTS;

/** A market as every COT payload shows it. */
export function presentMarket(market: MarketRow) {
  return {
    slug: market.slug,
    code: market.code,
    name: market.name,
    exchange: market.exchange,
    mic: market.mic,
    sector: market.sector,
    report_types: market.report_types,
    cftc_codes: {
      exchange: market.exchange_code,
      region: market.region_code,
      commodity: market.commodity_code,
      subgroup: market.subgroup_code,
    },
    replaces: market.replaces,
    replaced_by: market.replaced_by,
  };
}

/**
 * A market with its name history, for the per-market payloads. Given `windowFrom` (the first
 * report date of the public window), the history covers the window only: names last used before
 * it are left out and a first_report before it reads as `windowFrom`, so that no public answer
 * holds a report date older than the window; null (no public report) leaves no name.
 */
export function presentMarketDetail(market: MarketRow, windowFrom?: string | null) {
  if (windowFrom === undefined) return { ...presentMarket(market), names: market.names };
  const names =
    windowFrom === null
      ? []
      : market.names
          .filter((entry) => entry.last_report >= windowFrom)
          .map((entry) => ({
            ...entry,
            first_report: entry.first_report < windowFrom ? windowFrom : entry.first_report,
          }));
  return { ...presentMarket(market), names };
}

async function cftcTerms(db: Parameters<PayloadFunction>[0]['db']) {
  const terms = await readSourceTerms(db, 'cftc');
  return { attribution: terms?.attribution ?? null, licence: terms?.licence ?? null };
}

/**
 * Endpoint 2: every market ever reported, with its first and last report date and whether it is
 * active, and its latest report across the report types it is served in (the newest report date;
 * on a tie the market's default type first). Markets without a report are left out. The first
 * report date is market metadata, not a report: the reports themselves stay in the public window.
 */
export const getCotSummary: PayloadFunction = async ({ db }) => {
  const [markets, latest] = await Promise.all([readMarkets(db), readLatestReports(db)]);
  const bySeries = new Map(latest.map((row) => [row.series_key, row]));
  const data = markets.flatMap((market) => {
    let report: CotReportRow | undefined;
    for (const type of market.report_types) {
      const candidate = bySeries.get(cotSeriesKey(market.code, type));
      if (candidate && (report === undefined || candidate.period > report.period)) report = candidate;
    }
    if (!report) return [];
    const { first_report, last_report, active } = market;
    return [
      { ...presentMarket(market), first_report, last_report, active, latest: presentCotReport(report) },
    ];
  });
  return { data, meta: await cftcTerms(db) };
};

/**
 * Endpoint 3, public form: the latest 12 reports of one market and report type (oldest first),
 * and a window saying how many there are and which dates they span. The keyed form (full
 * history) is served by cot-history.ts.
 */
export const getCotMarketPublic: PayloadFunction = async ({ db }, params) => {
  const market = await resolveMarket(db, params.slug);
  const reportType = resolveReportType(market, params.query.report_type);
  const reports = await readRecentReports(db, cotSeriesKey(market.code, reportType), PUBLIC_REPORTS);
  return {
    data: reports.map(presentCotReport),
    meta: {
      // Tags the view (the OpenAPI discriminator of this meta); the keyed one is `history`.
      view: 'latest',
      market: presentMarketDetail(market, reports[0]?.period ?? null),
      report_type: reportType,
      window: {
        reports: reports.length,
        limit: PUBLIC_REPORTS,
        from: reports[0]?.period ?? null,
        to: reports.at(-1)?.period ?? null,
        full_history: false,
      },
      ...(await cftcTerms(db)),
    },
  };
};

/**
 * Finds a market by slug, or by its CFTC contract market code (any case: the same body as the
 * slug, as Socrata users ask for it), or answers 404.
 */
export async function resolveMarket(
  db: Parameters<PayloadFunction>[0]['db'],
  slug: string | null,
): Promise<MarketRow> {
  let market = slug === null ? null : await readMarket(db, slug);
  if (!market && slug !== null && CFTC_CODE.test(slug))
    market = await readMarketByCode(db, slug.toUpperCase());
  if (!market) throw notFound(`market ${slug}`);
  return market;
}

/** The requested report type, or the market's first; one the market is not served in is a 400. */
export function resolveReportType(market: MarketRow, requested: string | number | undefined): string {
  // A market listed by the catalog alone has no report yet: its page is empty, not an error.
  if (requested === undefined) return market.report_types[0] ?? 'legacy';
  if (!market.report_types.includes(String(requested))) {
    throw invalidParameter(
      'report_type',
      `one of the report types served for ${market.slug}: ${market.report_types.join(', ')}`,
    );
  }
  return String(requested);
}

import { invalidParameter, notFound } from '../../contract/errors.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import {
  type MarketRow,
  readLatestReports,
  readMarket,
  readMarkets,
  readRecentReports,
} from '../../query/cot.ts';
import type { PayloadFunction } from './context.ts';
import { cotSeriesKey, presentCotReport } from './cot-report.ts';

/** Weekly reports an anonymous caller sees (SPEC rule 1). */
export const PUBLIC_WEEKS = 12;

function presentMarket(market: MarketRow) {
  return {
    slug: market.slug,
    code: market.code,
    name: market.name,
    exchange: market.exchange,
    mic: market.mic,
    sector: market.sector,
    report_types: market.report_types,
  };
}

async function cftcTerms(db: Parameters<PayloadFunction>[0]['db']) {
  const terms = await readSourceTerms(db, 'cftc');
  return { attribution: terms?.attribution ?? null, licence: terms?.licence ?? null };
}

/** Endpoint 2: per tracked market, its latest report of the first report type that has data. */
export const getCotSummary: PayloadFunction = async ({ db }) => {
  const [markets, latest] = await Promise.all([readMarkets(db), readLatestReports(db)]);
  const bySeries = new Map(latest.map((row) => [row.series_key, row]));
  const data = markets.flatMap((market) => {
    const report = market.report_types
      .map((type) => bySeries.get(cotSeriesKey(market.code, type)))
      .find(Boolean);
    return report ? [{ ...presentMarket(market), latest: presentCotReport(report) }] : [];
  });
  return { data, meta: await cftcTerms(db) };
};

/**
 * Endpoint 3, public form: the 12 most recent weekly reports of one market (oldest first)
 * and the window they cover. The keyed form (full history) is served by cot-history.ts.
 */
export const getCotMarketPublic: PayloadFunction = async ({ db }, params) => {
  const market = await resolveMarket(db, params.slug);
  const reportType = resolveReportType(market, params.query.report_type);
  const reports = await readRecentReports(db, cotSeriesKey(market.code, reportType), PUBLIC_WEEKS);
  return {
    data: reports.map(presentCotReport),
    meta: {
      market: presentMarket(market),
      report_type: reportType,
      window: {
        weeks: PUBLIC_WEEKS,
        from: reports[0]?.period ?? null,
        to: reports.at(-1)?.period ?? null,
        full_history: false,
      },
      ...(await cftcTerms(db)),
    },
  };
};

/** Finds a tracked market by slug or answers 404. */
export async function resolveMarket(
  db: Parameters<PayloadFunction>[0]['db'],
  slug: string | null,
): Promise<MarketRow> {
  const market = slug === null ? null : await readMarket(db, slug);
  if (!market) throw notFound(`market ${slug}`);
  return market;
}

/** The requested report type, or the market's first; one the market is not tracked in is a 400. */
export function resolveReportType(market: MarketRow, requested: string | number | undefined): string {
  if (requested === undefined) return market.report_types[0]!;
  if (!market.report_types.includes(String(requested))) {
    throw invalidParameter(
      'report_type',
      `one of the report types tracked for ${market.slug}: ${market.report_types.join(', ')}`,
    );
  }
  return String(requested);
}

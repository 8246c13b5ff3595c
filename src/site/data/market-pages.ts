import { getCotMarketPublic, getCotSummary } from '../../api/v1/cot.ts';
import type { presentCotReport } from '../../api/v1/cot-report.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import { readSectors } from '../../query/catalog-lists.ts';
import { type MarketRow, readMarket, readMarkets } from '../../query/cot.ts';
import { type ChartPoint, renderLineChart } from '../charts/line-chart.ts';
import { formatChange, formatIdentifier, formatNumber, formatPercent, formatTimestamp } from '../format.ts';
import type { AnalyticsRow, MarketListItem, MarketPage, ReportTypeSection } from './market-page-types.ts';
import { readPublicData, type SiteContext } from './site-context.ts';

export type {
  AnalyticsRow,
  CategoryRow,
  MarketListItem,
  MarketPage,
  ReportTypeSection,
} from './market-page-types.ts';

const REPORT_TYPE_LABELS: Record<string, string> = {
  legacy: 'Legacy',
  disaggregated: 'Disaggregated',
  tff: 'Traders in Financial Futures',
  legacy_combined: 'Legacy, futures and options',
  disaggregated_combined: 'Disaggregated, futures and options',
  tff_combined: 'Traders in Financial Futures, futures and options',
  cit: 'Commodity Index Traders (supplemental)',
};

const CATEGORY_LABELS: Record<string, string> = {
  noncommercial: 'Non-commercial',
  nonreportable: 'Non-reportable',
  producer_merchant: 'Producer/merchant',
};

/** What the pages call the sector of a market the CFTC codes place in none of ours. */
const OTHER_SECTOR = 'Other';

/** The positions of all reportable traders together: a sum, so not charted beside its parts. */
const TOTAL = 'total_reportable';

/** A trader category's display name. */
export function labelCategory(category: string): string {
  return CATEGORY_LABELS[category] ?? formatIdentifier(category);
}

type Report = ReturnType<typeof presentCotReport>;

/** Lists every market (of a redistributable source) with its latest report, if any. */
export async function readMarketList(context: SiteContext): Promise<MarketListItem[]> {
  const [markets, summary, sectors] = await Promise.all([
    readMarkets(context.db),
    readPublicData<Array<{ slug: string; latest: Report }>>(context, getCotSummary),
    readSectors(context.db),
  ]);
  const latest = new Map(summary.data.map((row) => [row.slug, row.latest]));
  const sectorNames = new Map(sectors.map((s) => [s.id, s.name]));
  return markets.map((market) => ({
    slug: market.slug,
    name: market.name,
    exchange: market.exchange ?? '',
    sector: market.sector ?? '',
    sectorName: market.sector === null ? OTHER_SECTOR : (sectorNames.get(market.sector) ?? market.sector),
    reportTypes: market.report_types.map((type) => REPORT_TYPE_LABELS[type] ?? type),
    latestDate: latest.get(market.slug)?.report_date ?? null,
    openInterest: formatNumber(latest.get(market.slug)?.open_interest),
  }));
}

/**
 * Reads one market's public reports per report type (endpoint 3 without a key: the public window
 * of query/cot.ts, the 12 most recent reports) and shapes its charts and latest table. The page
 * never shows an older report: the full history is for a key holding cot:history.
 */
export async function readMarketPage(context: SiteContext, slug: string): Promise<MarketPage> {
  const market = await readMarket(context.db, slug);
  if (!market) throw new Error(`no market ${slug}`);
  const sectors = await readSectors(context.db);
  const sections: ReportTypeSection[] = [];
  const missingTypes: string[] = [];
  let openInterest: Report[] = [];
  // The names the market was published under within the public window (endpoint 3's meta of
  // its first report type with reports).
  let names: MarketRow['names'] = [];
  for (const type of market.report_types) {
    const { data: reports, meta } = await readPublicData<Report[]>(
      context,
      getCotMarketPublic,
      { report_type: type },
      market.slug,
    );
    if (reports.length === 0) {
      missingTypes.push(REPORT_TYPE_LABELS[type] ?? type);
      continue;
    }
    if (openInterest.length === 0) openInterest = reports;
    const windowNames = (meta.market as { names: MarketRow['names'] }).names;
    if (names.length === 0) names = windowNames;
    sections.push(presentSection(market, type, reports));
  }
  const terms = await readSourceTerms(context.db, 'cftc');
  return {
    slug: market.slug,
    name: market.name,
    code: market.code,
    exchange: market.exchange ?? '',
    mic: market.mic,
    sector: sectors.find((s) => s.id === market.sector)?.name ?? OTHER_SECTOR,
    formerNames: names
      .filter((entry) => entry.name !== names.at(-1)?.name)
      .map((entry) => `${entry.name} (${entry.first_report} to ${entry.last_report})`)
      .reverse(),
    contractUnits: openInterest.at(-1)?.contract_units ?? null,
    sections,
    missingTypes,
    openInterestChart:
      openInterest.length === 0
        ? null
        : renderLineChart({
            id: `${market.slug}-open-interest`,
            title: `${market.name}: open interest`,
            yLabel: 'Open interest (contracts)',
            xLabel: 'Report date',
            series: [{ name: 'Open interest', points: pointsOf(openInterest, (r) => r.open_interest) }],
          }),
    attribution: terms?.attribution ?? null,
    licence: terms?.licence ?? null,
  };
}

function pointsOf(reports: readonly Report[], value: (report: Report) => number | null): ChartPoint[] {
  return reports.flatMap((report) => {
    const y = value(report);
    return y === null ? [] : [{ x: report.report_date, y }];
  });
}

function presentSection(market: MarketRow, type: string, reports: Report[]): ReportTypeSection {
  const latest = reports.at(-1)!;
  const categories = Object.keys(latest.categories);
  const label = REPORT_TYPE_LABELS[type] ?? type;
  return {
    type,
    label,
    reports: reports.length,
    from: reports[0]!.report_date,
    to: latest.report_date,
    netChart: renderLineChart({
      id: `${market.slug}-${type}-net`,
      title: `${market.name}: net positions by trader category (${label} report)`,
      yLabel: 'Net position (contracts)',
      xLabel: 'Report date',
      series: categories
        .filter((category) => category !== TOTAL)
        .map((category) => ({
          name: labelCategory(category),
          points: pointsOf(reports, (r) => r.categories[category]?.net ?? null),
        })),
    }),
    indexChart: presentIndexChart(market, label, type, categories, reports),
    latest: {
      date: latest.report_date,
      releasedAt: formatTimestamp(latest.released_at),
      openInterest: formatNumber(latest.open_interest),
      changeOpenInterest: formatChange(latest.change_open_interest),
      tradersTotal: formatNumber(latest.traders_total),
      rows: categories.map((category) => {
        const c = latest.categories[category]!;
        return {
          category: labelCategory(category),
          long: formatNumber(c.long),
          short: formatNumber(c.short),
          spread: formatNumber(c.spread),
          net: formatNumber(c.net),
          changeNet: formatChange(c.change_net),
          pctLong: formatPercent(c.pct_oi_long),
          pctShort: formatPercent(c.pct_oi_short),
          pctSpread: formatPercent(c.pct_oi_spread),
        };
      }),
      analytics: presentAnalytics(latest, categories),
    },
  };
}

/** The analytics rows of a report, or null when none of its windows is full (no value to show). */
function presentAnalytics(report: Report, categories: string[]): AnalyticsRow[] | null {
  const values = categories.map((category) => report.categories[category]!);
  const any = values.some((c) =>
    [c.cot_index_26, c.cot_index_52, c.cot_index_156, c.z_score_52].some(
      (v) => v !== null && v !== undefined,
    ),
  );
  if (!any) return null;
  return categories.map((category, i) => ({
    category: labelCategory(category),
    cotIndex26: formatNumber(values[i]!.cot_index_26, 1),
    cotIndex52: formatNumber(values[i]!.cot_index_52, 1),
    cotIndex156: formatNumber(values[i]!.cot_index_156, 1),
    zScore52: formatNumber(values[i]!.z_score_52, 2),
  }));
}

/** The COT Index over 52 reports (0-100) per category, where any report has one (docs/api/cot-analytics.md). */
export function presentIndexChart(
  market: MarketRow,
  label: string,
  type: string,
  categories: string[],
  reports: Report[],
): string | null {
  const series = categories
    .filter((category) => category !== TOTAL)
    .map((category) => ({
      name: labelCategory(category),
      points: pointsOf(reports, (r) => r.categories[category]?.cot_index_52 ?? null),
    }))
    .filter((line) => line.points.length > 0);
  if (series.length === 0) return null;
  return renderLineChart({
    id: `${market.slug}-${type}-cot-index-52`,
    title: `${market.name}: 52-week COT Index by trader category (${label} report)`,
    yLabel: 'COT Index, 52 reports (0-100)',
    xLabel: 'Report date',
    series,
    formatValue: (value) => value.toFixed(0),
  });
}

import { getEcbRates } from '../../api/v1/fx.ts';
import { readValuesInForce } from '../../query/series-history.ts';
import { renderLineChart } from '../charts/line-chart.ts';
import { type DownloadLink, readHistorySlugs, seriesDownloads } from '../downloads.ts';
import { formatNumber } from '../format.ts';
import { readPublicData, type SiteContext } from './site-context.ts';

/** One currency's latest reference rate. */
export interface FxRateRow {
  currency: string;
  name: string;
  rate: string;
  date: string;
}

/** One currency's chart. */
export interface FxChart {
  currency: string;
  name: string;
  days: number;
  /** What the chart holds, in words (how many dates, how many of them plotted). */
  caption: string;
  svg: string;
  /** Its public history files (CSV, JSON); empty if the series has none. */
  downloads: DownloadLink[];
}

/** Points per currency chart: half a page wide, more would be closer together than pixels. */
const FX_CHART_POINTS = 200;

/** The ECB rates page. */
export interface FxPage {
  date: string | null;
  rates: FxRateRow[];
  charts: FxChart[];
  attribution: string | null;
  licence: string | null;
}

/** A rate of the public `/api/v1/fx/ecb` payload. */
interface EcbRate {
  currency: string;
  currency_name: string | null;
  rate: number;
  date: string;
  series_key: string;
}

/**
 * The latest ECB reference rates and, per currency still quoted, a chart of every reference
 * date in the snapshot (the value in force of each date). The currencies are those of the
 * public payload, so a source that may not be redistributed never reaches the page.
 */
export async function readFxPage(context: SiteContext): Promise<FxPage> {
  const { data: rates, meta } = await readPublicData<EcbRate[]>(context, getEcbRates);
  const charts: FxChart[] = [];
  const historySlugs = await readHistorySlugs(context.db);
  for (const rate of rates) {
    // The values the series' history file holds: one query, asked once per build (memo-queries.ts).
    const rows = await readValuesInForce(context.db, rate.series_key);
    const points = rows.map((row) => ({ x: row.period, y: row.value }));
    const name = rate.currency_name ?? rate.currency;
    const slug = historySlugs.get(rate.series_key);
    charts.push({
      currency: rate.currency,
      name,
      days: points.length,
      caption: `${points.length} reference dates in this snapshot${points.length > FX_CHART_POINTS ? `, ${FX_CHART_POINTS} of them plotted at even intervals` : ''}.`,
      svg: renderLineChart({
        id: `fx-${rate.currency.toLowerCase()}`,
        title: `${rate.currency} per euro (${name}), ECB reference rate`,
        yLabel: `${rate.currency} per 1 EUR`,
        xLabel: 'Reference date',
        series: [{ name: `${rate.currency} per euro`, points }],
        formatValue: (value) => formatNumber(value, 5),
        maxPoints: FX_CHART_POINTS,
        // About thirty charts on one page: lines only, or the page would weigh 2 MB of markers.
        markers: false,
        // Two charts share a row of the page: a narrower drawing keeps its text legible.
        width: 480,
        height: 260,
      }),
      downloads: slug ? seriesDownloads(slug) : [],
    });
  }
  return {
    date: (meta.date as string | null) ?? null,
    rates: rates.map((rate) => ({
      currency: rate.currency,
      name: rate.currency_name ?? rate.currency,
      rate: formatNumber(rate.rate, 6),
      date: rate.date,
    })),
    charts,
    attribution: (meta.attribution as string | null) ?? null,
    licence: (meta.licence as string | null) ?? null,
  };
}

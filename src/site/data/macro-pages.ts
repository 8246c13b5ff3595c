import { getMacroLatest } from '../../api/v1/macro.ts';
import type { SeriesIdentity } from '../../model/reference-records.ts';
import { readSourceTerms } from '../../query/catalog.ts';
import { type ObservationRow, readObservationHistory } from '../../query/history.ts';
import { parsePeriodStart } from '../charts/axis-ticks.ts';
import { renderLineChart } from '../charts/line-chart.ts';
import { type DownloadLink, readSeriesDownloads } from '../downloads.ts';
import { formatNumber, formatTimestamp } from '../format.ts';
import { renderRevisionBars } from '../revisions-bars.ts';
import { revisionBarPoints } from '../revisions-view.ts';
import { readPublicData, readWholeHistory, type SiteContext } from './site-context.ts';

/** A tracked macro series as the public `/api/v1/macro` payload lists it. */
interface MacroLatest extends SeriesIdentity {
  seasonal_adjustment: string | null;
  latest: { period: string; value: number; published_at: string; revision_number: number } | null;
  periods: number | null;
  next_release: {
    name: string;
    scheduled_at: string;
    time_zone: string;
    local_time: string;
    reference_period: string;
  } | null;
}

/** A macro series as the series list shows it. */
export interface MacroListItem {
  slug: string;
  key: string;
  name: string;
  unit: string;
  frequency: string;
  latestPeriod: string | null;
  latestValue: string;
  revisionNumber: number | null;
}

/** One period: its first print against the value in force, and how often it was revised. */
export interface MacroPeriodRow {
  period: string;
  firstPrint: string;
  firstPublished: string;
  inForce: string;
  inForcePublished: string;
  revisions: number;
}

/** Everything the page of one macro series shows. */
export interface MacroPage {
  slug: string;
  key: string;
  name: string;
  unit: string;
  frequency: string;
  seasonalAdjustment: string | null;
  periods: number;
  /** Its public history files (CSV, JSON). */
  downloads: DownloadLink[];
  chart: string | null;
  /**
   * The same two lines over the last five years, where the history is longer: on a chart of
   * decades the revisions of recent periods are too small to see. Null for shorter histories.
   */
  recentChart: string | null;
  /** Value in force minus first print per period; null when no period was revised. */
  revisionChart: string | null;
  /** The newest periods, newest first. */
  latest: MacroPeriodRow[];
  /** The newest periods revised at least once, newest first. */
  revised: MacroPeriodRow[];
  /** How many periods were revised in all (the table shows the newest few). */
  revisedCount: number;
  attribution: string | null;
  licence: string | null;
  /** The next release the calendars schedule for the series (/api/v1/releases), or null past their end. */
  nextRelease: { name: string; at: string; local: string; period: string } | null;
}

/** The span of the "last 5 years" view, and the history it is offered for (longer than that). */
const RECENT_YEARS = 5;

/** Periods in the page's "latest periods" table. */
const LATEST_ROWS = 8;
/** Periods in the page's "revised periods" table. */
const REVISED_ROWS = 24;

/**
 * Lists the tracked macro series exactly as `/api/v1/macro` does: only series of
 * redistributable sources, so nothing licensed ever gets a page.
 */
async function readTracked(context: SiteContext): Promise<MacroLatest[]> {
  return (await readPublicData<MacroLatest[]>(context, getMacroLatest)).data;
}

/** Lists the tracked macro series with their latest value. */
export async function readMacroList(context: SiteContext): Promise<MacroListItem[]> {
  return (await readTracked(context)).map((series) => ({
    slug: series.slug,
    key: series.key,
    name: series.name,
    unit: series.unit,
    frequency: series.frequency,
    latestPeriod: series.latest?.period ?? null,
    latestValue: formatNumber(series.latest?.value),
    revisionNumber: series.latest?.revision_number ?? null,
  }));
}

/** Groups revision records by period: the first record, the one in force, and the count. */
function groupPeriods(rows: readonly ObservationRow[]) {
  const periods = new Map<string, { first: ObservationRow; inForce: ObservationRow; records: number }>();
  for (const row of rows) {
    const entry = periods.get(row.period);
    if (!entry) periods.set(row.period, { first: row, inForce: row, records: 1 });
    else {
      entry.records += 1;
      if (row.revision_number < entry.first.revision_number) entry.first = row;
      if (row.in_force) entry.inForce = row;
    }
  }
  return [...periods.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

/**
 * Reads every revision record of one tracked series and shapes its chart (first prints against
 * the values in force) and its tables. A slug that is not on the public list is an error.
 */
export async function readMacroPage(context: SiteContext, slug: string): Promise<MacroPage> {
  const series = (await readTracked(context)).find((s) => s.slug === slug);
  if (!series) throw new Error(`no public macro series ${slug}`);
  const rows = await readWholeHistory((query) => readObservationHistory(context.db, series.key, query));
  const periods = groupPeriods(rows);
  const present = ([period, p]: (typeof periods)[number]): MacroPeriodRow => ({
    period,
    firstPrint: formatNumber(p.first.value),
    firstPublished: formatTimestamp(p.first.observed_at),
    inForce: formatNumber(p.inForce.value),
    inForcePublished: formatTimestamp(p.inForce.observed_at),
    revisions: p.records - 1,
  });
  const revised = periods.filter(([, p]) => p.records > 1).reverse();
  const terms = await readSourceTerms(context.db, series.source);
  const recent = selectRecent(periods);
  const revisionLines = (selected: readonly (typeof periods)[number][]) => [
    { name: 'Value in force', points: selected.map(([x, p]) => ({ x, y: p.inForce.value })) },
    { name: 'First print', points: selected.map(([x, p]) => ({ x, y: p.first.value })), dashed: true },
  ];
  return {
    slug,
    key: series.key,
    name: series.name,
    unit: series.unit,
    frequency: series.frequency,
    seasonalAdjustment: series.seasonal_adjustment,
    periods: periods.length,
    downloads: await readSeriesDownloads(context.db, slug),
    chart:
      periods.length === 0
        ? null
        : renderLineChart({
            id: `${slug}-revisions`,
            title: `${series.name}: first print and value in force`,
            yLabel: formatUnit(series.unit),
            xLabel: 'Period',
            series: revisionLines(periods),
          }),
    recentChart:
      recent === null
        ? null
        : renderLineChart({
            id: `${slug}-recent`,
            title: `${series.name}: first print and value in force, last ${RECENT_YEARS} years`,
            yLabel: formatUnit(series.unit),
            xLabel: 'Period',
            series: revisionLines(recent),
          }),
    // The total revision per period as bars (docs/api/revisions.md), from the first revised period on.
    revisionChart:
      revised.length > 0
        ? renderRevisionBars({
            id: `${slug}-revision-size`,
            title: `${series.name}: size of revisions (value in force − first print)`,
            yLabel: `In force − first print (${series.unit})`,
            xLabel: 'Period',
            points: revisionBarPoints(rows),
            height: 240,
          })
        : null,
    latest: periods.slice(-LATEST_ROWS).reverse().map(present),
    revised: revised.slice(0, REVISED_ROWS).map(present),
    revisedCount: revised.length,
    attribution: terms?.attribution ?? null,
    licence: terms?.licence ?? null,
    nextRelease:
      series.next_release === null
        ? null
        : {
            name: series.next_release.name,
            at: formatTimestamp(series.next_release.scheduled_at),
            local: `${series.next_release.local_time.replace('T', ' ').slice(0, 16)} ${series.next_release.time_zone}`,
            period: series.next_release.reference_period,
          },
  };
}

/**
 * The periods of the last five years before the newest one, or null when the whole history is
 * not longer than that (the full chart already shows it at that scale).
 */
function selectRecent<T>(periods: Array<[string, T]>): Array<[string, T]> | null {
  if (periods.length < 2) return null;
  const last = new Date(parsePeriodStart(periods.at(-1)![0]));
  const cutoff = Date.UTC(last.getUTCFullYear() - RECENT_YEARS, last.getUTCMonth(), last.getUTCDate());
  if (parsePeriodStart(periods[0]![0]) >= cutoff) return null;
  return periods.filter(([period]) => parsePeriodStart(period) > cutoff);
}

/** The unit as an axis label: `Thousands of persons`. */
function formatUnit(unit: string): string {
  return unit.charAt(0).toUpperCase() + unit.slice(1);
}

import { join } from 'node:path';
import { expect } from 'vitest';
import { cotSeriesKey } from '../../src/api/v1/cot-report.ts';
import { openDuckDb, readCsvFile } from '../../src/db/duckdb.ts';
import type { CotAnalyticsWindows } from '../../src/query/cot.ts';
import { roundRatio, roundRootRatio } from './exact-decimal.ts';
import { SHARED_DATA } from './paths.ts';

/**
 * An independent computation of the COT analytics of docs/api/cot-analytics.md from the raw CFTC
 * text files: nets summed from the published long and short columns, windows in plain
 * TypeScript. Shared by the analytics tests on the real files and the demo's deep sample history.
 */

export interface FileLayout {
  file: string;
  type: 'legacy' | 'disaggregated' | 'tff';
  code: string;
  date: string;
  oi: string;
  /** Category → [long column, short column], as the CFTC names them (trimmed). */
  categories: Record<string, [string, string]>;
}

/** The TFF columns, for any TFF file (the sample's deep markets too: no publisher file needed). */
export const TFF_COLUMNS: Omit<FileLayout, 'file'> = {
  type: 'tff',
  code: 'CFTC_Contract_Market_Code',
  date: 'Report_Date_as_YYYY-MM-DD',
  oi: 'Open_Interest_All',
  categories: {
    dealer: ['Dealer_Positions_Long_All', 'Dealer_Positions_Short_All'],
    asset_manager: ['Asset_Mgr_Positions_Long_All', 'Asset_Mgr_Positions_Short_All'],
    leveraged_funds: ['Lev_Money_Positions_Long_All', 'Lev_Money_Positions_Short_All'],
    other_reportable: ['Other_Rept_Positions_Long_All', 'Other_Rept_Positions_Short_All'],
    total_reportable: ['Tot_Rept_Positions_Long_All', 'Tot_Rept_Positions_Short_All'],
    nonreportable: ['NonRept_Positions_Long_All', 'NonRept_Positions_Short_All'],
  },
};

const CFTC = join(SHARED_DATA, 'cftc');
export const LAYOUTS: FileLayout[] = [
  {
    file: join(CFTC, 'legacy_futures_only_2025_annual.txt'),
    type: 'legacy',
    code: 'CFTC Contract Market Code',
    date: 'As of Date in Form YYYY-MM-DD',
    oi: 'Open Interest (All)',
    categories: {
      noncommercial: ['Noncommercial Positions-Long (All)', 'Noncommercial Positions-Short (All)'],
      commercial: ['Commercial Positions-Long (All)', 'Commercial Positions-Short (All)'],
      total_reportable: ['Total Reportable Positions-Long (All)', 'Total Reportable Positions-Short (All)'],
      nonreportable: ['Nonreportable Positions-Long (All)', 'Nonreportable Positions-Short (All)'],
    },
  },
  {
    file: join(CFTC, 'disaggregated_futures_only_2021_f_year.txt'),
    type: 'disaggregated',
    code: 'CFTC_Contract_Market_Code',
    date: 'Report_Date_as_YYYY-MM-DD',
    oi: 'Open_Interest_All',
    categories: {
      producer_merchant: ['Prod_Merc_Positions_Long_All', 'Prod_Merc_Positions_Short_All'],
      swap_dealer: ['Swap_Positions_Long_All', 'Swap__Positions_Short_All'],
      managed_money: ['M_Money_Positions_Long_All', 'M_Money_Positions_Short_All'],
      other_reportable: ['Other_Rept_Positions_Long_All', 'Other_Rept_Positions_Short_All'],
      total_reportable: ['Tot_Rept_Positions_Long_All', 'Tot_Rept_Positions_Short_All'],
      nonreportable: ['NonRept_Positions_Long_All', 'NonRept_Positions_Short_All'],
    },
  },
  { file: join(CFTC, 'tff_futures_only_2026_FinFutYY.txt'), ...TFF_COLUMNS },
];

/** One raw report: its date, open interest and net per category. */
export interface RawReport {
  period: string;
  oi: number | null;
  nets: Record<string, number | null>;
}

const num = (text: string | null | undefined): number | null => {
  const t = (text ?? '').trim();
  return t === '' || t === '.' ? null : Number(t);
};

/** Reads a CFTC file (DuckDB's CSV reader, every value as text) into raw reports per series key. */
export async function readRawReports(
  layout: FileLayout,
  fileOverride?: string,
): Promise<Map<string, RawReport[]>> {
  const duck = await openDuckDb();
  const connection = await duck.connect();
  try {
    const rows = await readCsvFile(connection, fileOverride ?? layout.file);
    const bySeries = new Map<string, RawReport[]>();
    for (const row of rows) {
      const values = new Map(Object.entries(row.values).map(([k, v]) => [k.trim(), v]));
      const nets: Record<string, number | null> = {};
      for (const [category, [long, short]] of Object.entries(layout.categories)) {
        const l = num(values.get(long));
        const s = num(values.get(short));
        nets[category] = l === null || s === null ? null : l - s;
      }
      const key = cotSeriesKey(values.get(layout.code)!.trim(), layout.type);
      const list = bySeries.get(key) ?? [];
      list.push({ period: values.get(layout.date)!.trim(), oi: num(values.get(layout.oi)), nets });
      bySeries.set(key, list);
    }
    for (const list of bySeries.values()) list.sort((a, b) => a.period.localeCompare(b.period));
    return bySeries;
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
}

export type Expected = Record<string, number | null>;

/**
 * The analytics of every report and category, computed from the raw nets in plain TypeScript and
 * rounded half away from zero in exact rational arithmetic (exact-decimal.ts): what must be served.
 */
export function computeExpected(
  reports: RawReport[],
  windows: CotAnalyticsWindows,
): Map<string, Record<string, Expected>> {
  const out = new Map<string, Record<string, Expected>>();
  reports.forEach((report, i) => {
    const byCategory: Record<string, Expected> = {};
    for (const [category, net] of Object.entries(report.nets)) {
      const lastN = (n: number) =>
        reports.slice(Math.max(0, i - n + 1), i + 1).map((r) => r.nets[category] ?? null);
      const full = (n: number) => {
        const values = lastN(n);
        return values.length === n && values.every((v) => v !== null) ? (values as number[]) : null;
      };
      const e: Expected = {
        net,
        pct_oi_net:
          net === null || report.oi === null || report.oi <= 0
            ? null
            : roundRatio(BigInt(net) * 100n, BigInt(report.oi), 2),
      };
      for (const n of windows.index) {
        const values = full(n);
        const min = values && Math.min(...values);
        const max = values && Math.max(...values);
        e[`cot_index_${n}`] =
          values === null || net === null || max === min
            ? null
            : roundRatio(BigInt(net - min!) * 100n, BigInt(max! - min!), 2);
      }
      e[`z_score_${windows.z}`] = zScore(full(windows.z), net);
      byCategory[category] = e;
    }
    out.set(report.period, byCategory);
  });
  return out;
}

/**
 * (net - mean) / population sd, as (N net - sum) / sqrt(N sum of squares - sum^2) in BigInt,
 * rounded to 4 decimals; null without a full window or when the sd is 0.
 */
function zScore(values: number[] | null, net: number | null): number | null {
  if (values === null || net === null) return null;
  const n = BigInt(values.length);
  const sum = values.reduce((a, b) => a + BigInt(b), 0n);
  const squares = values.reduce((a, b) => a + BigInt(b) * BigInt(b), 0n);
  const spread = n * squares - sum * sum;
  return spread > 0n ? roundRootRatio(n * BigInt(net) - sum, spread, 4) : null;
}

/** Served value vs expected: both null, or the same number, to the last digit. */
export function expectExact(actual: unknown, expected: number | null, field: string, where: string): void {
  if (expected === null) {
    expect(actual, `${where} ${field}`).toBeNull();
    return;
  }
  expect(actual, `${where} ${field}: ${actual} vs ${expected}`).toBe(expected);
}

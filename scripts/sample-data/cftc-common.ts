import { addDays } from '../../src/lib/zoned-time.ts';
import { clamp, padField } from './format.ts';
import type { Random } from './random.ts';

/** A COT market as the CFTC files name and code it (copied from the 2025 legacy file). */
export interface CftcMarket {
  code: string;
  name: string;
  initials: string;
  region: string;
  commodity: string;
  units: string;
}

export const CORN: CftcMarket = {
  code: '002602',
  name: 'CORN - CHICAGO BOARD OF TRADE',
  initials: 'CBT ',
  region: '00',
  commodity: '002 ',
  units: '(CONTRACTS OF 5,000 BUSHELS)',
};
export const GOLD: CftcMarket = {
  code: '088691',
  name: 'GOLD - COMMODITY EXCHANGE INC.',
  initials: 'CMX ',
  region: '01',
  commodity: '088 ',
  units: '(CONTRACTS OF 100 TROY OUNCES)',
};
export const EURO_FX: CftcMarket = {
  code: '099741',
  name: 'EURO FX - CHICAGO MERCANTILE EXCHANGE',
  initials: 'CME ',
  region: '00',
  commodity: '099 ',
  units: '(CONTRACTS OF EUR 125,000)',
};

/** The newest report date and how many weekly reports the sample files hold. */
export const COT_LAST_REPORT = '2026-03-10';
export const COT_WEEKS = 20;

/** Tuesdays oldest first: index 0 is an invented prior week (for the oldest row's changes), then the 20 reported. */
export function listReportDates(): string[] {
  return Array.from({ length: COT_WEEKS + 1 }, (_, index) =>
    addDays(COT_LAST_REPORT, -7 * (COT_WEEKS - index)),
  );
}

/** `2026-03-10` -> `260310`. */
export function formatYymmdd(date: string): string {
  return date.slice(2).replace(/-/g, '');
}

/** Wraps a text field in double quotes, as the CFTC does for names and the trailing code copies. */
export function quote(text: string): string {
  return `"${text}"`;
}

/** Pads every number of a block to the CFTC column width. */
export function padAll(values: readonly (number | string)[], width: number): string[] {
  return values.map((value) => padField(value, width));
}

/** Concentration ratios: % of open interest held by the 4 and 8 largest traders, gross and net. */
export interface Concentration {
  gross4Long: number;
  gross4Short: number;
  gross8Long: number;
  gross8Short: number;
}

/** Moves concentration ratios a little each week, keeping 8-trader shares above 4-trader ones. */
export function walkConcentration(
  random: Random,
  base: Concentration,
  previous: Concentration,
): Concentration {
  const step = (key: keyof Concentration, low: number): number =>
    clamp(previous[key] + 0.3 * (base[key] - previous[key]) + random.normal(0, 1.2), low, 95);
  const gross4Long = step('gross4Long', 3);
  const gross4Short = step('gross4Short', 3);
  return {
    gross4Long,
    gross4Short,
    gross8Long: Math.max(step('gross8Long', 5), gross4Long + 4),
    gross8Short: Math.max(step('gross8Short', 5), gross4Short + 4),
  };
}

/** The eight published ratios (gross 4/8, net 4/8, long/short), one decimal each. */
export function formatConcentration(conc: Concentration | null): string[] {
  if (conc === null) return padAll(Array(8).fill('0.0'), 8);
  // Net ratios subtract each trader's opposite position, so they sit a fixed share below gross.
  const values = [
    conc.gross4Long,
    conc.gross4Short,
    conc.gross8Long,
    conc.gross8Short,
    conc.gross4Long * 0.88,
    conc.gross4Short * 0.9,
    conc.gross8Long * 0.84,
    conc.gross8Short * 0.87,
  ];
  return padAll(
    values.map((value) => value.toFixed(1)),
    8,
  );
}

/** Moves a trader count toward its base by a few traders a week. */
export function walkCount(random: Random, base: number, previous: number): number {
  return Math.max(
    1,
    Math.round(previous + 0.25 * (base - previous) + random.normal(0, Math.max(1, base * 0.03))),
  );
}

/** Distinct traders holding reportable positions on a side, given the per-category counts. */
export function countReportable(categoryCounts: readonly number[], overlap: number): number {
  return Math.round(categoryCounts.reduce((sum, count) => sum + count, 0) * overlap);
}

/** Total distinct reportable traders: the larger side plus the traders only on the other side. */
export function countTotalTraders(longTraders: number, shortTraders: number): number {
  return Math.max(longTraders, shortTraders) + Math.round(0.3 * Math.min(longTraders, shortTraders));
}

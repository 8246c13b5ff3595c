import type { Concentration } from './cftc-common.ts';

/** Shares of open interest the walks move around. */
export type Shares = Record<'ncLong' | 'ncShort' | 'spread' | 'nrLong' | 'nrShort', number>;
/** Trader counts per legacy category. */
export type Traders = Record<'ncLong' | 'ncShort' | 'spread' | 'commLong' | 'commShort', number>;

/** Base levels of one crop-year group of a market; the weekly walks revert to them. */
export interface GroupModel {
  openInterest: number;
  weeklySd: number;
  shares: Shares;
  traders: Traders;
  concentration: Concentration;
}

// Levels like those of the real 2025 files; the sample values themselves are invented.
export const GOLD_MODEL: GroupModel = {
  openInterest: 480_000,
  weeklySd: 0.03,
  shares: { ncLong: 0.55, ncShort: 0.12, spread: 0.16, nrLong: 0.1, nrShort: 0.05 },
  traders: { ncLong: 180, ncShort: 55, spread: 78, commLong: 45, commShort: 52 },
  concentration: { gross4Long: 19, gross4Short: 30, gross8Long: 29, gross8Short: 46 },
};
export const EURO_MODEL: GroupModel = {
  openInterest: 760_000,
  weeklySd: 0.04,
  shares: { ncLong: 0.26, ncShort: 0.22, spread: 0.06, nrLong: 0.12, nrShort: 0.08 },
  traders: { ncLong: 75, ncShort: 60, spread: 43, commLong: 128, commShort: 94 },
  concentration: { gross4Long: 16, gross4Short: 38, gross8Long: 26, gross8Short: 49 },
};
export const CORN_OLD_MODEL: GroupModel = {
  openInterest: 1_250_000,
  weeklySd: 0.03,
  shares: { ncLong: 0.3, ncShort: 0.2, spread: 0.17, nrLong: 0.07, nrShort: 0.09 },
  traders: { ncLong: 150, ncShort: 130, spread: 128, commLong: 258, commShort: 365 },
  concentration: { gross4Long: 11, gross4Short: 11, gross8Long: 20, gross8Short: 18 },
};
export const CORN_OTHER_MODEL: GroupModel = {
  openInterest: 330_000,
  weeklySd: 0.05,
  shares: { ncLong: 0.46, ncShort: 0.27, spread: 0.05, nrLong: 0.08, nrShort: 0.13 },
  traders: { ncLong: 85, ncShort: 100, spread: 39, commLong: 140, commShort: 315 },
  concentration: { gross4Long: 21, gross4Short: 18, gross8Long: 33, gross8Short: 28 },
};

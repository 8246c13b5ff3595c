import {
  type Concentration,
  countReportable,
  countTotalTraders,
  EURO_FX,
  formatConcentration,
  formatYymmdd,
  listReportDates,
  padAll,
  quote,
  walkConcentration,
  walkCount,
} from './cftc-common.ts';
import type { LegacyGroup } from './cftc-legacy.ts';
import { clamp, formatPercent } from './format.ts';
import type { Random } from './random.ts';

const CATEGORIES = ['dealer', 'assetMgr', 'levMoney', 'otherRept'] as const;
type Category = (typeof CATEGORIES)[number];
type BySide = Record<Category, number>;

/** Positions of one TFF report, in the file's column order after open interest. */
interface TffPositions {
  openInterest: number;
  long: BySide;
  short: BySide;
  spread: BySide;
  trLong: number;
  trShort: number;
  nrLong: number;
  nrShort: number;
}

// Shares of the non-spread reportable long and short positions, and spreads as shares of open interest.
const LONG_WEIGHTS: BySide = { dealer: 0.07, assetMgr: 0.62, levMoney: 0.13, otherRept: 0.03 };
const SHORT_WEIGHTS: BySide = { dealer: 0.55, assetMgr: 0.17, levMoney: 0.12, otherRept: 0.016 };
const SPREAD_SHARES: BySide = { dealer: 0.03, assetMgr: 0.04, levMoney: 0.03, otherRept: 0.004 };
const BASE_TRADERS = {
  long: { dealer: 18, assetMgr: 114, levMoney: 45, otherRept: 23 },
  short: { dealer: 11, assetMgr: 44, levMoney: 42, otherRept: 12 },
  spread: { dealer: 12, assetMgr: 50, levMoney: 24, otherRept: 5 },
};
const BASE_CONCENTRATION: Concentration = {
  gross4Long: 16,
  gross4Short: 48,
  gross8Long: 28,
  gross8Short: 61,
};

/** Column of the one `.` missing value (newest week), where the real 2026 file has one too. */
const MISSING_COLUMN = 'Traders_Other_Rept_Spread_All';
const SUBGROUP = 'F10';

function walkWeights(random: Random, base: BySide, previous: BySide, sd: number): BySide {
  const next = { ...previous };
  for (const key of CATEGORIES) {
    next[key] = clamp(previous[key] + 0.3 * (base[key] - previous[key]) + random.normal(0, sd), 0.001, 0.9);
  }
  return next;
}

/** Splits an integer total by weights, the last category taking the rounding remainder. */
function allocate(total: number, weights: BySide): BySide {
  const sum = CATEGORIES.reduce((acc, key) => acc + weights[key], 0);
  const result = { dealer: 0, assetMgr: 0, levMoney: 0, otherRept: 0 };
  let left = total;
  for (const key of CATEGORIES.slice(0, -1)) {
    result[key] = Math.round((total * weights[key]) / sum);
    left -= result[key];
  }
  result.otherRept = left;
  return result;
}

/** Splits the legacy report's reportable positions into the four TFF categories (same OI and nonreportable). */
function splitReportable(legacy: LegacyGroup, longW: BySide, shortW: BySide, spreadW: BySide): TffPositions {
  const { openInterest, nrLong, nrShort } = legacy;
  const spread = { dealer: 0, assetMgr: 0, levMoney: 0, otherRept: 0 };
  for (const key of CATEGORIES) spread[key] = Math.round(openInterest * spreadW[key]);
  const spreads = CATEGORIES.reduce((acc, key) => acc + spread[key], 0);
  const trLong = openInterest - nrLong;
  const trShort = openInterest - nrShort;
  const long = allocate(trLong - spreads, longW);
  const short = allocate(trShort - spreads, shortW);
  return { openInterest, long, short, spread, trLong, trShort, nrLong, nrShort };
}

function listPositions(p: TffPositions): number[] {
  const perCategory = CATEGORIES.flatMap((key) => [p.long[key], p.short[key], p.spread[key]]);
  return [p.openInterest, ...perCategory, p.trLong, p.trShort, p.nrLong, p.nrShort];
}

/** Builds the TFF futures-only sample for Euro FX (CRLF, header copied from the real file). */
export function makeTffSample(random: Random, header: string, legacyEuroFx: readonly LegacyGroup[]): string {
  const columns = header.split(',').map((name) => name.replace(/^"|"$/g, ''));
  if (columns.length !== 87) throw new Error(`TFF header has ${columns.length} columns, expected 87`);
  const missingIndex = columns.indexOf(MISSING_COLUMN);
  if (missingIndex < 0) throw new Error(`TFF header lacks "${MISSING_COLUMN}"`);
  const dates = listReportDates();
  let [longW, shortW, spreadW] = [LONG_WEIGHTS, SHORT_WEIGHTS, SPREAD_SHARES];
  let traders = structuredClone(BASE_TRADERS);
  let concentration = BASE_CONCENTRATION;
  const weeks = legacyEuroFx.map((legacy) => {
    longW = walkWeights(random, LONG_WEIGHTS, longW, 0.02);
    shortW = walkWeights(random, SHORT_WEIGHTS, shortW, 0.02);
    spreadW = walkWeights(random, SPREAD_SHARES, spreadW, 0.004);
    const next = structuredClone(traders);
    for (const side of ['long', 'short', 'spread'] as const) {
      for (const key of CATEGORIES)
        next[side][key] = walkCount(random, BASE_TRADERS[side][key], traders[side][key]);
    }
    traders = next;
    concentration = walkConcentration(random, BASE_CONCENTRATION, concentration);
    return { positions: splitReportable(legacy, longW, shortW, spreadW), traders, concentration };
  });
  if (weeks.length !== dates.length) throw new Error('TFF sample needs one legacy week per report date');

  const lines = [header];
  for (let index = dates.length - 1; index >= 1; index -= 1) {
    const date = dates[index]!;
    const week = weeks[index]!;
    const values = listPositions(week.positions);
    const previous = listPositions(weeks[index - 1]!.positions);
    const t = week.traders;
    const perCategory = CATEGORIES.flatMap((key) => [t.long[key], t.short[key], t.spread[key]]);
    const trLong = countReportable(
      CATEGORIES.flatMap((key) => [t.long[key], t.spread[key]]),
      0.8,
    );
    const trShort = countReportable(
      CATEGORIES.flatMap((key) => [t.short[key], t.spread[key]]),
      0.8,
    );
    const fields = [
      quote(EURO_FX.name),
      formatYymmdd(date),
      date,
      EURO_FX.code,
      EURO_FX.initials,
      EURO_FX.region,
      EURO_FX.commodity,
      ...padAll(values, 8),
      ...padAll(
        values.map((value, i) => value - previous[i]!),
        8,
      ),
      ...padAll(
        values.map((value) => formatPercent(value, week.positions.openInterest)),
        7,
      ),
      ...padAll([countTotalTraders(trLong, trShort), ...perCategory, trLong, trShort], 7),
      ...formatConcentration(week.concentration),
      quote(EURO_FX.units),
      quote(EURO_FX.code),
      quote(EURO_FX.initials),
      quote(EURO_FX.commodity),
      quote(SUBGROUP),
      quote('FutOnly'),
    ];
    if (index === dates.length - 1) fields[missingIndex] = '.';
    lines.push(fields.join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

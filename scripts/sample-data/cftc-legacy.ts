import {
  type CftcMarket,
  CORN,
  type Concentration,
  countReportable,
  countTotalTraders,
  EURO_FX,
  formatConcentration,
  formatYymmdd,
  GOLD,
  listReportDates,
  padAll,
  quote,
  walkConcentration,
  walkCount,
} from './cftc-common.ts';
import {
  CORN_OLD_MODEL,
  CORN_OTHER_MODEL,
  EURO_MODEL,
  GOLD_MODEL,
  type GroupModel,
  type Shares,
  type Traders,
} from './cftc-models.ts';
import { clamp, formatPercent } from './format.ts';
import type { Random } from './random.ts';

/** Positions of one crop-year group (All, Old or Other) of a legacy report. */
export interface LegacyGroup {
  openInterest: number;
  ncLong: number;
  ncShort: number;
  spread: number;
  commLong: number;
  commShort: number;
  trLong: number;
  trShort: number;
  nrLong: number;
  nrShort: number;
}

const POSITION_KEYS = [
  'openInterest',
  'ncLong',
  'ncShort',
  'spread',
  'commLong',
  'commShort',
  'trLong',
  'trShort',
  'nrLong',
  'nrShort',
] as const;

interface GroupWeek {
  positions: LegacyGroup;
  traders: Traders;
  concentration: Concentration;
}

/** Splits open interest by shares so that every published identity holds exactly in integers. */
function buildGroup(openInterest: number, shares: Shares): LegacyGroup {
  const part = (share: number): number => Math.round(openInterest * share);
  const [ncLong, ncShort, spread, nrLong, nrShort] = [
    part(shares.ncLong),
    part(shares.ncShort),
    part(shares.spread),
    part(shares.nrLong),
    part(shares.nrShort),
  ];
  const trLong = openInterest - nrLong;
  const trShort = openInterest - nrShort;
  const commLong = trLong - ncLong - spread;
  const commShort = trShort - ncShort - spread;
  if (commLong < 0 || commShort < 0) throw new Error('sample model gave negative commercial positions');
  return { openInterest, ncLong, ncShort, spread, commLong, commShort, trLong, trShort, nrLong, nrShort };
}

/** Simulates one group week by week (oldest first) with mean-reverting random walks. */
function simulateGroup(random: Random, model: GroupModel, weeks: number): GroupWeek[] {
  let openInterest = model.openInterest;
  let shares = { ...model.shares };
  let traders = { ...model.traders };
  let concentration = { ...model.concentration };
  return Array.from({ length: weeks }, () => {
    openInterest *= Math.exp(
      0.2 * Math.log(model.openInterest / openInterest) + random.normal(0, model.weeklySd),
    );
    const nextShares = { ...shares };
    for (const key of Object.keys(shares) as (keyof Shares)[]) {
      const drift = 0.3 * (model.shares[key] - shares[key]);
      nextShares[key] = clamp(shares[key] + drift + random.normal(0, 0.01), 0.005, 0.7);
    }
    shares = nextShares;
    const nextTraders = { ...traders };
    for (const key of Object.keys(traders) as (keyof Traders)[]) {
      nextTraders[key] = walkCount(random, model.traders[key], traders[key]);
    }
    traders = nextTraders;
    concentration = walkConcentration(random, model.concentration, concentration);
    return { positions: buildGroup(Math.round(openInterest), shares), traders, concentration };
  });
}

/**
 * Adds the Old and Other crop years into All. Noncommercial long in one crop year against short
 * in the other counts as spreading in All, so those move from long/short into spreading.
 */
function combineCropYears(random: Random, old: GroupWeek, other: GroupWeek): GroupWeek {
  const [o, t] = [old.positions, other.positions];
  const crossed = Math.round(
    (Math.min(o.ncLong, t.ncShort) + Math.min(o.ncShort, t.ncLong)) * random.between(0.6, 0.72),
  );
  const positions = Object.fromEntries(
    POSITION_KEYS.map((key) => [key, o[key] + t[key]]),
  ) as unknown as LegacyGroup;
  positions.ncLong -= crossed;
  positions.ncShort -= crossed;
  positions.spread += crossed;
  const traders = { ...old.traders };
  for (const key of Object.keys(traders) as (keyof Traders)[]) {
    const [a, b] = [old.traders[key], other.traders[key]];
    traders[key] = Math.max(a, b) + Math.round(0.25 * Math.min(a, b));
  }
  const weight = (key: keyof Concentration): number =>
    ((old.concentration[key] * o.openInterest + other.concentration[key] * t.openInterest) /
      positions.openInterest) *
    0.95;
  const concentration = {
    gross4Long: weight('gross4Long'),
    gross4Short: weight('gross4Short'),
    gross8Long: weight('gross8Long'),
    gross8Short: weight('gross8Short'),
  };
  return { positions, traders, concentration };
}

function formatGroup(week: GroupWeek | null): { positions: string[]; percents: string[]; traders: string[] } {
  if (week === null) {
    return {
      positions: padAll(Array(10).fill(0), 8),
      percents: padAll(Array(10).fill('0.0'), 7),
      traders: padAll(Array(8).fill(0), 7),
    };
  }
  const p = week.positions;
  const t = week.traders;
  const trLong = countReportable([t.ncLong, t.spread, t.commLong], 0.86);
  const trShort = countReportable([t.ncShort, t.spread, t.commShort], 0.86);
  return {
    positions: padAll(
      POSITION_KEYS.map((key) => p[key]),
      8,
    ),
    percents: padAll(
      POSITION_KEYS.map((key) => formatPercent(p[key], p.openInterest)),
      7,
    ),
    traders: padAll(
      [
        countTotalTraders(trLong, trShort),
        t.ncLong,
        t.ncShort,
        t.spread,
        t.commLong,
        t.commShort,
        trLong,
        trShort,
      ],
      7,
    ),
  };
}

interface MarketWeek {
  all: GroupWeek;
  old: GroupWeek;
  other: GroupWeek | null;
}

/** Simulates a market's 21 weeks; single-crop-year markets report Old equal to All and Other as zeros. */
function simulateMarket(random: Random, market: CftcMarket, weeks: number): MarketWeek[] {
  if (market.code === CORN.code) {
    const old = simulateGroup(random, CORN_OLD_MODEL, weeks);
    const other = simulateGroup(random, CORN_OTHER_MODEL, weeks);
    return old.map((week, index) => ({
      all: combineCropYears(random, week, other[index]!),
      old: week,
      other: other[index]!,
    }));
  }
  const model = market.code === GOLD.code ? GOLD_MODEL : EURO_MODEL;
  return simulateGroup(random, model, weeks).map((week) => ({ all: week, old: week, other: null }));
}

/** Column of the one `.` missing value: CORN's oldest net-8 short ratio for the Other crop year. */
const MISSING_COLUMN = 'Concentration-Net LT =8 TDR-Short (Other)';

/** Builds the legacy futures-only sample (header copied from the real file) and returns Euro FX's positions for the TFF sample. */
export function makeLegacySample(random: Random, header: string): { text: string; euroFx: LegacyGroup[] } {
  const columns = header.split(',').map((name) => name.replace(/^"|"$/g, ''));
  if (columns.length !== 129) throw new Error(`legacy header has ${columns.length} columns, expected 129`);
  const missingIndex = columns.indexOf(MISSING_COLUMN);
  if (missingIndex < 0) throw new Error(`legacy header lacks "${MISSING_COLUMN}"`);
  const dates = listReportDates();
  const lines = [header];
  let euroFx: LegacyGroup[] = [];
  for (const market of [CORN, GOLD, EURO_FX]) {
    const weeks = simulateMarket(random, market, dates.length);
    if (market.code === EURO_FX.code) euroFx = weeks.map((week) => week.all.positions);
    for (let index = dates.length - 1; index >= 1; index -= 1) {
      const date = dates[index]!;
      const week = weeks[index]!;
      const previous = weeks[index - 1]!.all.positions;
      const [all, old, other] = [formatGroup(week.all), formatGroup(week.old), formatGroup(week.other)];
      const changes = POSITION_KEYS.map((key) => week.all.positions[key] - previous[key]);
      const fields = [
        quote(market.name),
        formatYymmdd(date),
        date,
        market.code,
        market.initials,
        market.region,
        market.commodity,
        ...all.positions,
        ...old.positions,
        ...other.positions,
        ...padAll(changes, 8),
        ...all.percents,
        ...old.percents,
        ...other.percents,
        ...all.traders,
        ...old.traders,
        ...other.traders,
        ...formatConcentration(week.all.concentration),
        ...formatConcentration(week.old.concentration),
        ...formatConcentration(week.other?.concentration ?? null),
        quote(market.units),
        quote(market.code),
        quote(market.initials),
        quote(market.commodity),
      ];
      if (market.code === CORN.code && index === 1) fields[missingIndex] = '.';
      lines.push(fields.join(','));
    }
  }
  return { text: `${lines.join('\n')}\n`, euroFx };
}

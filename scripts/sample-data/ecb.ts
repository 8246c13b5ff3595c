import { addDays } from '../../src/lib/zoned-time.ts';
import { formatTrimmed } from './format.ts';
import type { Random } from './random.ts';

/** A sample currency: start level (units per EUR), daily volatility, decimals the ECB publishes. */
interface CurrencySpec {
  code: string;
  start: number;
  dailySd: number;
  decimals: number;
}

// In the ECB's own column order; HRK stands for a discontinued currency and is always N/A.
const CURRENCIES: readonly (CurrencySpec | { code: 'HRK' })[] = [
  { code: 'USD', start: 1.172, dailySd: 0.004, decimals: 4 },
  { code: 'JPY', start: 183.9, dailySd: 0.005, decimals: 2 },
  { code: 'GBP', start: 0.872, dailySd: 0.003, decimals: 5 },
  { code: 'PLN', start: 4.212, dailySd: 0.002, decimals: 4 },
  { code: 'SEK', start: 10.81, dailySd: 0.004, decimals: 4 },
  { code: 'CHF', start: 0.9296, dailySd: 0.003, decimals: 4 },
  { code: 'NOK', start: 11.8, dailySd: 0.004, decimals: 4 },
  { code: 'HRK' },
  { code: 'AUD', start: 1.751, dailySd: 0.005, decimals: 4 },
  { code: 'CAD', start: 1.61, dailySd: 0.004, decimals: 4 },
  { code: 'CNY', start: 8.197, dailySd: 0.0035, decimals: 4 },
];

/** TARGET closing days inside the sample range (weekends are closed anyway). */
const TARGET_HOLIDAYS = new Set(['2026-01-01', '2026-04-03', '2026-04-06']);

/** The sample's rate days: 2026-01-02 … 2026-03-31 for the history, then 2026-04-01 for the daily file. */
export const ECB_HISTORY_RANGE = { first: '2026-01-02', last: '2026-03-31', daily: '2026-04-01' } as const;

/** Lists TARGET business days from `first` to `last`, oldest first. */
export function listTargetDays(first: string, last: string): string[] {
  const days: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday !== 0 && weekday !== 6 && !TARGET_HOLIDAYS.has(day)) days.push(day);
  }
  return days;
}

/** Walks every currency forward one rate day at a time; returns one rate map per day, oldest first. */
function walkRates(random: Random, days: readonly string[]): Map<string, number>[] {
  const levels = new Map<string, number>();
  for (const spec of CURRENCIES) if ('start' in spec) levels.set(spec.code, spec.start);
  return days.map(() => {
    const today = new Map<string, number>();
    for (const spec of CURRENCIES) {
      if (!('start' in spec)) continue;
      const level = (levels.get(spec.code) ?? spec.start) * Math.exp(random.normal(0, spec.dailySd));
      levels.set(spec.code, level);
      today.set(spec.code, level);
    }
    return today;
  });
}

/** Builds the ECB history CSV (newest first, trailing comma, `N/A`) and the daily gesmes XML. */
export function makeEcbSample(random: Random): { historyCsv: string; dailyXml: string } {
  const days = [...listTargetDays(ECB_HISTORY_RANGE.first, ECB_HISTORY_RANGE.last), ECB_HISTORY_RANGE.daily];
  const rates = walkRates(random, days);
  const header = `Date,${CURRENCIES.map((spec) => spec.code).join(',')},`;
  const rows = days.slice(0, -1).map((day, index) => {
    const values = CURRENCIES.map((spec) => {
      const rate = rates[index]?.get(spec.code);
      return 'start' in spec && rate !== undefined ? formatTrimmed(rate, spec.decimals) : 'N/A';
    });
    return `${day},${values.join(',')},`;
  });
  const historyCsv = `${[header, ...rows.reverse()].join('\n')}\n`;

  const dailyRates = rates.at(-1) ?? new Map<string, number>();
  const cubes = CURRENCIES.flatMap((spec) => {
    const rate = dailyRates.get(spec.code);
    return 'start' in spec && rate !== undefined
      ? [`\t\t\t<Cube currency='${spec.code}' rate='${rate.toFixed(spec.decimals)}'/>`]
      : [];
  });
  const dailyXml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">',
    '\t<gesmes:subject>Reference rates</gesmes:subject>',
    '\t<gesmes:Sender>',
    '\t\t<gesmes:name>European Central Bank</gesmes:name>',
    '\t</gesmes:Sender>',
    '\t<Cube>',
    `\t\t<Cube time='${ECB_HISTORY_RANGE.daily}'>`,
    ...cubes,
    '\t\t</Cube>',
    '\t</Cube>',
    '</gesmes:Envelope>',
  ].join('\n');
  return { historyCsv, dailyXml };
}

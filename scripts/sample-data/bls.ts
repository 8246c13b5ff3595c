import { formatBlsJson, formatFixed, type Json } from './format.ts';
import type { Random } from './random.ts';

/** The two sample vintages: release day, and the payroll months the second one revises. */
export const BLS_VINTAGES = [
  { date: '2026-01-09', observedAt: '2026-01-09T13:30:00Z' },
  { date: '2026-02-06', observedAt: '2026-02-06T13:30:00Z' },
] as const;
export const BLS_REVISED = [
  { series: 'CES0000000001', year: '2025', period: 'M11' },
  { series: 'CES0000000001', year: '2025', period: 'M12' },
] as const;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
// Typical not-seasonally-adjusted CPI-U moves by calendar month, in percent.
const CPI_SEASONAL = [0.5, 0.4, 0.3, 0.3, 0.1, 0.05, 0.1, 0.1, 0.2, 0.0, -0.2, -0.3];

interface Point {
  year: number;
  month: number;
  value: number;
}

/** The 24 months 2024-01 … 2025-12, oldest first. */
function listMonths(): { year: number; month: number }[] {
  return Array.from({ length: 24 }, (_, index) => ({
    year: 2024 + Math.floor(index / 12),
    month: index % 12,
  }));
}

function simulateCpi(random: Random): Point[] {
  let level = 306.746;
  return listMonths().map(({ year, month }) => {
    level *= 1 + (CPI_SEASONAL[month]! + random.normal(0, 0.1)) / 100;
    return { year, month, value: Number(level.toFixed(3)) };
  });
}

function simulateUnemployment(random: Random): Point[] {
  let rate = 3.7;
  return listMonths().map(({ year, month }) => {
    rate = Math.min(4.8, Math.max(3.5, rate + random.normal(0.03, 0.08)));
    return { year, month, value: Number(rate.toFixed(1)) };
  });
}

function simulatePayrolls(random: Random): Point[] {
  let level = 157_640;
  return listMonths().map(({ year, month }) => {
    level += Math.round(random.normal(year === 2024 ? 170 : 50, 60));
    return { year, month, value: level };
  });
}

/** A revision of at least 10 thousand jobs either way, so that the vintages visibly differ. */
function drawRevision(random: Random): number {
  const revision = Math.round(random.normal(0, 35));
  return revision >= 0 ? revision + 10 : revision - 10;
}

function formatSeries(seriesId: string, points: Point[], decimals: number, preliminary: Set<string>): Json {
  const data = [...points].reverse().map(({ year, month, value }) => {
    const period = `M${String(month + 1).padStart(2, '0')}`;
    const footnote: Json = preliminary.has(`${year}-${period}`) ? { code: 'P', text: 'Preliminary' } : {};
    return {
      year: String(year),
      period,
      periodName: MONTH_NAMES[month]!,
      value: formatFixed(value, decimals),
      footnotes: [footnote],
    };
  });
  return { seriesID: seriesId, data };
}

/** Builds the two BLS API v2 responses (CPI-U, unemployment rate, payrolls); only payrolls Nov/Dec 2025 differ. */
export function makeBlsSample(random: Random): string[] {
  const cpi = simulateCpi(random);
  const unemployment = simulateUnemployment(random);
  const payrolls = simulatePayrolls(random);
  const [november, december] = [payrolls[22]!, payrolls[23]!];
  const revisedPayrolls = payrolls.map((point) => ({ ...point }));
  revisedPayrolls[22]!.value = november.value + drawRevision(random);
  revisedPayrolls[23]!.value = december.value + drawRevision(random);
  // CES marks the two newest months preliminary; a month later November is final.
  const vintages = [
    { payrolls, preliminary: new Set(['2025-M11', '2025-M12']), responseTime: 187 },
    { payrolls: revisedPayrolls, preliminary: new Set(['2025-M12']), responseTime: 203 },
  ];
  return vintages.map((vintage) =>
    formatBlsJson({
      status: 'REQUEST_SUCCEEDED',
      responseTime: vintage.responseTime,
      message: [],
      Results: {
        series: [
          formatSeries('CUUR0000SA0', cpi, 3, new Set()),
          formatSeries('LNS14000000', unemployment, 1, new Set()),
          formatSeries('CES0000000001', vintage.payrolls, 0, vintage.preliminary),
        ],
      },
    }),
  );
}

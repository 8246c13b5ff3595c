import { formatFixed } from './format.ts';
import type { Random } from './random.ts';

/** Series key and vintage under which the licensed sample source's one series is ingested. */
export const FRED_SAMPLE = { series: 'northwind.FCI', vintage: '2026-01-15' } as const;

/** Builds a FRED-format CSV (`observation_date,FCI`) of a monthly financial-conditions index around 0. */
export function makeFredSample(random: Random): string {
  let level = -0.25;
  const rows = Array.from({ length: 24 }, (_, index) => {
    level = 0.8 * level + random.normal(0, 0.15);
    const month = String((index % 12) + 1).padStart(2, '0');
    return `${2024 + Math.floor(index / 12)}-${month}-01,${formatFixed(level, 2)}`;
  });
  return `${['observation_date,FCI', ...rows].join('\n')}\n`;
}

/**
 * An oracle for /api/v1/fx/ecb written apart from the service: the ECB's own eurofxref-hist.csv
 * split by hand (no DuckDB, no project parser), and the cross-rate rule of docs/api/fx.md.
 */

/** One reference date of the ECB file: units of each quoted currency per euro. */
export interface EcbHistDay {
  date: string;
  rates: Map<string, number>;
}

/** Parses eurofxref-hist.csv text: one entry per date, oldest first; `N/A` cells are not quoted. */
export function parseEcbHist(text: string): EcbHistDay[] {
  const [header, ...lines] = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const codes = header!.split(',').map((cell) => cell.trim());
  const days = lines.map((line) => {
    const cells = line.split(',');
    const rates = new Map<string, number>();
    for (let i = 1; i < codes.length; i++) {
      const cell = cells[i]?.trim();
      if (codes[i] && cell && cell !== 'N/A') rates.set(codes[i]!, Number(cell));
    }
    return { date: cells[0]!.trim(), rates };
  });
  return days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The last reference date at or before `day`, or null. */
export function dayAtOrBefore(days: readonly EcbHistDay[], day: string): EcbHistDay | null {
  let found: EcbHistDay | null = null;
  for (const entry of days) {
    if (entry.date > day) break;
    found = entry;
  }
  return found;
}

/**
 * Units of each currency per 1 `base` on that day: the published rates for EUR; else
 * rate(quote) / rate(base) to 6 significant digits, EUR being 1 / rate(base), the base left out.
 * Null when the base is not quoted that day.
 */
export function oracleRates(day: EcbHistDay, base: string): Map<string, number> | null {
  if (base === 'EUR') return new Map(day.rates);
  const baseRate = day.rates.get(base);
  if (baseRate === undefined) return null;
  const rates = new Map<string, number>();
  for (const [code, rate] of day.rates) {
    if (code !== base) rates.set(code, Number((rate / baseRate).toPrecision(6)));
  }
  rates.set('EUR', Number((1 / baseRate).toPrecision(6)));
  return rates;
}

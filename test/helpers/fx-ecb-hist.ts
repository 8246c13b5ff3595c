/**
 * An oracle for /api/v1/fx/ecb written apart from the service: the ECB's own eurofxref-hist.csv
 * split by hand (no DuckDB, no project parser), and the cross-rate rule of docs/api/fx.md.
 */

/** One reference date of the ECB file: units of each quoted currency per euro. */
export interface EcbHistDay {
  date: string;
  rates: Map<string, number>;
  /** The cells as the ECB wrote them (`1.1684`), for exact decimal arithmetic. */
  texts: Map<string, string>;
}

/** Parses eurofxref-hist.csv text: one entry per date, oldest first; `N/A` cells are not quoted. */
export function parseEcbHist(text: string): EcbHistDay[] {
  const [header, ...lines] = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const codes = header!.split(',').map((cell) => cell.trim());
  const days = lines.map((line) => {
    const cells = line.split(',');
    const rates = new Map<string, number>();
    const texts = new Map<string, string>();
    for (let i = 1; i < codes.length; i++) {
      const cell = cells[i]?.trim();
      if (codes[i] && cell && cell !== 'N/A') {
        rates.set(codes[i]!, Number(cell));
        texts.set(codes[i]!, cell);
      }
    }
    return { date: cells[0]!.trim(), rates, texts };
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

/** A decimal text (`1.1684`, `100`) as an integer numerator over a power of ten. */
function fraction(text: string): { n: bigint; d: bigint } {
  const [whole, part = ''] = text.split('.');
  return { n: BigInt(`${whole}${part}`), d: 10n ** BigInt(part.length) };
}

/**
 * n / d (both positive) to 6 significant digits, half away from zero, by long division: the
 * digits of the quotient from its first non-zero one, a seventh to round on, the rest compared.
 */
export function sixDigits(n: bigint, d: bigint): number {
  let exponent = 0; // the quotient is 0.<digits> x 10^exponent
  let rest = n;
  while (rest >= d) {
    d *= 10n;
    exponent += 1;
  }
  while (rest * 10n < d) {
    rest *= 10n;
    exponent -= 1;
  }
  let digits = 0n;
  for (let i = 0; i < 6; i++) {
    rest *= 10n;
    digits = digits * 10n + rest / d;
    rest %= d;
  }
  // The rest is the fraction of a unit of the sixth digit: a half or more rounds up.
  if (2n * rest >= d) digits += 1n;
  return Number(`${digits}e${exponent - 6}`);
}

/**
 * Units of each currency per `amount` of `base` on that day: the published rates for EUR and
 * amount 1; else amount x rate(quote) / rate(base) in exact decimals to 6 significant digits,
 * half away from zero, EUR counting as 1, the base left out. Null when the base is not quoted.
 */
export function oracleRates(day: EcbHistDay, base: string, amount = '1'): Map<string, number> | null {
  if (base === 'EUR' && amount === '1') return new Map(day.rates);
  const baseText = base === 'EUR' ? '1' : day.texts.get(base);
  if (baseText === undefined) return null;
  const a = fraction(amount);
  const b = fraction(baseText);
  const rates = new Map<string, number>();
  const quotes: Array<[string, string]> = [...day.texts, ['EUR', '1']];
  for (const [code, text] of quotes) {
    if (code === base) continue;
    const q = fraction(text);
    // a.n/a.d x q.n/q.d / (b.n/b.d)
    rates.set(code, sixDigits(a.n * q.n * b.d, a.d * q.d * b.n));
  }
  return rates;
}

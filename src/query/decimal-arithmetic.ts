/**
 * Arithmetic on values as their publishers wrote them (transforms-compute.ts): their decimal
 * places, rounding to them, and sums and averages in decimal rather than in binary.
 */
/** Decimals kept at most: a double holds about 15 significant digits. */
const MAX_DECIMALS = 15;

/**
 * Decimal places of a value as the source published it: those of its shortest round-trip text
 * (1.031 has 3, 2.5e-7 has 8), which is how the parsers stored the publisher's text.
 */
export function decimalsOf(value: number): number {
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.min(MAX_DECIMALS, Math.max(0, fraction - Number(exponent)));
}

/** The nearest value with at most `decimals` decimal places (toFixed reads the double exactly). */
export function roundTo(value: number, decimals: number): number {
  return Number(value.toFixed(Math.min(decimals, 100)));
}

/**
 * Sum or average in decimal (meta.transform.rounding): the values are scaled to integers at the
 * most decimals any of them has, so the sum is exact (no `1.0310000000000001`); an average is
 * then rounded to `extraDecimals` more decimals (AVERAGE_EXTRA_DECIMALS) (`157245.3333`, not `157245.33333333334`).
 */
export function decimalAggregate(
  values: readonly number[],
  aggregation: 'sum' | 'avg',
  extraDecimals: number,
): number {
  const decimals = Math.max(...values.map(decimalsOf));
  const scale = 10 ** decimals;
  const scaled = values.map((value) => Math.round(value * scale));
  const total = scaled.reduce((sum, value) => sum + value, 0);
  const exact = Number.isSafeInteger(total) && scaled.every((value) => Number.isSafeInteger(value));
  const sum = exact
    ? total / scale
    : roundTo(
        values.reduce((a, b) => a + b, 0),
        decimals,
      );
  if (aggregation === 'sum') return sum;
  return roundTo((exact ? total / scale : sum) / values.length, decimals + extraDecimals);
}

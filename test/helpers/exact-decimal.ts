/**
 * Rounding half away from zero in exact rational arithmetic (BigInt), written apart from
 * src/query/exact-round.ts: the oracle of the COT analytics tests. Results are the double that
 * the decimal's text parses to, so a served value can be compared with `toBe`.
 */

/** The number a decimal `sign k / 10^decimals` is written as (`-3.63`), parsed. */
function decimalNumber(negative: boolean, k: bigint, decimals: number): number {
  const digits = k.toString().padStart(decimals + 1, '0');
  const point = digits.length - decimals;
  const text = decimals === 0 ? digits : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return Number(`${negative && k !== 0n ? '-' : ''}${text}`);
}

/** The floor of the square root of a non-negative BigInt (Newton's method). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // The double estimate may be off either way for large n: settle it exactly.
  while (x * x > n) x = (x + n / x) / 2n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}

/** p / q (q > 0) rounded half away from zero to `decimals` places. */
export function roundRatio(p: bigint, q: bigint, decimals: number): number {
  if (q <= 0n) throw new RangeError('q must be positive');
  const scaled = (p < 0n ? -p : p) * 10n ** BigInt(decimals);
  // |p| 10^d / q = whole + rest / q; a tie (2 rest = q) goes up, away from zero.
  const whole = scaled / q;
  const rest = scaled % q;
  return decimalNumber(p < 0n, 2n * rest >= q ? whole + 1n : whole, decimals);
}

/**
 * a / sqrt(b) (b > 0) rounded half away from zero to `decimals` places: with x = |a| 10^d / sqrt(b),
 * floor(x + 1/2) = floor((floor(2x) + 1) / 2), and floor(2x) = isqrt(floor(4 a^2 10^2d / b)).
 */
export function roundRootRatio(a: bigint, b: bigint, decimals: number): number {
  if (b <= 0n) throw new RangeError('b must be positive');
  const scale = 10n ** BigInt(decimals);
  const twiceX = isqrt((4n * a * a * scale * scale) / b);
  return decimalNumber(a < 0n, (twiceX + 1n) / 2n, decimals);
}

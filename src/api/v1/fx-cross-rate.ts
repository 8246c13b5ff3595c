/**
 * Cross rates and amounts from the ECB euro reference rates. The ECB publishes units of each
 * currency per euro (EUR->X) with 3 to 7 significant digits; a rate between two other currencies
 * is the quotient of two of them of the same reference date, and has no more precision than they
 * do. Computed in exact decimal arithmetic (BigInt), so that a half is never rounded the wrong
 * way by a binary double (12.5 x 1.0321 = 12.901250 exactly, rounded up to 12.9013).
 */

/** Significant digits of a computed rate. */
export const CROSS_RATE_DIGITS = 6;

/** The rounding rule of every computed rate, as meta.rounding states it. */
export const CROSS_RATE_ROUNDING = `exact decimal quotient, rounded half away from zero to ${CROSS_RATE_DIGITS} significant digits`;

/** What meta.method says for cross rates (base other than EUR). */
export const CROSS_RATE_METHOD =
  'cross rate from the ECB euro reference rates of the same reference date: units of quote per `amount` base = ' +
  `amount x EUR->quote / EUR->base (EUR as quote: amount / EUR->base), ${CROSS_RATE_ROUNDING}`;

/** What meta.method says for base EUR and amount 1. */
export const EUR_RATE_METHOD = 'ECB euro reference rates as published: units of quote per 1 EUR';

/** What meta.method says for base EUR and another amount. */
export const EUR_AMOUNT_METHOD = `ECB euro reference rates times amount: units of quote per \`amount\` EUR = amount x EUR->quote, ${CROSS_RATE_ROUNDING}`;

/** A positive decimal as an integer and a power of ten: value = int / 10^scale. */
interface Decimal {
  int: bigint;
  scale: number;
}

/**
 * The decimal a double is written as (its shortest round-trip text: the ECB's `1.1684` is
 * 1.1684, not the binary value next to it), or what a decimal text says.
 */
function toDecimal(value: number | string): Decimal {
  const text = typeof value === 'number' ? String(value) : value;
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match) throw new RangeError(`not a positive decimal: ${text}`);
  const fraction = match[2] ?? '';
  const exponent = Number(match[3] ?? 0);
  let int = BigInt(`${match[1]}${fraction}`);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    int *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { int, scale };
}

/** Number of decimal digits of a positive BigInt. */
const digitsOf = (n: bigint) => n.toString().length;

/**
 * p / q (both positive) rounded half away from zero to `digits` significant digits, as the
 * double its decimal text parses to.
 */
function roundQuotient(p: bigint, q: bigint, digits: number): number {
  // Shift so that p 10^k / q has exactly `digits` digits before the point (10^(d-1) <= x < 10^d).
  let k = digits - (digitsOf(p) - digitsOf(q));
  const scaled = (shift: number) =>
    shift >= 0 ? [p * 10n ** BigInt(shift), q] : [p, q * 10n ** BigInt(-shift)];
  let [n, d] = scaled(k) as [bigint, bigint];
  while (n / d >= 10n ** BigInt(digits)) [n, d] = scaled(--k) as [bigint, bigint];
  while (n / d < 10n ** BigInt(digits - 1)) [n, d] = scaled(++k) as [bigint, bigint];
  let whole = n / d;
  if (2n * (n % d) >= d) whole += 1n;
  return Number(`${whole}e${-k}`);
}

/** Rounds to `digits` significant digits, half away from zero in decimal (the ECB's decimals). */
export function roundSignificant(value: number, digits = CROSS_RATE_DIGITS): number {
  if (!(value > 0)) throw new RangeError('value must be positive');
  const { int, scale } = toDecimal(value);
  return roundQuotient(int, 10n ** BigInt(scale), digits);
}

/**
 * Units of quote per `amount` base, from the euro rates of both (units per 1 EUR; EUR itself is
 * 1): amount x eurToQuote / eurToBase exactly, rounded to CROSS_RATE_DIGITS significant digits.
 * `amount` may be the decimal text the caller sent (`12.5`).
 */
export function crossRate(eurToQuote: number, eurToBase: number, amount: number | string = 1): number {
  if (!(eurToQuote > 0) || !(eurToBase > 0) || !(Number(amount) > 0))
    throw new RangeError('euro rates and amount must be positive');
  const a = toDecimal(amount);
  const quote = toDecimal(eurToQuote);
  const base = toDecimal(eurToBase);
  // a/10^sa x q/10^sq / (b/10^sb) = a q 10^sb / (b 10^(sa+sq))
  const p = a.int * quote.int * 10n ** BigInt(base.scale);
  const q = base.int * 10n ** BigInt(a.scale + quote.scale);
  return roundQuotient(p, q, CROSS_RATE_DIGITS);
}

/**
 * Cross rates from the ECB euro reference rates. The ECB publishes units of each currency per
 * euro (EUR->X) with 4 to 6 significant digits; a rate between two other currencies is the
 * quotient of two of them of the same reference date, and has no more precision than they do.
 */

/** Significant digits of a cross rate. */
export const CROSS_RATE_DIGITS = 6;

/** What meta.method says for cross rates (base other than EUR). */
export const CROSS_RATE_METHOD =
  'cross rate from the ECB euro reference rates of the same reference date: units of quote per 1 base = ' +
  `EUR->quote / EUR->base (EUR as quote: 1 / EUR->base), rounded to ${CROSS_RATE_DIGITS} significant digits`;

/** What meta.method says for base EUR. */
export const EUR_RATE_METHOD = 'ECB euro reference rates as published: units of quote per 1 EUR';

/** Rounds to `digits` significant digits (half away from zero, as toPrecision). */
export function roundSignificant(value: number, digits = CROSS_RATE_DIGITS): number {
  return Number(value.toPrecision(digits));
}

/**
 * Units of quote per 1 base, from the euro rates of both (units per 1 EUR; EUR itself is 1),
 * rounded to CROSS_RATE_DIGITS significant digits.
 */
export function crossRate(eurToQuote: number, eurToBase: number): number {
  if (!(eurToQuote > 0) || !(eurToBase > 0)) throw new RangeError('euro rates must be positive');
  return roundSignificant(eurToQuote / eurToBase);
}

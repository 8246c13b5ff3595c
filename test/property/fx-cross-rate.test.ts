import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CROSS_RATE_DIGITS, crossRate, roundSignificant } from '../../src/api/v1/fx-cross-rate.ts';
import { parseEcbHist, sixDigits } from '../helpers/fx-ecb-hist.ts';
import { SHARED_DATA } from '../helpers/paths.ts';

/** Cross rates from the ECB euro rates (src/api/v1/fx-cross-rate.ts), on the real history too. */
const hist = parseEcbHist(readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8'));

/** Two rounded quotients: each off by at most half a unit of the 6th digit, relatively. */
const ROUND_TRIP = 2 * 0.5 * 10 ** (1 - CROSS_RATE_DIGITS) + 1e-12;

/** A reference date of the real file and two currencies quoted on it (EUR counts as 1). */
const realPair = fc
  .record({ day: fc.integer({ min: 0, max: hist.length - 1 }), a: fc.nat(), b: fc.nat() })
  .map(({ day, a, b }) => {
    const entry = hist[day]!;
    const rates = [['EUR', 1] as const, ...entry.rates];
    return { date: entry.date, quote: rates[a % rates.length]!, base: rates[b % rates.length]! };
  });

describe('cross rates', () => {
  it('rounds to 6 significant digits', () => {
    expect(roundSignificant(0.87058 / 1.1684)).toBe(0.745104);
    expect(roundSignificant(186.75 / 1.1684)).toBe(159.834);
    expect(roundSignificant(20082.05 / 0.87058)).toBe(23067.4);
    expect(roundSignificant(1 / 20082.05)).toBe(0.0000497957);
    expect(crossRate(1.1684, 1.1684)).toBe(1);
  });

  it('refuses a rate that is not positive', () => {
    for (const [quote, base] of [
      [0, 1],
      [1, 0],
      [-1, 2],
      [Number.NaN, 1],
    ])
      expect(() => crossRate(quote!, base!)).toThrow(RangeError);
  });

  it('inverts: cross(base, quote) * cross(quote, base) is 1 within the rounding, on the real rates', () => {
    fc.assert(
      fc.property(realPair, ({ quote, base }) => {
        const there = crossRate(quote[1], base[1]);
        const back = crossRate(base[1], quote[1]);
        expect(Math.abs(there * back - 1)).toBeLessThanOrEqual(ROUND_TRIP);
      }),
      { numRuns: 2_000 },
    );
  });

  it('inverts for any positive rates of ECB magnitudes', () => {
    const rate = fc.double({ min: 1e-4, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(rate, rate, (quote, base) => {
        expect(Math.abs(crossRate(quote, base) * crossRate(base, quote) - 1)).toBeLessThanOrEqual(ROUND_TRIP);
      }),
    );
  });

  it('differs from the exact quotient of the real rates by at most half a unit of the 6th digit', () => {
    fc.assert(
      fc.property(realPair, ({ quote, base }) => {
        const exact = quote[1] / base[1];
        expect(Math.abs(crossRate(quote[1], base[1]) - exact) / exact).toBeLessThanOrEqual(5e-6 + 1e-15);
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves a euro rate as published when the base is the euro (rate 1), up to 6 digits', () => {
    for (const entry of hist.slice(-50)) {
      for (const rate of entry.rates.values()) {
        if (String(rate).replace(/^0\.0*|\./g, '').length <= CROSS_RATE_DIGITS)
          expect(crossRate(rate, 1)).toBe(rate);
      }
    }
  });
});

describe('cross rates and amounts in exact decimals', () => {
  /** A decimal amount as the API takes it: up to 12 digits before the point and 6 after. */
  const amount = fc
    .tuple(
      fc.integer({ min: 0, max: 999_999 }),
      fc.integer({ min: 0, max: 999_999 }),
      fc.integer({ min: 0, max: 6 }),
    )
    .filter(([whole, part, places]) => whole > 0 || (places > 0 && part % 10 ** places > 0))
    .map(([whole, part, places]) =>
      places === 0 ? String(whole) : `${whole}.${String(part % 10 ** places).padStart(places, '0')}`,
    );

  it('equals the long division of the CSV text, for any amount, on the real rates', () => {
    fc.assert(
      fc.property(realPair, amount, ({ date, quote, base }, value) => {
        const day = hist.find((entry) => entry.date === date)!;
        const text = (code: string) => (code === 'EUR' ? '1' : day.texts.get(code)!);
        const [q, b] = [text(quote[0]), text(base[0])];
        const scale = (t: string) => 10n ** BigInt(t.split('.')[1]?.length ?? 0);
        const int = (t: string) => BigInt(t.replace('.', ''));
        const expected = sixDigits(int(value) * int(q) * scale(b), scale(value) * scale(q) * int(b));
        expect(crossRate(quote[1], base[1], value)).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('rounds an exact half away from zero, where the double of the product is below it', () => {
    // 12.5 x 1.0321 = 12.90125 exactly, a half of the sixth digit: up.
    expect(crossRate(1.0321, 1, '12.5')).toBe(12.9013);
    // 51.8305 / 20000 = 0.002591525 exactly; the double nearest it is just below, so the double rounds down.
    expect(Number((51.8305 / 20000).toPrecision(6))).toBe(0.00259152);
    expect(crossRate(51.8305, 20000)).toBe(0.00259153);
  });
});

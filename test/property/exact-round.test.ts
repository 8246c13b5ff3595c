import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../src/db/duckdb.ts';
import { roundedRatioSql, roundedRootRatioSql } from '../../src/query/exact-round.ts';
import { roundRatio, roundRootRatio } from '../helpers/exact-decimal.ts';
import { useScratchDuckDb } from '../helpers/scratch-duckdb.ts';

/**
 * Property: the SQL of src/query/exact-round.ts rounds half away from zero exactly, as rational
 * arithmetic in BigInt does, on random integers of the sizes COT reports give (positions are
 * INTEGER columns) and on exact halves built on purpose, where rounding a double goes wrong.
 */

// Scaled with the other property tests (MMDS_PROPERTY_RUNS, 100 by default).
const SCALE = Number(process.env.MMDS_PROPERTY_RUNS ?? 100) / 100;
const sample = <T>(arbitrary: fc.Arbitrary<T>, count: number) =>
  fc.sample(arbitrary, Math.max(1, Math.round(count * SCALE)));

const INT32 = 2n ** 31n;
const net = fc.bigInt({ min: -2n * INT32, max: 2n * INT32 });
const positive = fc.bigInt({ min: 1n, max: 2n * INT32 });

describe('exact rounding half away from zero in SQL', () => {
  const scratch = useScratchDuckDb('mmds-exact-round-');

  /** Evaluates `sql(x, y)` over the pairs in DuckDB, in input order. */
  async function evaluate(pairs: ReadonlyArray<readonly [bigint, bigint]>, sql: string): Promise<number[]> {
    const values = pairs.map(([x, y], i) => `(${i}, ${x}::HUGEINT, ${y}::HUGEINT)`).join(', ');
    const rows = await readRows<{ r: number }>(
      scratch.connection,
      `SELECT ${sql} AS r FROM (VALUES ${values}) AS t(i, x, y) ORDER BY i`,
    );
    return rows.map((row) => row.r);
  }

  it('p / q: random percentages and indexes, and every kind of exact half', async () => {
    const ties = sample(
      fc.tuple(fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 10n ** 6n })),
      300,
    ).map(([k, q]) => {
      // p / q = (2k + 1) / 200: a half of the second decimal, q scaled to keep p whole.
      const p = (2n * k + 1n) * q;
      return [p, 200n * q] as const;
    });
    const pairs = [
      ...sample(fc.tuple(net, positive), 1000).map(([n, oi]) => [n * 100n, oi] as const),
      ...sample(fc.tuple(positive, positive), 500).map(([d, range]) => [(d % range) * 100n, range] as const),
      ...ties,
      // The cases of issue 37 and their mirror images: 27.835, -20.475, -4.125, 3.625.
      [2783500n, 100000n],
      [-204750n, 10000n],
      [-4125n, 1000n],
      [29n * 100n, 800n],
      [-29n * 100n, 800n],
      [0n, 7n],
      [-1n, 200n],
      [1n, 201n],
    ] as const;
    for (const decimals of [2, 4]) {
      const served = await evaluate(pairs, roundedRatioSql('x', 'y', decimals));
      pairs.forEach(([p, q], i) => {
        expect(served[i], `${p} / ${q} to ${decimals}`).toBe(roundRatio(p, q, decimals));
      });
    }
  });

  it('a / sqrt(b): random z-scores of windows, and exact halves through perfect squares', async () => {
    const windows = sample(
      fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 2, maxLength: 60 }),
      600,
    ).map((nets) => {
      const n = BigInt(nets.length);
      const sum = nets.reduce((s, x) => s + BigInt(x), 0n);
      const squares = nets.reduce((s, x) => s + BigInt(x) * BigInt(x), 0n);
      return [n * BigInt(nets.at(-1)!) - sum, n * squares - sum * sum] as const;
    });
    const halves = sample(
      fc.tuple(fc.bigInt({ min: -80_000n, max: 80_000n }), fc.bigInt({ min: 1n, max: 10n ** 6n })),
      300,
    ).map(([m, t]) => {
      // a / sqrt(b) x 10^4 = (2m + 1) t 10^4 / (2 10^4 t) = m + 1/2.
      const root = 20_000n * t;
      return [(2n * m + 1n) * t, root * root] as const;
    });
    const pairs = [...windows, ...halves, [1n, 1n], [-3n, 16n], [7n, 3n]].filter(([, b]) => b > 0n) as Array<
      readonly [bigint, bigint]
    >;
    const served = await evaluate(pairs, roundedRootRatioSql('x', 'y', 4));
    pairs.forEach(([a, b], i) => {
      expect(served[i], `${a} / sqrt(${b})`).toBe(roundRootRatio(a, b, 4));
    });
    // The halves are what the rule is about: each is away from zero by half a step.
    halves.forEach(([a, b]) => {
      const exact = Number(a) / Math.sqrt(Number(b));
      const rounded = roundRootRatio(a, b, 4);
      expect(Math.abs(rounded), `${a} / sqrt(${b})`).toBeGreaterThan(Math.abs(exact));
    });
  });
});

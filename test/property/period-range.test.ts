import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, readRows } from '../../src/db/duckdb.ts';
import { isEmptyRange, resolvePeriodRange } from '../../src/model/period-range.ts';
import { bindPeriodRange, periodRangeSql } from '../../src/query/history.ts';

/**
 * Property: for any set of stored periods of the four forms and any from/to of the four forms,
 * the SQL period condition (run by DuckDB, as the history queries run it) selects exactly the
 * periods whose days overlap [first day of from, last day of to], in a model that turns each
 * period into its span of days with Date arithmetic and nothing of src/.
 */

// 100 runs in the everyday suite; `npm run test:reliability` sets MMDS_PROPERTY_RUNS=1000.
const NUM_RUNS = Number(process.env.MMDS_PROPERTY_RUNS ?? 100);

const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** A random real period: a day, month, quarter or year of 2023 to 2026 (leap 2024 included). */
const periodArbitrary = fc.oneof(
  fc
    .tuple(fc.integer({ min: 2023, max: 2026 }), fc.integer({ min: 0, max: 365 }))
    // A day of the year counted from 1 January: always a real date (31 December on a short year is day 364).
    .map(([year, offset]) => iso(year, 1, 1 + Math.min(offset, year % 4 === 0 ? 365 : 364))),
  fc
    .tuple(fc.integer({ min: 2023, max: 2026 }), fc.integer({ min: 1, max: 12 }))
    .map(([year, month]) => `${year}-${String(month).padStart(2, '0')}`),
  fc
    .tuple(fc.integer({ min: 2023, max: 2026 }), fc.integer({ min: 1, max: 4 }))
    .map(([y, q]) => `${y}-Q${q}`),
  fc.integer({ min: 2023, max: 2026 }).map(String),
);

function modelSpan(period: string): [string, string] {
  const year = Number(period.slice(0, 4));
  if (period.length === 4) return [`${period}-01-01`, `${period}-12-31`];
  if (period.length === 10) return [period, period];
  if (period[5] === 'Q') {
    const q = Number(period[6]);
    return [iso(year, q * 3 - 2, 1), iso(year, q * 3 + 1, 0)];
  }
  const month = Number(period.slice(5, 7));
  return [iso(year, month, 1), iso(year, month + 1, 0)];
}

describe('period filters select exactly the periods overlapping the range (property)', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  beforeAll(async () => {
    instance = await openDuckDb();
    connection = await instance.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  it('SQL selection = model selection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(periodArbitrary, { minLength: 1, maxLength: 60 }),
        fc.option(periodArbitrary, { nil: null }),
        fc.option(periodArbitrary, { nil: null }),
        async (periods, from, to) => {
          const range = resolvePeriodRange(from, to);
          fc.pre(!isEmptyRange(range));
          // Periods are digits, hyphens and Q only: safe as literals.
          const list = periods.map((p) => `'${p}'`).join(',');
          const rows = await readRows<{ period: string }>(
            connection,
            `SELECT period FROM (SELECT unnest([${list}]) AS period) WHERE ${periodRangeSql('period')} ORDER BY period`,
            bindPeriodRange(range),
          );
          const first = from === null ? null : modelSpan(from)[0];
          const last = to === null ? null : modelSpan(to)[1];
          const expected = periods
            .filter((p) => {
              const [start, end] = modelSpan(p);
              return (first === null || end >= first) && (last === null || start <= last);
            })
            .sort();
          expect(rows.map((r) => r.period)).toEqual(expected);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

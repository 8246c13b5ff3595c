import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getObservations } from '../../src/api/v1/observations.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import { AVERAGE_EXTRA_DECIMALS } from '../../src/model/transforms.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { publishSnapshot } from '../../src/store/publish.ts';
import {
  appendChains,
  type Chain,
  chainOf,
  chainShapeArbitrary,
  instantPickArbitrary,
  MODEL_NOW,
  modelSeries,
  resolveInstant,
} from '../helpers/as-of-reference.ts';
import { useScratchDuckDb } from '../helpers/scratch-duckdb.ts';

/**
 * Property: for any revision log the store accepts, the transformed view of /observations at
 * as_of (units, frequency, aggregation) equals a model computed here, in the plainest way, from
 * only the revisions known at as_of. The as_of instants fall on, just before and just after the
 * knowledge times, before all of them, or anywhere; values run 0-4, so zero bases (null with a
 * note) are common.
 */

const NUM_RUNS = Math.min(Number(process.env.MMDS_PROPERTY_RUNS ?? 40), 200);
const KEY = 't.A';
/** Fifteen months, 2023-11 to 2025-01: enough for a year-ago lag and five quarters. */
const MONTHS = Array.from({ length: 15 }, (_, i) => {
  const date = new Date(Date.UTC(2023, 10 + i, 1));
  return date.toISOString().slice(0, 7);
});
const UNITS = ['lin', 'chg', 'ch1', 'pch', 'pc1', 'pca', 'cch', 'cca', 'log'] as const;
type Units = (typeof UNITS)[number];

const logArbitrary = fc
  .subarray(MONTHS, { minLength: 0, maxLength: 15 })
  .chain((months) =>
    fc.tuple(...months.map((month) => chainShapeArbitrary.map((shape) => chainOf(KEY, month, shape)))),
  );

const requestArbitrary = fc.record({
  units: fc.constantFrom(...UNITS),
  aggregate: fc.constantFrom(null, 'avg', 'sum', 'eop'),
  frequency: fc.constantFrom('q', 'a'),
});

interface ModelRow {
  period: string;
  value: number | null;
  level: number | null;
  complete: boolean;
}

/** The model: values in force at as_of, grouped, then FRED's formulas, written out directly. */
function model(
  chains: readonly Chain[],
  asOf: string,
  units: Units,
  frequency: 'q' | 'a' | null,
  aggregation: 'avg' | 'sum' | 'eop',
): ModelRow[] {
  const inForce = new Map<string, number>();
  for (const chain of chains) {
    const known = chain.revisions.filter((r) => r.observed_at <= asOf);
    if (known.length) inForce.set(chain.period, known.at(-1)!.value);
  }
  const label = (month: string) => {
    if (frequency === 'a') return month.slice(0, 4);
    if (frequency === 'q') return `${month.slice(0, 4)}-Q${Math.ceil(Number(month.slice(5)) / 3)}`;
    return month;
  };
  const members = new Map<string, number[]>();
  for (const month of MONTHS) {
    const value = inForce.get(month);
    if (value === undefined) continue;
    members.set(label(month), [...(members.get(label(month)) ?? []), value]);
  }
  const need = frequency === 'a' ? 12 : frequency === 'q' ? 3 : 1;
  const levels = new Map<string, { level: number | null; complete: boolean }>();
  for (const [period, values] of members) {
    const complete = values.length === need;
    const sum = values.reduce((a, b) => a + b, 0);
    let level: number | null;
    if (frequency === null) level = values[0]!;
    else if (!complete && aggregation !== 'avg') level = null;
    else if (aggregation !== 'avg') level = aggregation === 'sum' ? sum : values.at(-1)!;
    else {
      // meta.transform.rounding: the mean to the values' most decimals plus AVERAGE_EXTRA_DECIMALS.
      const decimals = Math.max(...values.map((v) => String(v).split('.')[1]?.length ?? 0));
      level = Number((sum / values.length).toFixed(decimals + AVERAGE_EXTRA_DECIMALS));
    }
    levels.set(period, { level, complete });
  }
  const n = frequency === 'a' ? 1 : frequency === 'q' ? 4 : 12;
  /** The period k periods before, in the period's own form. */
  const back = (period: string, k: number): string => {
    const year = Number(period.slice(0, 4));
    if (frequency === 'a') return String(year - k);
    if (frequency === 'q') {
      const index = year * 4 + Number(period.slice(6)) - 1 - k;
      return `${Math.floor(index / 4)}-Q${(index % 4) + 1}`;
    }
    return new Date(Date.UTC(year, Number(period.slice(5)) - 1 - k, 1)).toISOString().slice(0, 7);
  };
  return [...levels.keys()].sort().map((period) => {
    const { level, complete } = levels.get(period)!;
    const previous = levels.get(back(period, 1))?.level ?? null;
    const yearAgo = levels.get(back(period, n))?.level ?? null;
    let value: number | null = null;
    if (level !== null) {
      const x = level;
      const p = previous;
      const y = yearAgo;
      switch (units) {
        case 'lin':
          value = x;
          break;
        case 'chg':
          value = p === null ? null : x - p;
          break;
        case 'ch1':
          value = y === null ? null : x - y;
          break;
        case 'pch':
          value = p === null || p <= 0 ? null : 100 * (x / p - 1);
          break;
        case 'pc1':
          value = y === null || y <= 0 ? null : 100 * (x / y - 1);
          break;
        case 'pca':
          value = p === null || p <= 0 || x < 0 ? null : 100 * ((x / p) ** n - 1);
          break;
        case 'cch':
          value = p === null || p <= 0 || x <= 0 ? null : 100 * (Math.log(x) - Math.log(p));
          break;
        case 'cca':
          value = p === null || p <= 0 || x <= 0 ? null : 100 * n * (Math.log(x) - Math.log(p));
          break;
        case 'log':
          value = x <= 0 ? null : Math.log(x);
          break;
      }
    }
    return { period, value, level, complete };
  });
}

const route = ROUTES.find((r) => r.id === 'observations')!;

describe('transforms at as_of against a model of the revisions known then', () => {
  const scratch = useScratchDuckDb('mmds-transforms-');
  let runs = 0;

  it('equals the model for every units, frequency and aggregation', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        fc.array(instantPickArbitrary, { minLength: 1, maxLength: 2 }),
        fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }),
        async (chains, picks, requests) => {
          runs += 1;
          const layout = resolveLayout(join(scratch.dir, `run-${runs}`));
          await appendChains(layout, scratch.connection, [modelSeries(KEY)], chains);
          const published = await publishSnapshot(layout, scratch.connection, {
            now: new Date(MODEL_NOW.getTime() + 2000),
            pipelineVersion: 'test',
            keep: 0,
            snapshotEvents: writeSnapshotEvents,
          });
          const db = await openSnapshotDb(layout, published.snapshot_id, { poolSize: 2, threads: 1 });
          try {
            const boundaries = chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
            for (const pick of picks) {
              const asOf = resolveInstant(pick, boundaries);
              for (const request of requests) {
                const search = new URLSearchParams({ series: KEY, as_of: asOf, units: request.units });
                if (request.aggregate !== null) {
                  search.set('frequency', request.frequency);
                  search.set('aggregation', request.aggregate);
                }
                const payload = await getObservations(
                  { db, now: MODEL_NOW, keyed: true },
                  parseRequest(route, null, search),
                );
                const rows = payload.data as Array<ModelRow & { note: string | null; observed_at: string }>;
                const expected = model(
                  chains,
                  asOf,
                  request.units,
                  request.aggregate === null ? null : (request.frequency as 'q' | 'a'),
                  (request.aggregate ?? 'avg') as 'avg' | 'sum' | 'eop',
                );
                const what = `${search} over ${JSON.stringify(chains.map((c) => [c.period, c.revisions]))}`;
                expect(
                  rows.map((r) => r.period),
                  what,
                ).toEqual(expected.map((r) => r.period));
                for (const [i, row] of rows.entries()) {
                  const want = expected[i]!;
                  expect(row.complete, what).toBe(want.complete);
                  for (const field of ['value', 'level'] as const) {
                    if (want[field] === null) expect(row[field], `${what} ${row.period} ${field}`).toBeNull();
                    else expect(row[field], `${what} ${row.period} ${field}`).toBeCloseTo(want[field]!, 9);
                  }
                  // A null value always says why; a computed one never carries a note.
                  expect(row.note === null, what).toBe(row.value !== null);
                  // Nothing known after as_of went into the row.
                  expect(row.observed_at <= asOf, what).toBe(true);
                }
              }
            }
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  }, 300_000);
});

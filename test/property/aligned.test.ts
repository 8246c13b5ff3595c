import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getAlignedObservations } from '../../src/api/v1/aligned.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
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
 * Property: for any revision logs of a monthly and a daily series, /observations/aligned at as_of
 * (w or m, ffill or none) equals a model computed here, in the plainest way, from only the
 * revisions known at as_of: the rows from the first to the last period holding a known value,
 * per row the daily series' last known day in it, the monthly series' value of the latest month
 * with a day in it, and a gap filled from the previous row's own value at most once.
 */

const NUM_RUNS = Math.min(Number(process.env.MMDS_PROPERTY_RUNS ?? 40), 200);
const MONTHLY = 't.M';
const DAILY = 't.D';
const MONTHS = ['2024-11', '2024-12', '2025-01', '2025-02', '2025-03'];
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** 2024-12-20 to 2025-02-10: weeks and month ends on both sides. */
const DAYS = Array.from({ length: 53 }, (_, i) => dayOf(Date.UTC(2024, 11, 20) + i * DAY_MS));

const chainsArbitrary = (key: string, periods: readonly string[], max: number) =>
  fc
    .subarray([...periods], { minLength: 0, maxLength: max })
    .chain((chosen) =>
      fc.tuple(...chosen.map((period) => chainShapeArbitrary.map((shape) => chainOf(key, period, shape)))),
    );

const logArbitrary = fc
  .tuple(chainsArbitrary(MONTHLY, MONTHS, 5), chainsArbitrary(DAILY, DAYS, 14))
  .map(([monthly, daily]) => [...monthly, ...daily]);

/** A day range over the log's days and a little around them, or open ends. */
const RANGE_DAYS = Array.from({ length: 70 }, (_, i) => dayOf(Date.UTC(2024, 11, 15) + i * DAY_MS));
const rangeArbitrary = fc
  .tuple(fc.option(fc.constantFrom(...RANGE_DAYS)), fc.option(fc.constantFrom(...RANGE_DAYS)))
  .map(([a, b]) => (a !== null && b !== null && a > b ? [b, a] : [a, b]) as [string | null, string | null]);

const requestArbitrary = fc.record({
  frequency: fc.constantFrom('w' as const, 'm' as const),
  fill: fc.constantFrom('ffill' as const, 'none' as const, null),
  range: rangeArbitrary,
});

/** Per period the value in force at as_of (the last revision known then). */
function inForce(chains: readonly Chain[], key: string, asOf: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const chain of chains) {
    if (chain.series_key !== key) continue;
    const known = chain.revisions.filter((r) => r.observed_at <= asOf);
    if (known.length) out.set(chain.period, known.at(-1)!.value);
  }
  return out;
}

const lastDayOfMonth = (month: string) =>
  dayOf(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0));
/** The Friday on or after a day. */
function fridayOnOrAfter(day: string): string {
  let ms = Date.parse(`${day}T00:00:00Z`);
  while (new Date(ms).getUTCDay() !== 5) ms += DAY_MS;
  return dayOf(ms);
}

interface ModelRow {
  period: string;
  values: Array<number | null>;
  filled: boolean[];
}

function model(
  chains: readonly Chain[],
  asOf: string,
  frequency: 'w' | 'm',
  fill: 'ffill' | 'none',
  [from, to]: [string | null, string | null],
): ModelRow[] {
  const monthly = inForce(chains, MONTHLY, asOf);
  const daily = inForce(chains, DAILY, asOf);
  const firsts = [...[...monthly.keys()].map((m) => `${m}-01`), ...daily.keys()].sort();
  const lasts = [...[...monthly.keys()].map(lastDayOfMonth), ...daily.keys()].sort();
  if (firsts.length === 0) return [];
  const grid: string[] = [];
  if (frequency === 'm') {
    for (let m = firsts[0]!.slice(0, 7); m <= lasts.at(-1)!.slice(0, 7); ) {
      grid.push(m);
      const next = new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 1));
      m = next.toISOString().slice(0, 7);
    }
  } else {
    const end = fridayOnOrAfter(lasts.at(-1)!);
    for (let f = fridayOnOrAfter(firsts[0]!); f <= end; f = dayOf(Date.parse(`${f}T00:00:00Z`) + 7 * DAY_MS))
      grid.push(f);
  }
  /** The own values of a row: [monthly, daily], undefined where none. */
  const own = (period: string): Array<number | undefined> => {
    if (frequency === 'm') {
      const days = [...daily.keys()].filter((d) => d.startsWith(period)).sort();
      return [monthly.get(period), days.length ? daily.get(days.at(-1)!) : undefined];
    }
    const saturday = dayOf(Date.parse(`${period}T00:00:00Z`) - 6 * DAY_MS);
    const days = [...daily.keys()].filter((d) => d >= saturday && d <= period).sort();
    return [
      monthly.get(period.slice(0, 7)) ?? monthly.get(saturday.slice(0, 7)),
      days.length ? daily.get(days.at(-1)!) : undefined,
    ];
  };
  const previous = (period: string) =>
    frequency === 'm'
      ? new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)) - 2, 1))
          .toISOString()
          .slice(0, 7)
      : dayOf(Date.parse(`${period}T00:00:00Z`) - 7 * DAY_MS);
  /** Whether a row has a day in [from, to]. */
  const inRange = (period: string) => {
    const first = frequency === 'm' ? `${period}-01` : dayOf(Date.parse(`${period}T00:00:00Z`) - 6 * DAY_MS);
    const last = frequency === 'm' ? lastDayOfMonth(period) : period;
    return (from === null || last >= from) && (to === null || first <= to);
  };
  return grid.filter(inRange).map((period) => {
    const mine = own(period);
    const before = own(previous(period));
    const values = mine.map((v, i) => v ?? (fill === 'ffill' ? (before[i] ?? null) : null));
    const filled = mine.map((v, i) => v === undefined && fill === 'ffill' && before[i] !== undefined);
    return { period, values, filled };
  });
}

const route = ROUTES.find((r) => r.id === 'observations-aligned')!;

describe('alignment at as_of against a model of the revisions known then', () => {
  const scratch = useScratchDuckDb('mmds-aligned-');
  let runs = 0;

  it('equals the model for w and m, ffill and none, both column orders', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        fc.array(instantPickArbitrary, { minLength: 1, maxLength: 2 }),
        fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }),
        async (chains, picks, requests) => {
          runs += 1;
          const layout = resolveLayout(join(scratch.dir, `run-${runs}`));
          await appendChains(
            layout,
            scratch.connection,
            [modelSeries(MONTHLY), { ...modelSeries(DAILY), frequency: 'daily' }],
            chains,
          );
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
              for (const [i, request] of requests.entries()) {
                // Odd requests ask for the columns the other way round: the values follow the keys.
                const reversed = i % 2 === 1;
                const search = new URLSearchParams({
                  series: reversed ? `${DAILY},${MONTHLY}` : `${MONTHLY},${DAILY}`,
                  frequency: request.frequency,
                  as_of: asOf,
                  limit: '10000',
                });
                if (request.fill !== null) search.set('fill', request.fill);
                if (request.range[0] !== null) search.set('from', request.range[0]);
                if (request.range[1] !== null) search.set('to', request.range[1]);
                const payload = await getAlignedObservations(
                  { db, now: MODEL_NOW, keyed: true },
                  parseRequest(route, null, search),
                );
                const expected = model(
                  chains,
                  asOf,
                  request.frequency,
                  request.fill ?? 'ffill',
                  request.range,
                ).map((row) =>
                  reversed
                    ? { ...row, values: [...row.values].reverse(), filled: [...row.filled].reverse() }
                    : row,
                );
                const what = `${search} over ${JSON.stringify(chains.map((c) => [c.series_key, c.period, c.revisions]))}`;
                expect(payload.data, what).toEqual(expected);
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

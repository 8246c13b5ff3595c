import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import {
  type HistoryQuery,
  readObservationHistory,
  readObservationHistoryInDuckDb,
} from '../../src/query/history.ts';
import { dropRevisionCache, revisionCacheUsage } from '../../src/query/revision-cache.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { readValuesInForceAsOf, readValuesInForceInDuckDb } from '../../src/query/transforms.ts';
import { createSnapshotManager } from '../../src/server/snapshot-manager.ts';
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
  pageSizeArbitrary,
  resolveInstant,
} from '../helpers/as-of-reference.ts';
import { useScratchDuckDb } from '../helpers/scratch-duckdb.ts';

/**
 * Differential property: a page computed from the series' revisions held in memory
 * (src/query/revision-cache.ts) is byte for byte the page DuckDB computes over the snapshot's
 * Parquet (readObservationHistoryInDuckDb), and so are the values in force at as_of
 * (readValuesInForceAsOf against readValuesInForceInDuckDb), for random revision logs (the as_of reference
 * model's generator), as_of instants on and around knowledge times, period ranges of every
 * period form, page sizes and cursors (the pages' own and arbitrary ones).
 */

// 25 runs in the everyday suite (each publishes a store); test:reliability sets MMDS_PROPERTY_RUNS.
const NUM_RUNS = Math.max(10, Math.floor(Number(process.env.MMDS_PROPERTY_RUNS ?? 100) / 4));
const SERIES_KEYS = ['t.A', 't.B'] as const;
/** Every period form, so that the period range's per-form bounds are exercised. */
const PERIODS = [
  '2024',
  '2024-Q4',
  '2024-10',
  '2024-11',
  '2024-12',
  '2024-11-30',
  '2024-12-31',
  '2025-01',
  '2025-Q1',
] as const;
/** Range ends of every form, on and between the stored periods' spans. */
const RANGE_ENDS = [
  '2024',
  '2025',
  '2024-Q3',
  '2024-Q4',
  '2025-Q1',
  '2024-10',
  '2024-11',
  '2024-12',
  '2025-01',
  '2024-10-31',
  '2024-11-15',
  '2024-11-30',
  '2024-12-01',
  '2024-12-15',
  '2025-01-31',
];

/** Values with fractions (how DuckDB writes a double is part of the bytes compared). */
const chainArbitrary = (series_key: string, period: string) =>
  chainShapeArbitrary.map((shape) => {
    const chain = chainOf(series_key, period, shape);
    return {
      ...chain,
      revisions: chain.revisions.map((r) => ({ ...r, value: r.value / 3 - 0.1 })),
    } satisfies Chain;
  });

const logArbitrary = fc
  .subarray(
    SERIES_KEYS.flatMap((key) => PERIODS.map((period) => [key, period] as const)),
    { minLength: 3, maxLength: 12 },
  )
  .chain((keys) => fc.tuple(...keys.map(([key, period]) => chainArbitrary(key, period))));

const queryArbitrary = fc.record({
  asOf: fc.option(instantPickArbitrary, { nil: null }),
  from: fc.option(fc.constantFrom(...RANGE_ENDS), { nil: null }),
  to: fc.option(fc.constantFrom(...RANGE_ENDS), { nil: null }),
  limit: pageSizeArbitrary,
  after: fc.option(
    fc.record({ period: fc.constantFrom(...PERIODS, '2024-10', '2025-02'), revision_number: fc.nat(5) }),
    { nil: null },
  ),
});

describe('revision cache against DuckDB', () => {
  const scratch = useScratchDuckDb('mmds-revision-cache-');
  let runs = 0;

  it('computes every page exactly as the DuckDB path does', async () => {
    let cachedPages = 0;
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        fc.array(queryArbitrary, { minLength: 4, maxLength: 10 }),
        async (chains, queries) => {
          runs += 1;
          const layout = resolveLayout(join(scratch.dir, `run-${runs}`));
          await appendChains(layout, scratch.connection, SERIES_KEYS.map(modelSeries), chains);
          const published = await publishSnapshot(layout, scratch.connection, {
            now: new Date(MODEL_NOW.getTime() + 2000),
            pipelineVersion: 'test',
            keep: 0,
            snapshotEvents: writeSnapshotEvents,
          });
          const cached = await openSnapshotDb(layout, published.snapshot_id, { poolSize: 1, threads: 1 });
          const plain = await openSnapshotDb(layout, published.snapshot_id, {
            poolSize: 1,
            threads: 1,
            revisionCacheBytes: 0,
          });
          try {
            const boundaries = chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
            for (const seriesKey of [...SERIES_KEYS, 't.none']) {
              for (const drawn of queries) {
                const query: HistoryQuery = {
                  ...drawn,
                  asOf: drawn.asOf === null ? null : resolveInstant(drawn.asOf, boundaries),
                };
                // The values in force at as_of (the first step of transforms and alignment).
                expect(JSON.stringify(await readValuesInForceAsOf(cached, seriesKey, query.asOf))).toBe(
                  JSON.stringify(await readValuesInForceInDuckDb(plain, seriesKey, query.asOf)),
                );
                // Every page from the drawn cursor on, each path following its own next cursor.
                for (let page = 0; page < 50; page++) {
                  const fromCache = await readObservationHistory(cached, seriesKey, query);
                  const fromDuckDb = await readObservationHistoryInDuckDb(plain, seriesKey, query);
                  expect(JSON.stringify(fromCache), `${seriesKey} ${JSON.stringify(query)}`).toBe(
                    JSON.stringify(fromDuckDb),
                  );
                  cachedPages += 1;
                  const last = fromCache.rows.at(-1);
                  if (!fromCache.more || !last) break;
                  query.after = { period: last.period, revision_number: last.revision_number };
                }
              }
            }
            // The pages above came from the cache (one block per series read), not from DuckDB.
            expect(revisionCacheUsage(cached).entries).toBe(SERIES_KEYS.length + 1);
          } finally {
            await cached.close();
            await plain.close();
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
    expect(cachedPages).toBeGreaterThan(NUM_RUNS);
  }, 300_000);

  it('stays within its byte budget and is dropped when the snapshot manager switches', async () => {
    const layout = resolveLayout(join(scratch.dir, 'bounded'));
    const shape = { hours: [0, 2, 5], steps: [1, 2, 1, 1], start: 1, split: 2, lateFirst: true };
    // Six series of the same size (keys of the same length): their blocks are charged alike.
    const keys = ['t.1', 't.2', 't.3', 't.4', 't.5', 't.6'];
    const chains = keys.flatMap((key) => PERIODS.map((period) => chainOf(key, period, shape)));
    await appendChains(layout, scratch.connection, keys.map(modelSeries), chains);
    const publish = (seconds: number) =>
      publishSnapshot(layout, scratch.connection, {
        now: new Date(MODEL_NOW.getTime() + seconds * 1000),
        pipelineVersion: 'test',
        keep: 0,
        snapshotEvents: writeSnapshotEvents,
      });
    const first = await publish(2);
    const query: HistoryQuery = { asOf: null, from: null, to: null, after: null, limit: 10_000 };
    const plain = await openSnapshotDb(layout, first.snapshot_id, {
      poolSize: 1,
      threads: 1,
      revisionCacheBytes: 0,
    });
    const sized = await openSnapshotDb(layout, first.snapshot_id, { poolSize: 1, threads: 1 });
    await readObservationHistory(sized, 't.1', query);
    const block = revisionCacheUsage(sized).bytes;
    await sized.close();
    // Room for four blocks and a half: reading six series keeps the four most recent.
    const budget = Math.floor(4.5 * block);
    const manager = await createSnapshotManager({
      layout,
      open: (id) => openSnapshotDb(layout, id, { poolSize: 1, threads: 1, revisionCacheBytes: budget }),
      log: () => {},
      pollMs: 0,
    });
    try {
      const bounded = await openSnapshotDb(layout, first.snapshot_id, {
        poolSize: 1,
        threads: 1,
        revisionCacheBytes: budget,
      });
      // Below four blocks: each block is above a quarter of it, used once and left to DuckDB after.
      const small = await openSnapshotDb(layout, first.snapshot_id, {
        poolSize: 1,
        threads: 1,
        revisionCacheBytes: 3 * block,
      });
      try {
        for (const key of [...keys, ...keys]) {
          const expected = JSON.stringify(await readObservationHistoryInDuckDb(plain, key, query));
          for (const db of [bounded, small])
            expect(JSON.stringify(await readObservationHistory(db, key, query))).toBe(expected);
          const usage = revisionCacheUsage(bounded);
          expect(usage.entries).toBeLessThanOrEqual(4);
          expect(usage.bytes).toBeLessThanOrEqual(usage.max_bytes);
          expect(revisionCacheUsage(small).bytes).toBeLessThan(block);
        }
        expect(revisionCacheUsage(bounded).entries).toBe(4);
      } finally {
        await bounded.close();
        await small.close();
        await plain.close();
      }
      const db = manager.current()!;
      expect(db.id).toBe(first.snapshot_id);
      await readObservationHistory(db, 't.1', query);
      expect(revisionCacheUsage(db).entries).toBe(1);
      // A new snapshot: the manager switches and the old one's blocks are gone, for good.
      await appendChains(layout, scratch.connection, [], [chainOf('t.1', '2025-02', shape)]);
      const second = await publish(4);
      // A request still in flight on the old snapshot (its lease keeps it open) reads with DuckDB.
      const release = db.lease();
      await manager.refresh();
      expect(manager.current()!.id).toBe(second.snapshot_id);
      expect(revisionCacheUsage(db).entries).toBe(0);
      expect((await readObservationHistory(db, 't.1', query)).rows.length).toBeGreaterThan(0);
      expect(revisionCacheUsage(db).entries).toBe(0);
      release();
      dropRevisionCache(manager.current()!);
      expect(revisionCacheUsage(manager.current()!).entries).toBe(0);
    } finally {
      await manager.close();
    }
  });
});

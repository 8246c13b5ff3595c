import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getObservations } from '../../src/api/v1/observations.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import type { SeriesEntry } from '../../src/model/records.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout, type StoreLayout } from '../../src/store/layout.ts';
import { publishSnapshot } from '../../src/store/publish.ts';
import {
  type ApiRow,
  appendChains,
  type Chain,
  chainOf,
  chainShapeArbitrary,
  expectedRows,
  instantPickArbitrary,
  MODEL_NOW,
  modelSeries,
  PERIODS,
  pageSizeArbitrary,
  project,
  resolveInstant,
} from '../helpers/as-of-reference.ts';
import { useScratchDuckDb } from '../helpers/scratch-duckdb.ts';

/**
 * Property: for any revision log the store accepts, getObservations with as_of returns exactly
 * the revisions observed at or before as_of, and marks in force the highest of them per period,
 * compared with a reference model small enough to be obviously right. The as_of instants fall
 * exactly on, just before and just after observed_at boundaries, before everything, or anywhere.
 */

// 100 runs in the everyday suite; `npm run test:reliability` sets MMDS_PROPERTY_RUNS=1000.
const NUM_RUNS = Number(process.env.MMDS_PROPERTY_RUNS ?? 100);
const SERIES_KEYS = ['t.A', 't.B', 't.C'] as const;
const NOW = MODEL_NOW;

const SERIES: SeriesEntry[] = SERIES_KEYS.map(modelSeries);

const chainArbitrary = (series_key: string, period: string) =>
  chainShapeArbitrary.map((shape) => chainOf(series_key, period, shape));

/** Up to five chains over three series and three periods; t.C is often left without any. */
const logArbitrary = fc
  .subarray(
    SERIES_KEYS.flatMap((key) => PERIODS.map((period) => [key, period] as const)),
    { minLength: 0, maxLength: 5 },
  )
  .chain((keys) => fc.tuple(...keys.map(([key, period]) => chainArbitrary(key, period))));

const instantsArbitrary = fc.array(instantPickArbitrary, { minLength: 1, maxLength: 2 });

/** Appends the log as the store would receive it: two batches, in or out of knowledge-time order. */
async function writeLog(layout: StoreLayout, connection: DuckDBConnection, chains: readonly Chain[]) {
  const { first: appended, second } = await appendChains(layout, connection, SERIES, chains);
  expect(appended.tables.observations?.unchanged ?? 0).toBe(0);
  if (second === null) return;
  const more = second.result;
  expect(more.tables.observations).toMatchObject({ added: second.observations, unchanged: 0, corrected: 0 });
}

const route = ROUTES.find((r) => r.id === 'observations')!;

/** Reads every page of a series through the payload function, following next_cursor. */
async function readAll(db: SnapshotDb, seriesKey: string, asOf: string | null, limit: number) {
  const rows: ApiRow[] = [];
  let cursor: string | null = null;
  do {
    const search = new URLSearchParams({ series: seriesKey, limit: String(limit) });
    if (asOf !== null) search.set('as_of', asOf);
    if (cursor !== null) search.set('cursor', cursor);
    const page = await getObservations({ db, now: NOW, keyed: true }, parseRequest(route, null, search));
    rows.push(...(page.data as ApiRow[]));
    cursor = (page.meta?.next_cursor as string | null) ?? null;
  } while (cursor !== null);
  return rows;
}

describe('as_of against a reference model', () => {
  const scratch = useScratchDuckDb('mmds-as-of-');
  let runs = 0;

  it('returns what was known at as_of with the revision then in force marked', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        instantsArbitrary,
        pageSizeArbitrary,
        async (chains, picks, pageSize) => {
          runs += 1;
          const layout = resolveLayout(join(scratch.dir, `run-${runs}`));
          await writeLog(layout, scratch.connection, chains);
          const published = await publishSnapshot(layout, scratch.connection, {
            now: new Date(NOW.getTime() + 2000),
            pipelineVersion: 'test',
            keep: 0,
            snapshotEvents: writeSnapshotEvents,
          });
          const db = await openSnapshotDb(layout, published.snapshot_id, { poolSize: 2, threads: 1 });
          try {
            const read = (seriesKey: string, asOf: string | null) => readAll(db, seriesKey, asOf, pageSize);
            const boundaries = chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
            // A series without chains is still catalogued: an empty list, never a 404.
            const seriesKeys = SERIES_KEYS.filter(
              (key) => chains.some((c) => c.series_key === key) || key === 't.C',
            );
            for (const seriesKey of seriesKeys) {
              const all = await read(seriesKey, null);
              // supersedes_id points at the previous revision of the same period.
              for (const row of all) {
                const previous = all.find(
                  (r) => r.period === row.period && r.revision_number === row.revision_number - 1,
                );
                expect(row.supersedes_id).toBe(previous?.id ?? null);
              }
              expect(project(all)).toEqual(expectedRows(chains, seriesKey, null));
              for (const pick of picks) {
                const asOf = resolveInstant(pick, boundaries);
                const rows = await read(seriesKey, asOf);
                expect(project(rows), `${seriesKey} as of ${asOf}`).toEqual(
                  expectedRows(chains, seriesKey, asOf),
                );
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

import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObservations } from '../../src/api/v1/observations.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { openDuckDb } from '../../src/db/duckdb.ts';
import type { ObservationInput, SeriesEntry, SourceEntry } from '../../src/model/records.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { appendBatch } from '../../src/store/append-batch.ts';
import { resolveLayout, type StoreLayout } from '../../src/store/layout.ts';
import { publishSnapshot } from '../../src/store/publish.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Property: for any revision log the store accepts, getObservations with as_of returns exactly
 * the revisions observed at or before as_of, and marks in force the highest of them per period,
 * compared with a reference model small enough to be obviously right. The as_of instants fall
 * exactly on, just before and just after observed_at boundaries, before everything, or anywhere.
 */

// 100 runs in the everyday suite; `npm run test:reliability` sets MMDS_PROPERTY_RUNS=1000.
const NUM_RUNS = Number(process.env.MMDS_PROPERTY_RUNS ?? 100);
const SERIES_KEYS = ['t.A', 't.B', 't.C'] as const;
const PERIODS = ['2024-11', '2024-12', '2025-01'] as const;
const BASE = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const NOW = new Date(BASE + 1000 * HOUR);

const SOURCE: SourceEntry = {
  id: 't',
  name: 'Test source',
  publisher: 'Test',
  url: 'https://example.org/',
  licence: 'Public domain',
  licence_url: null,
  rights: 'public_domain',
  attribution: 'Source: test',
  cadence: 'monthly',
  stale_after_days: 45,
  sample: false,
};

const SERIES: SeriesEntry[] = SERIES_KEYS.map((key) => ({
  key,
  slug: key.replace('.', '-').toLowerCase(),
  name: key,
  source: 't',
  frequency: 'monthly',
  unit: 'index',
  country: null,
  region: null,
  currency: null,
  sector: null,
  seasonal_adjustment: null,
  macro: false,
  description: null,
}));

/** One revision chain of the model: values in revision order, each with its knowledge time. */
interface Chain {
  series_key: string;
  period: string;
  revisions: Array<{ value: number; observed_at: string }>;
  /** Revisions from this index on go in a second ingest batch. */
  split: number;
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * 1 to 4 revisions per chain; knowledge times come from a handful of hours so that ties are
 * common, sorted because the store never lets observed_at decrease along a chain; each value
 * differs from the one before it (a repeat is no revision) but may return to an older one.
 */
const chainArbitrary = (series_key: string, period: string) =>
  fc
    .record({
      hours: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }),
      steps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
      start: fc.integer({ min: 0, max: 4 }),
      split: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ hours, steps, start, split }): Chain => {
      const sorted = [...hours].sort((a, b) => a - b);
      let value = start;
      const revisions = sorted.map((hour, i) => {
        if (i > 0) value = (value + steps[i]!) % 5;
        return { value, observed_at: iso(BASE + hour * HOUR) };
      });
      return { series_key, period, revisions, split };
    });

/** Up to five chains over three series and three periods; t.C is often left without any. */
const logArbitrary = fc
  .subarray(
    SERIES_KEYS.flatMap((key) => PERIODS.map((period) => [key, period] as const)),
    { minLength: 0, maxLength: 5 },
  )
  .chain((keys) => fc.tuple(...keys.map(([key, period]) => chainArbitrary(key, period))));

interface ModelRow {
  series_key: string;
  period: string;
  value: number;
  observed_at: string;
  revision_number: number;
  in_force: boolean;
}

/** The reference: revisions known at as_of (all without it), the highest per period in force. */
function expectedRows(chains: readonly Chain[], seriesKey: string, asOf: string | null): ModelRow[] {
  return chains
    .filter((chain) => chain.series_key === seriesKey)
    .sort((a, b) => (a.period < b.period ? -1 : 1))
    .flatMap((chain) => {
      const known = chain.revisions
        .map((revision, i) => ({ ...revision, revision_number: i + 1 }))
        .filter((revision) => asOf === null || revision.observed_at <= asOf);
      return known.map((revision) => ({
        series_key: seriesKey,
        period: chain.period,
        ...revision,
        in_force: revision.revision_number === known.length,
      }));
    });
}

/** How an as_of instant is picked: relative to a revision's observed_at, or anywhere. */
type InstantPick =
  | { kind: 'exact' | 'just-before' | 'just-after'; index: number }
  | { kind: 'before-all' }
  | { kind: 'anywhere'; offset: number };

const instantsArbitrary = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constantFrom('exact' as const, 'just-before' as const, 'just-after' as const),
      index: fc.nat(),
    }),
    fc.constant({ kind: 'before-all' as const }),
    fc.record({ kind: fc.constant('anywhere' as const), offset: fc.integer({ min: -HOUR, max: 8 * HOUR }) }),
  ),
  { minLength: 1, maxLength: 2 },
);

/** Mostly one page; sometimes tiny pages, so that page boundaries fall inside revision chains. */
const pageSizeArbitrary = fc.oneof(
  { arbitrary: fc.constant(10_000), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 1 },
);

function resolveInstant(pick: InstantPick, boundaries: readonly number[]): string {
  if (pick.kind === 'before-all') return iso(BASE - 1000);
  if (pick.kind === 'anywhere' || boundaries.length === 0)
    return iso(BASE + (pick.kind === 'anywhere' ? pick.offset : 0));
  const at = boundaries[pick.index % boundaries.length]!;
  return iso(pick.kind === 'exact' ? at : pick.kind === 'just-before' ? at - 1000 : at + 1000);
}

function toObservation(chain: Chain, i: number): ObservationInput {
  const revision = chain.revisions[i]!;
  return {
    series_key: chain.series_key,
    period: chain.period,
    value: revision.value,
    observed_at: revision.observed_at,
    source_ref: `log:${chain.series_key}:${chain.period}:${i + 1}`,
    verification_status: 'verified',
    confidence: 1,
    data_class: 'official',
  };
}

/** Appends the log as the store would receive it: one batch, then the chains' later revisions in a second. */
async function writeLog(layout: StoreLayout, connection: DuckDBConnection, chains: readonly Chain[]) {
  const meta = (n: number) => ({
    source: 't',
    files: [],
    options: {},
    collectorVersion: 'mmds/test',
    now: new Date(NOW.getTime() + n * 1000),
  });
  const first = chains.flatMap((c) => c.revisions.slice(0, c.split).map((_, i) => toObservation(c, i)));
  const second = chains.flatMap((c) =>
    c.revisions.slice(c.split).map((_, i) => toObservation(c, c.split + i)),
  );
  const appended = await appendBatch(
    layout,
    connection,
    { sources: [SOURCE], series: SERIES, observations: first, rows_read: 0, rows_skipped: 0 },
    meta(0),
  );
  expect(appended.tables.observations?.stale ?? 0).toBe(0);
  if (second.length === 0) return;
  const more = await appendBatch(
    layout,
    connection,
    { observations: second, rows_read: 0, rows_skipped: 0 },
    meta(1),
  );
  expect(more.tables.observations).toEqual({ added: second.length, unchanged: 0, stale: 0 });
}

type ApiRow = ModelRow & { id: string; supersedes_id: string | null };
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

const project = (rows: readonly ModelRow[]): ModelRow[] =>
  rows.map(({ series_key, period, value, observed_at, revision_number, in_force }) => ({
    series_key,
    period,
    value,
    observed_at,
    revision_number,
    in_force,
  }));

describe('as_of against a reference model', () => {
  let duck: DuckDBInstance;
  let connection: DuckDBConnection;
  let temp: ReturnType<typeof createTempDir>;
  let runs = 0;

  beforeAll(async () => {
    duck = await openDuckDb({ threads: 1 });
    connection = await duck.connect();
    temp = createTempDir('mmds-as-of-');
  });
  afterAll(() => {
    connection?.closeSync();
    duck?.closeSync();
    temp?.remove();
  });

  it('returns what was known at as_of with the revision then in force marked', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        instantsArbitrary,
        pageSizeArbitrary,
        async (chains, picks, pageSize) => {
          runs += 1;
          const layout = resolveLayout(join(temp.dir, `run-${runs}`));
          await writeLog(layout, connection, chains);
          const published = await publishSnapshot(layout, connection, {
            now: new Date(NOW.getTime() + 2000),
            pipelineVersion: 'test',
            keep: 0,
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

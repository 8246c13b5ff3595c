import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getObservationRevisions } from '../../src/api/v1/revisions.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
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
 * Property: for any revision log the store accepts, the revisions of a series at as_of (the list
 * and the triangle, over every page) equal a model computed here, in the plainest way, from only
 * the revisions known at as_of. The as_of instants fall on, just before and just after the
 * knowledge times, before all of them, or anywhere; values run 0-4, so zero bases (a null
 * percent with a note) are common.
 */

const NUM_RUNS = Math.min(Number(process.env.MMDS_PROPERTY_RUNS ?? 40), 200);
const KEY = 't.A';
const MONTHS = ['2024-09', '2024-10', '2024-11', '2024-12', '2025-01', '2025-02'];

const logArbitrary = fc
  .subarray(MONTHS, { minLength: 0, maxLength: MONTHS.length })
  .chain((months) =>
    fc.tuple(...months.map((month) => chainShapeArbitrary.map((shape) => chainOf(KEY, month, shape)))),
  );

interface ModelRelease {
  revision_number: number;
  value: number;
  observed_at: string;
}

interface ModelPeriod {
  period: string;
  first: ModelRelease;
  later: Array<ModelRelease & { change: number; percent: number | null }>;
  latest: ModelRelease;
  total: number;
  totalPercent: number | null;
}

/** The revisions known at as_of, per period in period order (a period with none is left out). */
function known(chains: readonly Chain[], asOf: string): Array<[string, ModelRelease[]]> {
  return [...chains]
    .sort((a, b) => (a.period < b.period ? -1 : 1))
    .map((chain): [string, ModelRelease[]] => [
      chain.period,
      chain.revisions
        .map((r, i) => ({ revision_number: i + 1, value: r.value, observed_at: r.observed_at }))
        .filter((r) => r.observed_at <= asOf),
    ])
    .filter(([, releases]) => releases.length > 0);
}

const percent = (from: number, to: number) => (from === 0 ? null : ((to - from) / from) * 100);

function listModel(chains: readonly Chain[], asOf: string): ModelPeriod[] {
  return known(chains, asOf).map(([period, releases]) => {
    const first = releases[0]!;
    const latest = releases.at(-1)!;
    return {
      period,
      first,
      later: releases.slice(1).map((r, i) => ({
        ...r,
        change: r.value - releases[i]!.value,
        percent: percent(releases[i]!.value, r.value),
      })),
      latest,
      total: latest.value - first.value,
      totalPercent: percent(first.value, latest.value),
    };
  });
}

function triangleModel(chains: readonly Chain[], asOf: string) {
  const periods = known(chains, asOf);
  const vintages = [...new Set(periods.flatMap(([, rs]) => rs.map((r) => r.observed_at)))].sort();
  const rows = periods.map(([period, releases]) => ({
    shape: 'triangle',
    period,
    values: vintages.map((v) => releases.filter((r) => r.observed_at <= v).at(-1)?.value ?? null),
  }));
  return { vintages, rows };
}

const route = ROUTES.find((r) => r.id === 'observations-revisions')!;

interface ApiRelease {
  revision_number: number;
  value: number;
  observed_at: string;
}
interface ApiPeriod {
  period: string;
  first_release: ApiRelease;
  revisions: Array<ApiRelease & { change: number; change_percent: number | null; note: string | null }>;
  latest: ApiRelease;
  revision_count: number;
  total_revision: number;
  total_revision_percent: number | null;
  total_revision_note: string | null;
}

/** Every page of one request, following next_cursor. */
async function readAll(db: SnapshotDb, search: URLSearchParams) {
  const data: unknown[] = [];
  const metas: Array<Record<string, unknown>> = [];
  for (let page = 0; page < 100; page++) {
    const payload = await getObservationRevisions(
      { db, now: MODEL_NOW, keyed: true },
      parseRequest(route, null, search),
    );
    data.push(...(payload.data as unknown[]));
    const meta = payload.meta as Record<string, unknown>;
    metas.push(meta);
    if (typeof meta.next_cursor !== 'string') return { data, metas };
    search = new URLSearchParams(search);
    search.set('cursor', meta.next_cursor);
  }
  throw new Error('paging did not end');
}

const close = (actual: number | null, expected: number | null, what: string) => {
  if (expected === null) expect(actual, what).toBeNull();
  else expect(actual, what).toBeCloseTo(expected, 9);
};

describe('revisions at as_of against a model of the revisions known then', () => {
  const scratch = useScratchDuckDb('mmds-revisions-');
  let runs = 0;

  it('the list and the triangle, over every page, equal the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary,
        fc.array(instantPickArbitrary, { minLength: 1, maxLength: 3 }),
        pageSizeArbitrary,
        async (chains, picks, limit) => {
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
              const what = `as_of=${asOf} limit=${limit} over ${JSON.stringify(chains.map((c) => [c.period, c.revisions]))}`;
              const base = { series: KEY, as_of: asOf, limit: String(limit) };

              const list = await readAll(db, new URLSearchParams(base));
              const expected = listModel(chains, asOf);
              const rows = list.data as ApiPeriod[];
              expect(
                rows.map((r) => r.period),
                what,
              ).toEqual(expected.map((p) => p.period));
              for (const [i, row] of rows.entries()) {
                const want = expected[i]!;
                expect(row.first_release, what).toMatchObject(want.first);
                expect(row.latest, what).toMatchObject(want.latest);
                expect(row.revision_count, what).toBe(want.later.length);
                expect(row.total_revision, what).toBe(want.total);
                close(row.total_revision_percent, want.totalPercent, `${what} ${row.period} total %`);
                expect(row.total_revision_note, what).toBe(
                  want.totalPercent === null ? 'previous_zero' : null,
                );
                expect(row.revisions.length, what).toBe(want.later.length);
                for (const [j, revision] of row.revisions.entries()) {
                  const w = want.later[j]!;
                  expect(revision, what).toMatchObject({
                    revision_number: w.revision_number,
                    value: w.value,
                    observed_at: w.observed_at,
                    change: w.change,
                  });
                  close(revision.change_percent, w.percent, `${what} ${row.period} r${j + 2} %`);
                  expect(revision.note, what).toBe(w.percent === null ? 'previous_zero' : null);
                  expect(revision.observed_at <= asOf, what).toBe(true);
                }
              }
              expect(list.metas.every((m) => m.shape === 'list')).toBe(true);

              const triangle = await readAll(db, new URLSearchParams({ ...base, shape: 'triangle' }));
              const model = triangleModel(chains, asOf);
              expect(triangle.data, what).toEqual(model.rows);
              // The columns are the same on every page: the vintages of the whole range.
              for (const meta of triangle.metas) {
                expect(meta.shape).toBe('triangle');
                expect(meta.vintages, what).toEqual(model.vintages);
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

import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { csvQuery, matchRoute, ROUTES } from '../../../src/contract/routes.ts';
import { writeSnapshotEvents } from '../../../src/events/snapshot-events.ts';
import { revisionCacheUsage } from '../../../src/query/revision-cache.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { renderRepresentation } from '../../../src/server/represent-route.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { publishSnapshot } from '../../../src/store/publish.ts';
import {
  appendChains,
  chainOf,
  chainShapeArbitrary,
  instantPickArbitrary,
  MODEL_NOW,
  modelSeries,
  PERIODS,
  pageSizeArbitrary,
  resolveInstant,
} from '../../helpers/as-of-reference.ts';
import { renderTheOldWay } from '../../helpers/old-renderer.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { useScratchDuckDb } from '../../helpers/scratch-duckdb.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * Differential test of issue 33: a page is built from row bytes serialised once per snapshot,
 * not from objects serialised per request, and every body must stay byte for byte what it was.
 * Every route of the route table is rendered with and without a key (and with cot:history), as
 * JSON and CSV, by the old renderer (test/helpers/old-renderer.ts, over DuckDB alone) and by the
 * server's renderer (over the revision cache, cold then warm, and without it), on the sample and
 * on random stores of the as_of reference model; bodies, media types and Link headers are
 * compared, and a refused request must be refused alike.
 */

const VIEWS = [
  { keyed: false, cotHistory: false },
  { keyed: true, cotHistory: false },
  { keyed: true, cotHistory: true },
] as const;

/** What one renderer made of a request: its answer, or the error it refused it with. */
type Outcome = { body: string; contentType: string; link: string | null } | { error: string };

async function outcomeOf(render: () => Promise<{ body: Buffer; contentType: string; link?: string | null }>) {
  try {
    const { body, contentType, link } = await render();
    return { body: body.toString('latin1'), contentType, link: link ?? null } as Outcome;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: `${error.code} ${error.message}` } as Outcome;
  }
}

/** Renders a request target both ways on each database and compares; returns the route id and whether it answered. */
async function compareTarget(
  target: string,
  reference: SnapshotDb,
  served: readonly SnapshotDb[],
  now: Date,
): Promise<{ routeId: string; answered: boolean }> {
  const url = new URL(`http://host${target}`);
  const matched = matchRoute(url.pathname);
  if (!matched) throw new Error(`no route for ${target}`);
  let answered = false;
  // A key matters to a public route only through cot:history; a keyed route is never asked without one.
  const access = matched.route.access.kind;
  const views = VIEWS.filter((view) =>
    access === 'public-or-scope' ? true : access === 'public' ? view.keyed === view.cotHistory : view.keyed,
  );
  for (const view of views) {
    const parse = () =>
      parseRequest(matched.route, matched.slug, matched.csv ? csvQuery(url.searchParams) : url.searchParams);
    const old = await outcomeOf(async () =>
      renderTheOldWay(matched.route, parse(), url, reference, view, now),
    );
    for (const db of served) {
      // Twice where the revision cache is on: the first loads the series, the second reads it there.
      for (const round of db.revisionCacheBytes > 0 ? ['cold', 'warm'] : ['plain']) {
        const fresh = await outcomeOf(() =>
          renderRepresentation(matched.route, parse(), url, db, view, now, null),
        );
        expect(fresh, `${target} ${JSON.stringify(view)} ${round}`).toEqual(old);
      }
    }
    if ('body' in old) answered = true;
  }
  return { routeId: matched.route.id, answered };
}

/** The requests of every route the sample can answer, public and keyed, JSON and CSV. */
function sampleTargets(macro: string, history: string, snapshot: string): string[] {
  const observations = [
    'series=ecb.USD',
    'series=ecb.USD&as_of=2026-03-01T00:00:00Z',
    'series=ecb.USD&as_of=2026-03-01',
    'series=ecb.USD&limit=5',
    'series=ecb.USD&from=2025-06&to=2025-07&limit=7',
    'series=ecb.USD&from=1900&to=1900',
    'series=bls.CES0000000001&as_of=2026-01-01T00:00:00Z',
    'series=bls.CES0000000001&limit=3',
    'series=bls.CES0000000001&units=pch',
    'series=bls.CES0000000001&sort_order=desc&limit=4',
    'series=bls.CES0000000001&realtime_start=2025-01-01&realtime_end=2026-01-01',
    'series=testvendor.PAYEMS&limit=4',
    'series=no.such.series',
  ];
  return [
    '/api/v1/status',
    '/api/v1/markets/cot',
    '/api/v1/markets/cot/gold',
    '/api/v1/markets/cot/gold?limit=3',
    '/api/v1/markets/cot/gold?from=2025-01-01&format=csv',
    '/api/v1/markets/cot/gold.csv?limit=2',
    '/api/v1/markets/cot/088691?limit=2',
    '/api/v1/markets/cot/reports',
    '/api/v1/markets/cot/reports?report_type=legacy',
    '/api/v1/macro',
    `/api/v1/macro/${macro}`,
    `/api/v1/macro/${macro}?as_of=2026-01-01T00:00:00Z&limit=5`,
    `/api/v1/macro/${macro}.csv?limit=5`,
    `/api/v1/macro/${macro}?format=csv&from=1900&to=1900`,
    `/api/v1/macro/${macro}?units=pch&limit=4`,
    `/api/v1/macro/${macro}/revisions`,
    `/api/v1/macro/${macro}/revisions?shape=triangle`,
    `/api/v1/macro/${macro}/revisions.csv`,
    '/api/v1/research',
    '/api/v1/sources',
    '/api/v1/series',
    `/api/v1/series/${history}`,
    `/api/v1/series/${history}.csv`,
    `/api/v1/series/${history}?sort_order=desc&limit=3`,
    `/api/v1/series/${history}/vintagedates`,
    '/api/v1/series/search?search_text=employment',
    `/api/v1/macro/${macro}?sort_order=desc&limit=3`,
    `/api/v1/macro/${macro}?output_type=4`,
    '/api/v1/sectors',
    '/api/v1/fx/ecb',
    '/api/v1/fx/ecb?currency=USD',
    '/api/v1/fx/ecb/latest',
    '/api/v1/fx/ecb/2026-03-02..2026-03-13',
    '/api/v1/fx/ecb?from=2026-03-07&to=2026-03-20&base=USD&symbols=GBP,JPY&amount=10',
    '/api/v1/reference/countries',
    '/api/v1/reference/currencies',
    '/api/v1/reference/venues',
    '/api/v1/releases',
    '/api/v1/releases.ics',
    ...observations.map((query) => `/api/v1/observations?${query}`),
    ...observations.map((query) => `/api/v1/observations.csv?${query}`),
    '/api/v1/observations/revisions?series=ecb.USD',
    '/api/v1/observations/revisions.csv?series=ecb.USD',
    '/api/v1/observations/aligned?series=ecb.USD,ecb.GBP&frequency=m',
    '/api/v1/observations/aligned.csv?series=ecb.USD,ecb.GBP&frequency=m',
    `/api/v1/changes?since=${snapshot}`,
    '/api/v1/events',
    '/api/v1/bulk/full',
    '/api/v1/bulk',
    `/api/v1/bulk/${snapshot}`,
  ];
}

/** A request target of a pre-rendered public request (the build's list). */
function staticTarget(path: string, query: Record<string, string | undefined>): string {
  const search = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return search.size ? `${path}?${search}` : path;
}

describe('every body byte for byte as the old renderer made it', () => {
  describe('on the sample', () => {
    let fixture: SnapshotFixture;
    let plain: SnapshotDb;
    let cached: SnapshotDb;

    beforeAll(async () => {
      fixture = await createSampleSnapshot({ licensed: true });
      const layout = resolveLayout(fixture.dataDir);
      plain = await openSnapshotDb(layout, fixture.snapshotId, { revisionCacheBytes: 0 });
      cached = await openSnapshotDb(layout, fixture.snapshotId);
    }, 300_000);

    afterAll(async () => {
      await plain?.close();
      await cached?.close();
      fixture?.remove();
    });

    it('renders every route of the table alike, keyed and not, JSON and CSV', async () => {
      const requests = await listStaticRequests(plain);
      const history = requests.find((r) => r.route.id === 'series-history')!.slug!;
      const macroBody = await renderTheOldWay(
        ROUTES.find((r) => r.id === 'macro-latest')!,
        { slug: null, query: {}, keyedParams: [] },
        new URL('http://host/api/v1/macro'),
        plain,
        VIEWS[0],
        FIXTURE_NOW,
      );
      const macro = (JSON.parse(macroBody.body.toString()) as { data: Array<{ slug: string }> }).data[0]!
        .slug;
      const targets = [
        ...sampleTargets(macro, history, fixture.snapshotId),
        ...fewOfEachKind(requests).map((r) =>
          staticTarget(r.route.path.replace(':slug', r.slug ?? ''), r.query),
        ),
      ];
      const answered = new Set<string>();
      for (const target of targets) {
        const { routeId, answered: ok } = await compareTarget(target, plain, [cached, plain], FIXTURE_NOW);
        if (ok) answered.add(routeId);
      }
      // The series pages of the cached database were put together from its blocks' bytes.
      expect(revisionCacheUsage(cached).entries).toBeGreaterThan(3);
      // Every route of the table answered at least one request with a body, but the bulk listings:
      // written by mmds build from its files, a payload function refuses them (404) both ways.
      const built = ['bulk', 'bulk-snapshot'];
      expect([...answered].sort()).toEqual(
        ROUTES.map((route) => route.id)
          .filter((id) => !built.includes(id))
          .sort(),
      );
    }, 300_000);
  });

  describe('on random stores of the as_of model', () => {
    const scratch = useScratchDuckDb('mmds-representation-bytes-');
    const NUM_RUNS = Math.max(8, Math.floor(Number(process.env.MMDS_PROPERTY_RUNS ?? 100) / 8));
    const KEYS = ['t.A', 't.B', 't.C'] as const;
    const NOW = new Date(MODEL_NOW.getTime() + 86_400_000);
    let runs = 0;

    const logArbitrary = fc
      .subarray(
        KEYS.flatMap((key) => PERIODS.map((period) => [key, period] as const)),
        { minLength: 0, maxLength: 7 },
      )
      .chain((keys) =>
        fc.tuple(
          ...keys.map(([key, period]) =>
            chainShapeArbitrary.map((shape) => {
              const chain = chainOf(key, period, shape);
              // Fractions: how a double is written is part of the bytes compared.
              return {
                ...chain,
                revisions: chain.revisions.map((r) => ({ ...r, value: r.value / 3 - 0.1 })),
              };
            }),
          ),
        ),
      );
    const queryArbitrary = fc.record({
      asOf: fc.option(instantPickArbitrary, { nil: null }),
      from: fc.option(fc.constantFrom('2024', '2024-12', '2024-Q4', '2025-01-31'), { nil: null }),
      to: fc.option(fc.constantFrom('2024-11', '2025', '2024-12-15'), { nil: null }),
      limit: pageSizeArbitrary,
      csv: fc.boolean(),
    });

    it('renders every route alike on each store, following every page', async () => {
      await fc.assert(
        fc.asyncProperty(
          logArbitrary,
          fc.array(queryArbitrary, { minLength: 2, maxLength: 5 }),
          async (chains, queries) => {
            runs += 1;
            const layout = resolveLayout(join(scratch.dir, `run-${runs}`));
            // t.A is a macro series: endpoint 5 reads it by its slug.
            const series = KEYS.map((key) => ({ ...modelSeries(key), macro: key === 't.A' }));
            await appendChains(layout, scratch.connection, series, chains);
            const published = await publishSnapshot(layout, scratch.connection, {
              now: new Date(MODEL_NOW.getTime() + 2000),
              pipelineVersion: 'test',
              keep: 0,
              snapshotEvents: writeSnapshotEvents,
            });
            const open = (revisionCacheBytes?: number) =>
              openSnapshotDb(layout, published.snapshot_id, { poolSize: 1, threads: 1, revisionCacheBytes });
            const plain = await open(0);
            const cached = await open();
            try {
              const boundaries = chains.flatMap((c) => c.revisions.map((r) => Date.parse(r.observed_at)));
              const targets = [
                ...ROUTES.filter((route) => !route.path.includes(':slug')).map((route) => route.path),
                '/api/v1/macro/t-a',
                '/api/v1/macro/t-a/revisions.csv',
                '/api/v1/series/t-a',
                '/api/v1/series/t-b.csv',
                '/api/v1/observations/revisions?series=t.A',
                '/api/v1/observations/aligned?series=t.A,t.B',
              ];
              for (const query of queries) {
                const search = new URLSearchParams({ limit: String(query.limit) });
                if (query.asOf) search.set('as_of', resolveInstant(query.asOf, boundaries));
                if (query.from) search.set('from', query.from);
                if (query.to && (!query.from || query.from <= query.to)) search.set('to', query.to);
                if (query.csv) search.set('format', 'csv');
                for (const key of [...KEYS, 't.none'])
                  targets.push(`/api/v1/observations?series=${key}&${search}`);
                targets.push(`/api/v1/macro/t-a?${search}`);
              }
              for (const target of targets) {
                await compareTarget(target, plain, [cached], NOW);
                // The next pages, as a client follows the Link header.
                let link = await nextLinkOf(target, plain, NOW);
                for (let page = 0; link && page < 20; page++) {
                  const next = /^<([^>]+)>/.exec(link)![1]!;
                  await compareTarget(next, plain, [cached], NOW);
                  link = await nextLinkOf(next, plain, NOW);
                }
              }
            } finally {
              await plain.close();
              await cached.close();
            }
          },
        ),
        { numRuns: NUM_RUNS },
      );
    }, 600_000);
  });
});

/** The next page's target of a keyed request as the old renderer links it, or null (none, or refused). */
async function nextLinkOf(target: string, db: SnapshotDb, now: Date): Promise<string | null> {
  const url = new URL(`http://host${target}`);
  const matched = matchRoute(url.pathname)!;
  try {
    const params = parseRequest(
      matched.route,
      matched.slug,
      matched.csv ? csvQuery(url.searchParams) : url.searchParams,
    );
    return (await renderTheOldWay(matched.route, params, url, db, VIEWS[1], now)).link;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** The build's public requests, one of each route and filter parameter (the lists run to hundreds). */
function fewOfEachKind<T extends { route: { id: string }; query: object }>(requests: readonly T[]): T[] {
  const taken = new Map<string, number>();
  return requests.filter((request) => {
    const kind = `${request.route.id} ${Object.keys(request.query).join(',')}`;
    const count = taken.get(kind) ?? 0;
    taken.set(kind, count + 1);
    return count < 1;
  });
}

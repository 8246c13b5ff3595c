import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObservations } from '../../src/api/v1/observations.ts';
import { provenRelease } from '../../src/calendar/fact-release.ts';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../../src/calendar/load-calendars.ts';
import type { Calendars } from '../../src/calendar/types.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { openDuckDb } from '../../src/db/duckdb.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Property: whatever files are ingested with whatever --collected-at or --observed-at (before a
 * release, at it, long after a later release, in the future, or none), no as_of answer of
 * /observations ever holds a value whose proven release (src/calendar/fact-release.ts) is after
 * as_of, every accepted value is known no earlier than its release, and `mmds verify` finds no
 * error in the result. Ingests run through the real CLI with the shipped calendars.
 */

// Each run is several real ingests and a publish: a tenth of the everyday property budget.
const NUM_RUNS = Math.max(5, Math.round(Number(process.env.MMDS_PROPERTY_RUNS ?? 100) / 10));
const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const NOW = FIXTURE_NOW;
const route = ROUTES.find((r) => r.id === 'observations')!;

/** Months of two BLS series: payroll-survey unemployment (revisable) and CPI-U NSA (never revised). */
const BLS_MONTHS = ['2024-09', '2024-10', '2024-11', '2024-12'] as const;
const BLS_SERIES = ['LNS14000000', 'CUUR0000SA0'] as const;
/** ECB rate dates (Thursday and Friday) and currencies. */
const ECB_DATES = ['2025-03-13', '2025-03-14'] as const;
const SERIES_KEYS = [...BLS_SERIES.map((id) => `bls.${id}`), 'ecb.USD', 'ecb.JPY'];

type Step =
  | { source: 'bls'; values: number[]; time: TimeFlag }
  | { source: 'ecb'; values: number[]; time: TimeFlag };
type TimeFlag = { flag: 'none' } | { flag: '--collected-at' | '--observed-at'; at: number };

let calendars: Calendars;
/** Instants around the releases of the files' values, where off-by-one mistakes would show. */
let releaseInstants: number[];

const secondsAround = (instant: number) => [instant - 1000, instant, instant + 1000, instant + 86_400_000];

const instantArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...releaseInstants)) },
  { weight: 1, arbitrary: fc.integer({ min: Date.UTC(2024, 8, 1), max: NOW.getTime() }) },
  { weight: 1, arbitrary: fc.integer({ min: NOW.getTime() - 600_000, max: NOW.getTime() + 3_600_000 }) },
);

const timeArbitrary: fc.Arbitrary<TimeFlag> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ flag: 'none' as const }) },
  {
    weight: 4,
    arbitrary: instantArbitrary.map((at) => ({ flag: '--collected-at' as const, at: roundToSecond(at) })),
  },
  {
    weight: 1,
    arbitrary: instantArbitrary.map((at) => ({ flag: '--observed-at' as const, at: roundToSecond(at) })),
  },
);

/** Few distinct values, so that repeats, corrections and returns to an old value all happen. */
const valuesArbitrary = (count: number) =>
  fc.array(fc.constantFrom(1.5, 2.5, 3.5), { minLength: count, maxLength: count });

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    source: fc.constant('bls' as const),
    values: valuesArbitrary(BLS_SERIES.length * BLS_MONTHS.length),
    time: timeArbitrary,
  }),
  fc.record({
    source: fc.constant('ecb' as const),
    values: valuesArbitrary(ECB_DATES.length * 2),
    time: timeArbitrary,
  }),
);

function roundToSecond(instant: number): number {
  return Math.floor(instant / 1000) * 1000;
}

function text(instant: number): string {
  return `${new Date(instant).toISOString().slice(0, 19)}Z`;
}

/** Writes the step's file in the publisher's own format and returns its path. */
function writeStepFile(dir: string, index: number, step: Step): string {
  if (step.source === 'bls') {
    const series = BLS_SERIES.map((seriesID, s) => ({
      seriesID,
      data: BLS_MONTHS.map((month, m) => ({
        year: month.slice(0, 4),
        period: `M${month.slice(5)}`,
        value: String(step.values[s * BLS_MONTHS.length + m]),
        footnotes: [{}],
      })),
    }));
    const file = join(dir, `step-${index}.json`);
    writeFileSync(file, JSON.stringify({ status: 'REQUEST_SUCCEEDED', message: [], Results: { series } }));
    return file;
  }
  const rows = ECB_DATES.map((date, d) => `${date},${step.values[d * 2]},${step.values[d * 2 + 1]},`);
  const file = join(dir, `step-${index}.csv`);
  writeFileSync(file, `Date,USD,JPY,\n${rows.join('\n')}\n`);
  return file;
}

describe('no as_of answer holds a value before its proven release', () => {
  const temp = createTempDir('mmds-knowledge-bounds-');
  let runs = 0;

  beforeAll(async () => {
    const duck = await openDuckDb();
    const connection = await duck.connect();
    try {
      calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
    const releases = [
      ...BLS_SERIES.flatMap((id) => BLS_MONTHS.map((month) => provenRelease(`bls.${id}`, month, calendars))),
      ...ECB_DATES.map((date) => provenRelease('ecb.USD', date, calendars)),
    ];
    releaseInstants = releases.flatMap((release) => secondsAround(Date.parse(release!.observed_at)));
  });
  afterAll(() => temp.remove());

  it('for random ingests and knowledge-time flags', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 1, maxLength: 4 }),
        fc.array(instantArbitrary, { minLength: 2, maxLength: 4 }),
        async (steps, asOfInstants) => {
          runs += 1;
          const dir = join(temp.dir, `run-${runs}`);
          const env = { MMDS_DATA_DIR: join(dir, 'data') };
          const mmds = (argv: string[]) => runMmds(argv, env, () => NOW);
          expect((await mmds(['ingest', 'catalog', CATALOG])).code).toBe(0);
          for (const [index, step] of steps.entries()) {
            const file = writeStepFile(temp.dir, runs * 10 + index, step);
            const flags = step.time.flag === 'none' ? [] : [step.time.flag, text(step.time.at)];
            const result = await mmds(['ingest', step.source, file, ...flags]);
            // Accepted, or refused with one line and an error (1) or usage (2) exit: never internal (70).
            expect([0, 1, 2], result.stderr).toContain(result.code);
          }
          const published = await mmds(['publish']);
          expect(published.code, published.stderr).toBe(0);
          const verify = await mmds(['verify']);
          expect(verify.code, verify.stdout + verify.stderr).toBe(0);

          const layout = resolveLayout(env.MMDS_DATA_DIR);
          const db = await openSnapshotDb(layout, readCurrentId(layout)!, { poolSize: 1, threads: 1 });
          try {
            for (const asOf of [null, ...asOfInstants.map((at) => text(Math.min(at, NOW.getTime())))]) {
              for (const series of SERIES_KEYS) {
                const search = new URLSearchParams({ series, limit: '1000' });
                if (asOf !== null) search.set('as_of', asOf);
                const page = await getObservations(
                  { db, now: NOW, keyed: true },
                  parseRequest(route, null, search),
                );
                for (const row of page.data as Array<{ period: string; observed_at: string }>) {
                  const release = provenRelease(series, row.period, calendars);
                  if (release === null) continue;
                  expect(row.observed_at >= release.observed_at, `${series} ${row.period}`).toBe(true);
                  if (asOf !== null) {
                    expect(release.observed_at <= asOf, `${series} ${row.period} as of ${asOf}`).toBe(true);
                  }
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
  }, 600_000);
});

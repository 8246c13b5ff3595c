import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { cachedFixture } from './fixture-cache.ts';
import { LICENSED_FIXTURE, REPO_ROOT, SAMPLE_DATA, SHARED_DATA } from './paths.ts';
import { type CliRun, runMmds } from './run-cli.ts';
import { digestInputs, RUN_INPUTS_VARIABLE } from './sample-inputs.ts';
import { createTempDir } from './temp-dir.ts';

/** A published snapshot in a temporary data directory. */
export interface SnapshotFixture {
  dataDir: string;
  env: Record<string, string>;
  snapshotId: string;
  open(): Promise<SnapshotDb>;
  remove(): void;
}

const shared = (path: string) => join(SHARED_DATA, path);

/** When the BLS API responses of 2015 were collected (data/sample/pipeline.json). */
export const BLS_API_COLLECTED_AT = '2016-02-01T17:33:08Z';
/** When the datahub CPI-U CSV was collected (data/sample/pipeline.json). */
export const CPI_COLLECTED_AT = '2026-07-01T03:43:28Z';

/**
 * The ingests that load every real publisher file of ../shared/data, in dependency order. The
 * FRED vintages are the days of the Employment Situation releases whose figures they hold
 * (2025-08-01, 2026-10-02), as data/sample/pipeline.json gives them.
 */
export const REAL_DATA_STEPS: ReadonlyArray<readonly string[]> = [
  ['catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
  ['m49', shared('iso/unsd_m49_overview_en.csv')],
  ['countries', shared('iso/country-codes.csv')],
  ['tz', shared('tz/zone1970.tab'), shared('tz/zone.tab')],
  // List one (current) and list three (historic) together, as the publisher's lists are fetched.
  [
    'iso4217',
    shared('iso/iso4217_list_one_table_a1.xml'),
    shared('iso/iso4217_list_three_table_a3_historic.xml'),
  ],
  ['mic', shared('mic/ISO10383_MIC.csv')],
  ['ecb', shared('ecb/eurofxref-hist.csv')],
  ['ecb', shared('ecb/eurofxref.csv')],
  ['ecb', shared('ecb/eurofxref-daily.xml')],
  [
    'cftc',
    shared('cftc/legacy_futures_only_2025_annual.txt'),
    shared('cftc/tff_futures_only_2026_FinFutYY.txt'),
    shared('cftc/disaggregated_futures_only_2021_f_year.txt'),
  ],
  // Values no release calendar dates (CPI-U before 2010) take the collection time: the commit times
  // of the repositories that carry the files (data/sample/README.md, as data/sample/pipeline.json).
  [
    'bls',
    shared('bls/bls_api_v2_cps_situation_2015.json'),
    shared('bls/bls_api_v2_sae_north_dakota_mining_2014_2015.json'),
    '--collected-at',
    BLS_API_COLLECTED_AT,
  ],
  ['bls', shared('bls/datahub_cpi-us_cpiai.csv'), '--collected-at', CPI_COLLECTED_AT],
  ['bls', shared('bls/ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json')],
  [
    'fred',
    shared('bls/fred_PAYEMS_vintage_2025-08-02.csv'),
    '--series',
    'bls.CES0000000001',
    '--vintage',
    '2025-08-01',
  ],
  [
    'fred',
    shared('bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv'),
    '--series',
    'bls.CES0000000001',
    '--vintage',
    '2026-10-02',
  ],
  ['research', join(SAMPLE_DATA, 'research')],
];

async function expectOk(run: Promise<CliRun>, what: string): Promise<void> {
  const result = await run;
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}): ${result.stderr}`);
}

/** The key of the test-only licensed series (test/fixtures/licensed/). */
export const LICENSED_SERIES_KEY = 'testvendor.PAYEMS';

/**
 * The ingests that add the test-only licensed vendor: its catalog (merged into the project's) and
 * one real file, the FRED PAYEMS vintage of 2025-08-02, filed under the fictitious licence.
 */
export const LICENSED_FIXTURE_STEPS: ReadonlyArray<readonly string[]> = [
  ['catalog', join(LICENSED_FIXTURE, 'catalog.yaml')],
  [
    'fred',
    join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv'),
    '--series',
    LICENSED_SERIES_KEY,
    '--vintage',
    '2025-08-01',
  ],
];

/** Options of `createSampleSnapshot`. */
export interface SampleSnapshotOptions {
  /** Also ingest the test-only licensed vendor (LICENSED_FIXTURE_STEPS) before publishing. */
  licensed?: boolean;
}

/**
 * The sample pipeline (data/sample/pipeline.json), optionally the licensed fixture, published: a
 * data directory of the test's own, copied from the one made once per state of the repository's
 * inputs (the sample files among them) and the options.
 */
export async function createSampleSnapshot(options: SampleSnapshotOptions = {}): Promise<SnapshotFixture> {
  return copyCachedSnapshot('sample-snapshot', JSON.stringify({ licensed: options.licensed === true }), () =>
    createFixture(async (env) => {
      await expectOk(runMmds(['ingest-plan', join(SAMPLE_DATA, 'pipeline.json')], env), 'sample ingest');
      if (!options.licensed) return;
      for (const [source, ...rest] of LICENSED_FIXTURE_STEPS) {
        await expectOk(runMmds(['ingest', source!, ...rest], env), `ingest ${source} (licensed fixture)`);
      }
    }),
  );
}

/**
 * Every real file of ../shared/data (or the `steps` given, some of REAL_DATA_STEPS) ingested and
 * published: a data directory of the test's own, a copy of the one made once per state of its
 * inputs (fixture-cache.ts) — the code and files the shared sample build is keyed on, the steps and
 * every publisher file they name — so the test files that read it do not each spend minutes
 * ingesting the same files again.
 */
export async function createRealSnapshot(
  steps: ReadonlyArray<readonly string[]> = REAL_DATA_STEPS,
): Promise<SnapshotFixture> {
  return copyCachedSnapshot('real-snapshot', digestSteps(steps), () =>
    createFixture(async (env) => {
      for (const [source, ...rest] of steps) {
        await expectOk(runMmds(['ingest', source!, ...rest], env), `ingest ${source}`);
      }
    }),
  );
}

/**
 * A copy of the data directory `make` publishes, made once per state of the repository's inputs
 * (sample-inputs.ts), Node and `variant` (fixture-cache.ts), under node_modules/.cache/mmds-test/<kind>/.
 */
async function copyCachedSnapshot(
  kind: string,
  variant: string,
  make: () => Promise<SnapshotFixture>,
): Promise<SnapshotFixture> {
  const inputsAtLoad = process.env[RUN_INPUTS_VARIABLE] ?? digestInputs();
  const key = createHash('sha256')
    .update(`${process.version}\0${inputsAtLoad}\0${variant}`)
    .digest('hex')
    .slice(0, 20);
  const entry = await cachedFixture({
    cache: join(REPO_ROOT, 'node_modules', '.cache', 'mmds-test', kind),
    key,
    inputsAtLoad,
    make: async (dir) => {
      const fixture = await make();
      try {
        cpSync(fixture.dataDir, join(dir, 'data'), { recursive: true });
        return { snapshotId: fixture.snapshotId };
      } finally {
        fixture.remove();
      }
    },
  });
  const temp = createTempDir('mmds-fixture-');
  const dataDir = join(temp.dir, 'data');
  cpSync(join(entry.dir, 'data'), dataDir, { recursive: true });
  const { snapshotId } = entry.meta;
  const layout = resolveLayout(dataDir);
  return {
    dataDir,
    env: { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') },
    snapshotId,
    open: () => openSnapshotDb(layout, snapshotId),
    remove: temp.remove,
  };
}

/** A digest of ingest steps and of every file they name (../shared/data is not among the inputs). */
function digestSteps(steps: ReadonlyArray<readonly string[]>): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  const list = (path: string) => {
    if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) list(join(path, name));
    else files.push(path);
  };
  for (const step of steps) {
    const named = step.map((arg) => (isAbsolute(arg) && existsSync(arg) ? relative(REPO_ROOT, arg) : arg));
    hash.update(`${JSON.stringify(named)}\0`);
    for (const arg of step) if (isAbsolute(arg) && existsSync(arg)) list(arg);
  }
  for (const file of files)
    hash
      .update(`${relative(REPO_ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

async function createFixture(
  ingest: (env: Record<string, string>) => Promise<void>,
): Promise<SnapshotFixture> {
  const temp = createTempDir('mmds-fixture-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist') };
  try {
    await ingest(env);
    await expectOk(runMmds(['publish'], env), 'publish');
  } catch (error) {
    temp.remove();
    throw error;
  }
  const layout = resolveLayout(dataDir);
  const snapshotId = readCurrentId(layout)!;
  return {
    dataDir,
    env,
    snapshotId,
    open: () => openSnapshotDb(layout, snapshotId),
    remove: temp.remove,
  };
}

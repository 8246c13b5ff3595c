import { createHash } from 'node:crypto';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { cachedFixture } from './fixture-cache.ts';
import { REPO_ROOT } from './paths.ts';
import { runMmds } from './run-cli.ts';
import { digestInputs, RUN_INPUTS_VARIABLE } from './sample-inputs.ts';
import {
  createSampleSnapshot,
  type SampleSnapshotOptions,
  type SnapshotFixture,
} from './snapshot-fixture.ts';
import { createTempDir } from './temp-dir.ts';

/**
 * One `mmds build` of the sample snapshot (createSampleSnapshot), shared by the test files whose
 * subject is not the build itself: built once per state of everything the output depends on, under
 * a lock across the test processes (fixture-cache.ts), into node_modules/.cache/mmds-test/<key>/
 * (data/ and dist/).
 * A test gets its own copy of the data directory (the server and the key commands write to it; the
 * snapshot id stays the same, so the shared dist/ matches) and MMDS_DIST_DIR pointing at the shared
 * dist/, which it must only read: a test that builds or updates gets a copy (`copyDist`).
 */
export { listSharedSampleInputs } from './sample-inputs.ts';

export interface SharedSampleBuild {
  /** The shared, read-only data directory and dist/ of the build. */
  dataDir: string;
  distDir: string;
  snapshotId: string;
}

/** A writable copy of the shared data directory with the shared dist/, as a SnapshotFixture. */
export interface SharedSampleFixture extends SnapshotFixture {
  distDir: string;
}

const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'mmds-test');
/**
 * The inputs as this run loaded them: taken by vitest.config.ts when the run starts (vitest's main
 * process transforms src/ once and hands the same modules to every worker, so an edit during the
 * run never reaches it), else when the test file imports this module; never when a build starts.
 */
const INPUTS_AT_LOAD = process.env[RUN_INPUTS_VARIABLE] ?? digestInputs();

function keyOf(inputs: string, options: SampleSnapshotOptions): string {
  return createHash('sha256')
    .update(`${process.version}\0${JSON.stringify({ licensed: options.licensed === true })}\0${inputs}`)
    .digest('hex')
    .slice(0, 20);
}

/** The key of the shared build: the inputs as loaded, the Node version and the options. */
export function sharedSampleKey(options: SampleSnapshotOptions = {}): string {
  return keyOf(INPUTS_AT_LOAD, options);
}

/** The shared build of the sample snapshot (`licensed`: with the test-only licensed vendor). */
export async function sharedSampleBuild(options: SampleSnapshotOptions = {}): Promise<SharedSampleBuild> {
  const entry = await cachedFixture({
    cache: CACHE,
    key: sharedSampleKey(options),
    inputsAtLoad: INPUTS_AT_LOAD,
    // Built in place: dist/nginx.conf names its own directory.
    make: async (dir) => {
      const fixture = await createSampleSnapshot(options);
      try {
        const run = await runMmds(['build', '--out', join(dir, 'dist')], fixture.env);
        if (run.code !== 0) throw new Error(`shared sample build failed (${run.code}): ${run.stderr}`);
        cpSync(fixture.dataDir, join(dir, 'data'), { recursive: true });
        return { snapshotId: fixture.snapshotId };
      } finally {
        fixture.remove();
      }
    },
  });
  return {
    dataDir: join(entry.dir, 'data'),
    distDir: join(entry.dir, 'dist'),
    snapshotId: entry.meta.snapshotId,
  };
}

/**
 * The shared build with a data directory of the test's own (a copy), and MMDS_DIST_DIR at the
 * shared dist/. Pass `copyDist` when the test runs `mmds build`/`update` or otherwise writes dist/.
 */
export async function useSharedSample(
  options: SampleSnapshotOptions & { copyDist?: boolean } = {},
): Promise<SharedSampleFixture> {
  const shared = await sharedSampleBuild(options);
  const temp = createTempDir('mmds-shared-sample-');
  const dataDir = join(temp.dir, 'data');
  cpSync(shared.dataDir, dataDir, { recursive: true });
  let distDir = shared.distDir;
  if (options.copyDist) {
    distDir = join(temp.dir, 'dist');
    cpSync(shared.distDir, distDir, { recursive: true, preserveTimestamps: true });
  }
  const layout = resolveLayout(dataDir);
  return {
    dataDir,
    distDir,
    env: { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: distDir },
    snapshotId: shared.snapshotId,
    open: () => openSnapshotDb(layout, shared.snapshotId),
    remove: temp.remove,
  };
}

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.ts';
import {
  listTestSources,
  listTestsNeeding,
  needs,
  PREREQUISITES,
  type Prerequisite,
} from '../helpers/test-prerequisites.ts';

/**
 * The test files that need ../shared/data, redis-server, radosgw, chromium or python3-pandas are left out of a run when it
 * is absent (vitest.config.ts), found by the helpers they call (test/helpers/test-prerequisites.ts);
 * those that need nginx stay in and skip that test.
 */

const source = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
/** The guard itself names the readers without using them. */
const GUARD = new Set(['test/helpers/test-prerequisites.ts', 'test/unit/test-prerequisites.test.ts']);
const byName = (name: Prerequisite['name']) => PREREQUISITES.find((p) => p.name === name)!;

/** Runs vitest (list or run) with the environment changed as given. */
function vitest(args: string[], env: Record<string, string | undefined>) {
  const merged: Record<string, string | undefined> = { ...process.env };
  delete merged.MMDS_SHARED_DATA;
  delete merged.MMDS_TEST_WITHOUT;
  Object.assign(merged, env);
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), ...args], {
    cwd: REPO_ROOT,
    env: merged as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, output: run.stdout + run.stderr };
}

function listRunFiles(env: Record<string, string | undefined>): string[] {
  const run = vitest(['list', '--filesOnly'], env);
  expect(run.status, run.output).toBe(0);
  return run.stdout.split('\n').filter((line) => line.endsWith('.test.ts'));
}

describe('tests that need what Node and npm do not bring', () => {
  it('every helper under test/ that uses a reader is itself listed as one', () => {
    for (const prerequisite of PREREQUISITES) {
      const unlisted = listTestSources().filter(
        (file) =>
          !file.endsWith('.test.ts') &&
          !GUARD.has(file) &&
          !(file in prerequisite.readers) &&
          needs(prerequisite, source(file)),
      );
      expect(unlisted, `add these helpers to the readers of ${prerequisite.name}`).toEqual([]);
    }
  });

  it('every listed reader is exported by (or used in) the module it is listed under', () => {
    for (const prerequisite of PREREQUISITES)
      for (const [file, names] of Object.entries(prerequisite.readers))
        for (const name of names)
          expect(source(file), `${file}: ${name}`).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('finds the files that need each, directly and through the helpers', () => {
    const shared = listTestsNeeding(byName('shared-data'));
    expect(shared).toEqual(
      expect.arrayContaining([
        'test/unit/sample-data.test.ts',
        'test/e2e/pipeline/real-data.test.ts',
        'test/integration/fetch/fred-api.test.ts',
        'test/e2e/pipeline/update.test.ts',
      ]),
    );
    expect(shared).not.toContain('test/e2e/build/static-build-sample.test.ts');
    expect(listTestsNeeding(byName('redis-server'))).toEqual(
      expect.arrayContaining([
        'test/e2e/server/redis-cluster.test.ts',
        'test/reliability/faults-redis.test.ts',
      ]),
    );
    expect(listTestsNeeding(byName('radosgw'))).toEqual([
      'test/integration/fleet-damaged-head-s3.test.ts',
      'test/integration/scale-out-s3.test.ts',
      'test/integration/snapshot-store-s3.test.ts',
      'test/integration/static-to-s3.test.ts',
    ]);
    expect(listTestsNeeding(byName('chromium'))).toContain('test/e2e/site/browser.test.ts');
    expect(listTestsNeeding(byName('python3-pandas'))).toEqual(['test/e2e/python/python-example.test.ts']);
    expect(listTestsNeeding(byName('nginx'))).toEqual([
      'test/e2e/build/endpoint-etags.test.ts',
      'test/e2e/build/series-history-build.test.ts',
      'test/e2e/bulk-full/bulk-full.test.ts',
      'test/e2e/bulk/bulk-cot-window.test.ts',
      'test/e2e/bulk/bulk-public.test.ts',
      'test/e2e/site/site-views.test.ts',
    ]);
    for (const prerequisite of PREREQUISITES)
      expect(listTestsNeeding(prerequisite)).not.toContain('test/unit/test-prerequisites.test.ts');
  });

  it('a run without them leaves exactly those files out and still collects the rest', () => {
    const all = listRunFiles({});
    const without = listRunFiles({
      MMDS_SHARED_DATA: join(REPO_ROOT, 'no-such-shared-data-dir'),
      MMDS_TEST_WITHOUT: 'redis-server,radosgw,chromium,python3-pandas,nginx',
    });
    const leavingFiles = PREREQUISITES.filter((p) => p.leaves !== 'tests');
    const needing = new Set(leavingFiles.flatMap((p) => listTestsNeeding(p)).filter((f) => all.includes(f)));
    expect(needing.size).toBeGreaterThan(0);
    expect(without.length).toBe(all.length - needing.size);
    expect(without.filter((file) => needing.has(file))).toEqual([]);
    // Without nginx only its tests skip: bulk-full.test.ts needs nothing else, so it stays.
    expect(without).toContain('test/e2e/bulk-full/bulk-full.test.ts');
    expect(without).toContain('test/unit/test-prerequisites.test.ts');
  });

  it('a run without them says so in one line each, and runs what it can', () => {
    const missing = join(REPO_ROOT, 'no-such-shared-data-dir');
    const run = vitest(['run', 'test/unit/test-prerequisites.test.ts', '-t', 'every listed reader'], {
      MMDS_SHARED_DATA: missing,
      MMDS_TEST_WITHOUT: 'redis-server,radosgw,chromium,python3-pandas,nginx',
    });
    expect(run.status, run.output).toBe(0);
    const count = (name: Prerequisite['name']) => listTestsNeeding(byName(name)).length;
    const lines = run.output.split('\n').filter((line) => / (are|is) skipped$/.test(line));
    // One file is "1 test file … is skipped" (the Python example has one).
    const files = (name: Prerequisite['name'], one: string, many: string) =>
      count(name) === 1 ? `1 ${one} is skipped` : `${count(name)} ${many} are skipped`;
    expect(lines).toEqual([
      `${missing} not found: ${files('shared-data', "test file that reads the publishers' files", "test files that read the publishers' files")}`,
      `redis-server not installed (apt-get install redis-server, or run .ci/run): ${files('redis-server', 'test file that starts Redis', 'test files that start Redis')}`,
      `radosgw not installed (apt-get install radosgw ceph-mon ceph-osd, or run .ci/run): ${files('radosgw', 'test file that starts an S3 server', 'test files that start an S3 server')}`,
      `/usr/bin/chromium not found (apt-get install chromium, or run .ci/run): ${files('chromium', 'browser test file', 'browser test files')}`,
      `/usr/bin/python3 cannot import pandas (apt-get install python3-pandas, or run .ci/run): ${files('python3-pandas', 'test file that runs the Python example', 'test files that run the Python example')}`,
      `/usr/sbin/nginx not found (apt-get install nginx, or run .ci/run): the nginx.conf tests of ${count('nginx')} test files are skipped`,
    ]);
    expect(byName('python3-pandas').notice(1)).toMatch(
      /: 1 test file that runs the Python example is skipped$/,
    );
    expect(byName('chromium').notice(2)).toMatch(/: 2 browser test files are skipped$/);
    expect(byName('nginx').notice(1)).toMatch(/: the nginx.conf test of 1 test file is skipped$/);
  });
});

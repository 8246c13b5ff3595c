import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL_SOURCES, baseUrlSetting } from '../../../src/config/load-config.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { closedPort } from '../cli/spawn-mmds.ts';
import { hashTree } from './store-files.ts';

const NOW = new Date('2026-10-05T10:00:00Z');

/** Issue 36's bound on an update with every publisher unreachable. */
const OFFLINE_BOUND_MS = 30_000;

/**
 * `mmds update` with no publisher reachable: a third of the sources point at a port nobody
 * listens on (a refused connection), a third at a host name of the .invalid TLD (which never
 * resolves, as every name does on a machine without network), a third at a port fetch() blocks
 * (10080). Each fails the same way every time, however loaded the machine. Back-off is a minute
 * per retry: a single retry would show as a "retrying" line and blow the 30 s bound.
 */
describe('mmds update offline: every source fails at once, one line each', () => {
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;

  beforeAll(async () => {
    temp = createTempDir('update-offline-');
    const port = await closedPort();
    const roots = Object.fromEntries(
      BASE_URL_SOURCES.map((source, i) => [
        baseUrlSetting(source),
        [
          `http://127.0.0.1:${port}/${source}/`,
          `http://${source}.mmds-offline.invalid/`,
          `http://127.0.0.1:10080/${source}/`,
        ][i % 3]!,
      ]),
    );
    env = {
      ...roots,
      MMDS_DATA_DIR: join(temp.dir, 'data'),
      MMDS_DIST_DIR: join(temp.dir, 'dist'),
      MMDS_FRED_API_KEY: 'offline-test-key',
      MMDS_FETCH_RETRIES: '4',
      MMDS_FETCH_BACKOFF_MS: '60000',
    };
    const catalog = await runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], env);
    expect(catalog.code, catalog.stderr).toBe(0);
    // Published, so that the update has nothing of an earlier run to publish either.
    const publish = await runMmds(['publish'], env);
    expect(publish.code, publish.stderr).toBe(0);
  });
  afterAll(() => temp.remove());

  it(
    'fails each source without a retry within 30 s, naming its mirror setting, and leaves the store as it was',
    async () => {
      const before = hashTree(env.MMDS_DATA_DIR!, (path) => !path.endsWith('update-state.json'));
      const started = performance.now();
      const run = await runMmds(['update', '--force', '--no-build'], env, () => NOW);
      expect(performance.now() - started).toBeLessThan(OFFLINE_BOUND_MS);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toMatch(/retrying/);
      // One warning line per source: "warning: ecb: failed: <url>: <what>, not retried; <hint>".
      const failures = run.stderr
        .split('\n')
        .map((line) => /^warning: ([a-z0-9]+): failed: (.*)$/.exec(line))
        .filter((match) => match !== null);
      const sources = ['iso4217', 'm49', 'mic', 'tz', 'countries', 'ecb', 'cftc', 'bls', 'fred'];
      expect(failures.map((match) => match[1]).sort()).toEqual([...sources].sort());
      for (const [, source, message] of failures) {
        expect(message, source).toMatch(
          /\((ECONNREFUSED|ENOTFOUND|EAI_AGAIN|BAD_PORT), [^)]+\), not retried/,
        );
        expect(message, source).toContain(`point ${baseUrlSetting(source!)} at a reachable mirror`);
        expect(message).not.toContain('--base-url');
      }
      expect(run.stdout).toMatch(/^update: fetched 0 of 9 due sources in \d+\.\d s, 9 failed$/m);
      expect(run.stderr).toMatch(
        /^mmds: update: failed: [a-z0-9, ]+ \(9 of 9 sources in \d+\.\d s; see the lines above\)$/m,
      );
      expect(hashTree(env.MMDS_DATA_DIR!, (path) => !path.endsWith('update-state.json'))).toEqual(before);
    },
    2 * OFFLINE_BOUND_MS,
  );

  it(
    "--json reports each source as failed with its error and time, and the fetches' total",
    async () => {
      const run = await runMmds(['update', '--force', '--no-build', '--json'], env, () => NOW);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as {
        status: string;
        fetch_seconds: number;
        failed: string[];
        sources: Array<{ source: string; due: boolean; result: string; error?: string; seconds?: number }>;
      };
      expect(report.status).toBe('failed');
      expect(report.fetch_seconds).toBeLessThan(OFFLINE_BOUND_MS / 1000);
      expect(report.failed).toHaveLength(9);
      for (const entry of report.sources) {
        if (!entry.due) continue;
        expect(entry.result, entry.source).toBe('failed');
        expect(entry.error, entry.source).toMatch(/not retried/);
        expect(entry.seconds, entry.source).toBeGreaterThanOrEqual(0);
      }
      expect(
        report.sources
          .filter((entry) => entry.result === 'failed')
          .map((e) => e.source)
          .sort(),
      ).toEqual([...report.failed].sort());
    },
    2 * OFFLINE_BOUND_MS,
  );

  it('mmds fetch --base-url names the flag it was given instead', async () => {
    const port = await closedPort();
    const run = await runMmds(['fetch', 'ecb', '--base-url', `http://127.0.0.1:${port}/`], env, () => NOW);
    expect(run.code).toBe(69);
    expect(run.stderr).toContain('not retried; check the network, or point --base-url at a reachable mirror');
  });
});

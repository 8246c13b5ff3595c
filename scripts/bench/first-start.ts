/**
 * Section g of `npm run bench`: a newcomer's first `npm start` (scripts/demo.ts) on a fresh clone,
 * cold and warm. The clone is this repository's committed HEAD (git clone) with this checkout's
 * node_modules copied in without its caches (node_modules/.cache: the build's compressed copies,
 * the tests' shared builds), so that the cold start begins where `npm install` on a new machine
 * ends. A start counts as serving once the home page and /api/v1/status both answer 200; the warm
 * start is the second `npm start` on the same clone and data directory. The cold start also waits
 * for the demo's full build (it serves the site-only build until then) and reports when it ended.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { REPO_ROOT, type ServerProcess, startServer } from './processes.ts';

/** What section g measured. */
export interface FirstStartResult {
  commit: string;
  /** Seconds from spawning `npm start` to both addresses answering 200. */
  cold_s: number;
  warm_s: number;
  /**
   * Seconds from the spawn until the full build (a child process of the demo) reports every
   * public file static: meanwhile the server answers the public routes from the snapshot.
   */
  cold_full_build_s: number | null;
}

const SERVING = /serving on http:\/\/127\.0\.0\.1:(\d+)/;
const FULL_BUILD = /demo: full build done in [\d.]+ s/;

/** Runs section g in `dir` (an empty directory of its own). */
export async function measureFirstStart(
  dir: string,
  log: (line: string) => void,
  servers: ServerProcess[],
): Promise<FirstStartResult> {
  const clone = join(dir, 'clone');
  mkdirSync(dir, { recursive: true });
  const cloned = spawnSync('git', ['clone', '--quiet', REPO_ROOT, clone], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  const cache = `${sep}node_modules${sep}.cache`;
  cpSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => !source.includes(cache),
  });
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: clone,
    encoding: 'utf8',
  }).stdout.trim();
  const start = async (label: string): Promise<{ serving: number; full: number | null }> => {
    log(`first start: npm start on a fresh clone (${label})…`);
    const started = performance.now();
    const server = await startServer({
      name: `npm start (${label})`,
      command: process.execPath,
      args: [join(clone, 'scripts/demo.ts')],
      cwd: clone,
      env: { PORT: '0', HOST: '127.0.0.1', ASTRO_TELEMETRY_DISABLED: '1' },
      port: (output) => Number(SERVING.exec(output)?.[1] ?? 0) || null,
      timeoutMs: 600_000,
    });
    servers.push(server);
    try {
      await Promise.all(['/', '/api/v1/status'].map((path) => waitFor200(`${server.url}${path}`)));
      const serving = seconds(started);
      const deadline = performance.now() + 600_000;
      while (!FULL_BUILD.test(server.output()) && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200));
      return { serving, full: FULL_BUILD.test(server.output()) ? seconds(started) : null };
    } finally {
      await server.stop();
      servers.splice(servers.indexOf(server), 1);
    }
  };
  const cold = await start('cold');
  const warm = await start('warm');
  return { commit, cold_s: cold.serving, warm_s: warm.serving, cold_full_build_s: cold.full };
}

const seconds = (started: number) => Math.round((performance.now() - started) / 100) / 10;

async function waitFor200(url: string): Promise<void> {
  for (;;) {
    const status = await fetch(url).then(
      (response) => response.arrayBuffer().then(() => response.status),
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

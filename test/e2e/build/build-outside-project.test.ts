import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { astroCacheDir } from '../../../src/build/astro-work-dir.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import type { SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * `mmds build --out DIR` works for any output directory whatever the working directory: Astro 7
 * writes the chunks it renders with beside an output inside the working directory, or into
 * `<cwd>/.astro`, and their bare imports then only resolve inside the project. The build now
 * happens in the project's cache (src/build/astro-work-dir.ts). These runs use the real command in
 * a child process whose working directory is outside the checkout.
 */

interface ChildRun {
  code: number | null;
  stderr: string;
  pid: number;
}

/** Runs `node bin/mmds.js ...args` with `cwd` as the working directory. */
function runBin(args: readonly string[], cwd: string, env: Record<string, string>): Promise<ChildRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolvePromise({ code, stderr: Buffer.concat(err).toString(), pid: child.pid ?? -1 }),
    );
  });
}

/** The working directories this build left in the project's cache (none when it cleaned up). */
function leftoversOf(pid: number): string[] {
  const cache = astroCacheDir(REPO_ROOT);
  return existsSync(cache) ? readdirSync(cache).filter((name) => name.startsWith(`${pid}-`)) : [];
}

describe('mmds build --out a directory outside the project, run from outside the project', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let siteDir: string;
  let inside: ChildRun;
  let elsewhere: ChildRun;
  let server: TestServer;

  beforeAll(async () => {
    // The builds are the subject; the snapshot is a copy of the shared sample's (no fresh ingest).
    fixture = await useSharedSample();
    temp = createTempDir('mmds-build-outside-');
    const env = { MMDS_DATA_DIR: fixture.dataDir };
    // 1. A relative --out: the output is inside the working directory (Astro's first case).
    const workA = join(temp.dir, 'a');
    siteDir = join(workA, 'site');
    mkdirSync(workA);
    inside = await runBin(['build', '--out', 'site'], workA, env);
    // 2. An absolute --out that is not under the working directory (Astro's `<cwd>/.astro` case).
    const workB = join(temp.dir, 'b');
    mkdirSync(workB);
    // Site-only: the same Astro run in the project's cache, without the payload files (the first
    // build already renders those).
    elsewhere = await runBin(['build', '--site-only', '--out', join(temp.dir, 'other', 'site')], workB, env);
    if (inside.code === 0) server = await startTestServer({ dataDir: fixture.dataDir, distDir: siteDir });
  });

  afterAll(async () => {
    await server?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('builds into a directory under the working directory given as a relative --out', () => {
    expect(inside.code, inside.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(siteDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    expect(manifest.snapshot).toBe(fixture.snapshotId);
    // Nothing of Astro's working files is left in the output, its staging directory or the cwd.
    expect(existsSync(join(siteDir, '.prerender'))).toBe(false);
    expect(existsSync(`${siteDir}.staging`)).toBe(false);
    expect(readdirSync(join(temp.dir, 'a'))).toEqual(['site']);
    expect(leftoversOf(inside.pid)).toEqual([]);
  });

  it('builds into a directory outside the working directory, writing nothing in the working directory', () => {
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(existsSync(join(temp.dir, 'other', 'site', BUILD_MANIFEST_FILE))).toBe(true);
    expect(readdirSync(join(temp.dir, 'b'))).toEqual([]);
    expect(leftoversOf(elsewhere.pid)).toEqual([]);
  });

  it('serves a built page and a built JSON file from that directory over HTTP', async () => {
    const manifest = JSON.parse(readFileSync(join(siteDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toBe(readFileSync(join(siteDir, 'index.html'), 'utf8'));

    const fx = manifest.routes.find((r) => r.route_id === 'fx-ecb' && Object.keys(r.query).length === 0)!;
    expect(fx).toBeDefined();
    const json = await fetch(`${server.url}${fx.path}`);
    expect(json.status).toBe(200);
    const built = manifest.files.find((f) => f.file === `/${fx.file}` || f.file === fx.file)!;
    // The ETag of the built file: the answer came from the directory the build wrote.
    expect(json.headers.get('etag')).toBe(built.etag);
    expect(await json.text()).toBe(readFileSync(join(siteDir, fx.file), 'utf8'));
  });
});

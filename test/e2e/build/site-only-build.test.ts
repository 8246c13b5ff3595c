import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const withoutGeneratedAt = (text: string) => text.replace(/"generated_at":"[^"]*"/g, '"generated_at":"-"');
const readManifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;

/**
 * `mmds build --site-only`, what `npm start` serves while its full build runs (scripts/demo.ts):
 * the pages without the payload files, the server answering the public routes from the snapshot
 * with the very bodies the full build writes; a full build then replaces it.
 */
describe('mmds build --site-only', () => {
  let fixture: SharedSampleFixture;
  let temp: ReturnType<typeof createTempDir>;
  let siteDir: string;
  let full: BuildManifest;
  let server: TestServer;

  beforeAll(async () => {
    // The shared full build of the same snapshot is the reference (read only).
    fixture = await useSharedSample();
    full = readManifest(fixture.distDir);
    temp = createTempDir('mmds-site-only-');
    siteDir = join(temp.dir, 'dist');
    const run = await runMmds(['build', '--site-only', '--out', siteDir, '--json'], fixture.env);
    expect(run.code, run.stderr).toBe(0);
    // The server's clock at the build's, so that its renders of time-dependent routes match.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(FIXTURE_NOW);
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: siteDir, anonymousLimit: 100_000 });
  });

  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('writes the pages, assets and bulk files but no payload file', () => {
    const manifest = readManifest(siteDir);
    expect(manifest).toMatchObject({ snapshot: fixture.snapshotId, site_only: true });
    expect(full.site_only).toBeUndefined();
    const payloads = full.routes.filter(
      (r) => r.route_id !== null && r.status === 200 && !r.file.includes('/bulk/'),
    );
    expect(payloads.length).toBeGreaterThan(1000);
    for (const route of payloads) expect(existsSync(join(siteDir, route.file)), route.file).toBe(false);
    const pages = full.files.filter((f) => f.file.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(20);
    const built = new Map(manifest.files.map((f) => [f.file, f.etag]));
    // The same pages, byte for byte (the same ETag).
    for (const page of pages) expect(built.get(page.file), page.file).toBe(page.etag);
  });

  it('answers every public route from the snapshot with the body the full build writes for it', async () => {
    const seen = new Set<string>();
    const mismatches: string[] = [];
    const routes = full.routes.filter((r) => r.route_id !== null && r.status === 200);
    for (const [index, route] of routes.entries()) {
      // Each route once, and every 8th request of the filtered and per-market files.
      if (seen.has(route.route_id!) && index % 8 !== 0) continue;
      seen.add(route.route_id!);
      const search = new URLSearchParams(route.query);
      const url = `${route.path}${search.size ? `?${search}` : ''}`;
      const response = await fetch(`${server.url}${url}`);
      const served = await response.text();
      const expected = readFileSync(join(fixture.distDir, route.file), 'utf8');
      if (response.status !== 200) mismatches.push(`${url}: status ${response.status}`);
      else if (withoutGeneratedAt(served) !== withoutGeneratedAt(expected))
        mismatches.push(`${url}: differs`);
    }
    expect(seen.size).toBeGreaterThan(15);
    expect(mismatches).toEqual([]);
  });

  it('serves the pages at once, and a full build replaces the site-only one (never "unchanged")', async () => {
    const home = await fetch(`${server.url}/`, { headers: { Accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(await home.text()).toBe(readFileSync(join(fixture.distDir, 'index.html'), 'utf8'));
    vi.useRealTimers();
    const again = await runMmds(['build', '--site-only', '--out', siteDir, '--json'], fixture.env);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'unchanged' });
    const run = await runMmds(['build', '--out', siteDir, '--json'], fixture.env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'built' });
    const manifest = readManifest(siteDir);
    expect(manifest.site_only).toBeUndefined();
    expect(manifest.files.map((f) => [f.file, f.etag])).toEqual(full.files.map((f) => [f.file, f.etag]));
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../src/build/build-manifest.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { runMmds } from '../helpers/run-cli.ts';
import {
  listSharedSampleInputs,
  type SharedSampleBuild,
  type SharedSampleFixture,
  sharedSampleBuild,
  sharedSampleKey,
  useSharedSample,
} from '../helpers/shared-sample-build.ts';

/** Every file under a directory with its size and modification time. */
function stamp(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const stats = statSync(full);
      if (stats.isDirectory()) walk(full);
      else out.push(`${full.slice(dir.length)} ${stats.size} ${stats.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

describe('the shared build of the sample snapshot (test/helpers/shared-sample-build.ts)', () => {
  let shared: SharedSampleBuild;
  let fixture: SharedSampleFixture;
  let copied: SharedSampleFixture;
  let before: { data: string[]; dist: string[] };

  beforeAll(async () => {
    shared = await sharedSampleBuild();
    before = { data: stamp(shared.dataDir), dist: stamp(shared.distDir) };
    fixture = await useSharedSample();
    copied = await useSharedSample({ copyDist: true });
  });

  afterAll(() => {
    fixture?.remove();
    copied?.remove();
  });

  it('is keyed on everything the snapshot and its build are made from', () => {
    const inputs = listSharedSampleInputs();
    for (const file of [
      'src/build/run-static-build.ts',
      'src/pages/index.astro',
      'src/calendar/load-calendars.ts',
      'data/sample/pipeline.json',
      'data/catalog/catalog.yaml',
      'test/fixtures/licensed/catalog.yaml',
      'test/helpers/snapshot-fixture.ts',
      'astro.config.mjs',
      'package-lock.json',
    ])
      expect(inputs).toContain(file);
    for (const dir of ['data/calendars/', 'public/'])
      expect(inputs.some((file) => file.startsWith(dir))).toBe(true);
    expect(sharedSampleKey()).toBe(sharedSampleKey());
    expect(sharedSampleKey({ licensed: true })).not.toBe(sharedSampleKey());
  });

  it('is one built dist/ of the snapshot each test copies, ready once built', async () => {
    const manifest = JSON.parse(
      readFileSync(join(shared.distDir, BUILD_MANIFEST_FILE), 'utf8'),
    ) as BuildManifest;
    expect(manifest.snapshot).toBe(shared.snapshotId);
    expect(fixture.snapshotId).toBe(shared.snapshotId);
    expect(readCurrentId(resolveLayout(fixture.dataDir))).toBe(shared.snapshotId);
    expect(fixture.dataDir).not.toBe(shared.dataDir);
    expect(fixture.distDir).toBe(shared.distDir);
    expect(fixture.env).toEqual({ MMDS_DATA_DIR: fixture.dataDir, MMDS_DIST_DIR: shared.distDir });
    // Asked again, it is the same entry (nothing rebuilt).
    expect(await sharedSampleBuild()).toEqual(shared);
    expect(stamp(shared.distDir)).toEqual(before.dist);
  });

  it('leaves the shared entry alone when a test writes to its copies', async () => {
    const issue = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Copy', '--scopes', 'cot:history'],
      fixture.env,
    );
    expect(issue.code, issue.stderr).toBe(0);
    expect(existsSync(join(fixture.dataDir, 'state'))).toBe(true);
    // A test that builds gets a dist/ of its own; the rebuild over the same snapshot is a no-op there.
    expect(copied.distDir).not.toBe(shared.distDir);
    const build = await runMmds(['build'], copied.env);
    expect(build.code, build.stderr).toBe(0);
    expect(stamp(shared.dataDir)).toEqual(before.data);
    expect(stamp(shared.distDir)).toEqual(before.dist);
  });
});

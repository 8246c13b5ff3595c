import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { isBulkFile } from '../../../src/build/bulk-files.ts';
import { digestRenderInputs, planReuse } from '../../../src/build/reuse.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const readManifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;

/** A day after the shared build: the new snapshot and both builds of it. */
const LATER = new Date(FIXTURE_NOW.getTime() + 86_400_000);
const SNAPSHOT_ID = /\d{8}T\d{6}Z-[0-9a-f]{8}/g;

/**
 * What a user of a body sees of it, with what names its snapshot and render time set aside: a
 * taken body keeps those of the build that rendered it (src/build/reuse.ts), the rest must be equal.
 */
function comparable(file: string, body: string, times: readonly string[]): string {
  if (file.endsWith('.json')) {
    const parsed = JSON.parse(body) as { meta?: Record<string, unknown> };
    if (parsed.meta) {
      delete parsed.meta.snapshot;
      delete parsed.meta.generated_at;
    }
    return JSON.stringify(parsed);
  }
  let text = body.replace(SNAPSHOT_ID, '<snapshot>');
  // As the page footers write it too: "built 2026-11-23 12:00 UTC".
  for (const time of times.flatMap((t) => [t, `${t.slice(0, 10)} ${t.slice(11, 16)} UTC`]))
    text = text.split(time).join('<time>');
  return text;
}

/**
 * Issue 23 item 1: a build on top of an earlier one renders again only the files whose data
 * changed. The earlier build is the shared sample build; the change is one source's: the ECB's
 * rates of the second half of December 2024, real rows of the ECB's history file, just before the
 * sample's first day. The reference is a full build of the same snapshot: every file alike.
 */
describe('mmds build on top of an earlier build', () => {
  let fixture: SharedSampleFixture;
  let temp: ReturnType<typeof createTempDir>;
  let earlier: BuildManifest;
  let incremental: BuildManifest;
  let full: BuildManifest;
  let fullDir: string;
  let summary: { reused: number; written: number; full_because: string | null; seconds: number };

  beforeAll(async () => {
    fixture = await useSharedSample({ copyDist: true });
    earlier = readManifest(fixture.distDir);
    temp = createTempDir('mmds-incremental-');
    const lines = readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8').split('\n');
    const december = lines.filter((line) => /^2024-12-(1[6-9]|2\d|3[01]),/.test(line));
    expect(december.length).toBe(10);
    const file = join(temp.dir, 'eurofxref-hist-2024-12-16_to_31.csv');
    writeFileSync(file, `${[lines[0], ...december].join('\n')}\n`);
    const now = () => LATER;
    for (const argv of [['ingest', 'ecb', file], ['publish']]) {
      const run = await runMmds(argv, fixture.env, now);
      expect(run.code, run.stderr).toBe(0);
    }
    const built = await runMmds(['build', '--json'], fixture.env, now);
    expect(built.code, built.stderr).toBe(0);
    summary = JSON.parse(built.stdout);
    incremental = readManifest(fixture.distDir);
    fullDir = join(temp.dir, 'full');
    const reference = await runMmds(['build', '--force', '--out', fullDir, '--json'], fixture.env, now);
    expect(reference.code, reference.stderr).toBe(0);
    full = readManifest(fullDir);
  }, 600_000);

  afterAll(() => {
    temp?.remove();
    fixture?.remove();
  });

  it('renders again the ECB files and what shows the clock, and takes the rest with their ETags', () => {
    expect(summary.full_because).toBeNull();
    expect(incremental.snapshot).not.toBe(earlier.snapshot);
    const taken = incremental.rendered_from ?? {};
    const takenFiles = Object.keys(taken);
    expect(summary.reused).toBe(takenFiles.length);
    // Every COT market's file and page, the reference lists and the catalogue filters without an
    // ECB series are taken; these are most of the sample's files.
    expect(takenFiles.length).toBeGreaterThan(incremental.files.length / 2);
    for (const file of takenFiles)
      expect({ file, from: taken[file] }).toEqual({ file, from: earlier.snapshot });
    const before = new Map(earlier.files.map((f) => [f.file, f.etag]));
    const after = new Map(incremental.files.map((f) => [f.file, f.etag]));
    for (const file of takenFiles)
      expect({ file, etag: after.get(`/${file}`) }).toEqual({ file, etag: before.get(`/${file}`) });
    const isTaken = (file: string) => file in taken;
    expect(
      takenFiles.some((f) => f.startsWith('api/v1/markets/cot/') && f !== 'api/v1/markets/cot/index.json'),
    ).toBe(true);
    expect(takenFiles.some((f) => /^markets\/[^/]+\/index\.html$/.test(f))).toBe(true);
    expect(isTaken('api/v1/reference/venues/index.json')).toBe(true);
    // What the ECB's rates or the clock feed is rendered again.
    for (const file of incremental.files.map((f) => f.file.slice(1))) {
      if (
        file.startsWith('api/v1/fx/') ||
        file.startsWith('api/v1/series/eur-') ||
        file.startsWith('api/v1/status/')
      )
        expect({ file, taken: isTaken(file) }).toEqual({ file, taken: false });
    }
    for (const file of [
      'api/v1/series/_by/currency/USD.json',
      'api/v1/series/index.json',
      'index.html',
      'fx/index.html',
    ])
      expect({ file, taken: isTaken(file) }).toEqual({ file, taken: false });
    // A catalogue filter that lists no ECB series is taken.
    const usSeries = JSON.parse(
      readFileSync(join(fixture.distDir, 'api/v1/series/_by/country/US.json'), 'utf8'),
    );
    expect(usSeries.data.length).toBeGreaterThan(0);
    expect(isTaken('api/v1/series/_by/country/US.json')).toBe(true);
  });

  it('gives every file the full build gives, alike but for the snapshot and time a taken file names', () => {
    const current = (files: BuildManifest['files']) =>
      files
        .map((f) => f.file)
        // The incremental dist/ also carries the earlier snapshot's bulk files (kept in the store).
        .filter((f) => [...f.matchAll(SNAPSHOT_ID)].every(([id]) => id === incremental.snapshot))
        .sort();
    expect(current(incremental.files)).toEqual(current(full.files));
    const times = [earlier.generated_at, incremental.generated_at];
    const different: string[] = [];
    for (const file of current(full.files)) {
      if (isBulkFile(file) || file === `/${BUILD_MANIFEST_FILE}` || file.endsWith('nginx.conf')) continue;
      // The bulk listings name every snapshot whose files dist/ holds: the earlier one's too.
      if (file === '/api/v1/bulk/index.json' || file === '/bulk/index.html') continue;
      const a = readFileSync(join(fixture.distDir, file), 'utf8');
      const b = readFileSync(join(fullDir, file), 'utf8');
      if (comparable(file, a, times) !== comparable(file, b, times)) different.push(file);
    }
    expect(different).toEqual([]);
    // A taken JSON body names the snapshot it was computed from, as the manifest records.
    for (const [file, from] of Object.entries(incremental.rendered_from ?? {})) {
      if (!file.endsWith('.json')) continue;
      const body = JSON.parse(readFileSync(join(fixture.distDir, file), 'utf8'));
      expect({ file, snapshot: body.meta.snapshot }).toEqual({ file, snapshot: from });
    }
  });

  it('links the bulk datasets whose rows did not change, and lists them as the full build does', () => {
    const [current, before] = incremental.bulk ?? [];
    expect(current?.snapshot).toBe(incremental.snapshot);
    expect(before?.snapshot).toBe(earlier.snapshot);
    // Same files, bytes (sha256), rows and terms as the full build wrote them.
    expect(current).toEqual(full.bulk?.[0]);
    const inode = (path: string) => statSync(join(fixture.distDir, path)).ino;
    const linked = current!.files
      .filter((file) => inode(file.path) === inode(file.path.replace(incremental.snapshot, earlier.snapshot)))
      .map((file) => file.path.slice(file.path.lastIndexOf('/') + 1));
    // Only the ECB's rows changed: the observations are written again, the rest is linked.
    expect(linked).toContain('cot_reports.parquet');
    expect(linked).toContain('currencies.csv.gz');
    expect(linked.filter((name) => name.startsWith('observations.'))).toEqual([]);
    expect(linked.length).toBe(current!.files.length - 2);
  });

  it('keeps what a taken page links: the bulk files of the snapshot it was rendered from', () => {
    for (const [file, from] of Object.entries(incremental.rendered_from ?? {})) {
      if (!file.endsWith('.html')) continue;
      for (const [, link] of readFileSync(join(fixture.distDir, file), 'utf8').matchAll(
        /href="(\/api\/v1\/bulk\/[^"]+)"/g,
      )) {
        if (link!.includes(from))
          expect({ file, link, exists: existsSync(join(fixture.distDir, link!)) }).toEqual({
            file,
            link,
            exists: true,
          });
      }
    }
  });

  it('renders everything when the code, the pipeline or the earlier build differ', async () => {
    const options = {
      layout: resolveLayout(fixture.dataDir),
      snapshotId: incremental.snapshot,
      previousDir: fixture.distDir,
      pipelineVersion: incremental.pipeline_version,
      inputsDigest: digestRenderInputs(REPO_ROOT),
    };
    expect((await planReuse({ ...options, previous: incremental })).why).toBeNull();
    expect((await planReuse({ ...options, previous: null })).why).toBe('no earlier build');
    expect((await planReuse({ ...options, previous: { ...incremental, inputs_digest: 'x' } })).why).toMatch(
      /code/,
    );
    expect(
      (await planReuse({ ...options, previous: { ...incremental, pipeline_version: '0.0.0' } })).why,
    ).toMatch(/pipeline 0\.0\.0/);
    expect((await planReuse({ ...options, previous: { ...incremental, site_only: true } })).why).toMatch(
      /site-only/,
    );
    // Another build's full run said why it took nothing.
    expect(readManifest(fullDir).rendered_from).toBeUndefined();
  });
});

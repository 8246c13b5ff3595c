import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import type { SnapshotManifest } from '../../../src/store/manifest.ts';
import { holdSnapshotFiles, SnapshotGoneError } from '../../../src/store/snapshot-hold.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/** Holds on a snapshot's files (the change feed's since) against a prune of the snapshot. */
describe('holdSnapshotFiles', () => {
  let temp: ReturnType<typeof createTempDir>;
  const id = '20261101T000000Z-00000001';
  const layout = () => resolveLayout(temp.dir);
  const manifest = {
    id,
    tables: {
      observations: { files: [{ file: 'observations/p1.parquet' }, { file: 'observations/p2.parquet' }] },
      cot_reports: { files: [{ file: 'cot_reports.parquet' }] },
    },
  } as unknown as SnapshotManifest;

  beforeEach(() => {
    temp = createTempDir('mmds-hold-');
    const dir = snapshotDir(layout(), id);
    mkdirSync(join(dir, 'observations'), { recursive: true });
    writeFileSync(join(dir, 'observations/p1.parquet'), 'one');
    writeFileSync(join(dir, 'observations/p2.parquet'), 'two');
    writeFileSync(join(dir, 'cot_reports.parquet'), 'three');
  });
  afterEach(() => temp.remove());

  it('keeps every file readable after the snapshot is removed, until released', () => {
    const hold = holdSnapshotFiles(layout(), manifest, ['observations', 'cot_reports']);
    rmSync(snapshotDir(layout(), id), { recursive: true });
    expect(hold.files('observations').map((file) => readFileSync(file, 'utf8'))).toEqual(['one', 'two']);
    expect(hold.files('cot_reports').map((file) => readFileSync(file, 'utf8'))).toEqual(['three']);
    expect(hold.files('series')).toEqual([]);
    hold.release();
    hold.release();
    expect(readdirSync(join(layout().snapshotsDir, '.holds'))).toEqual([]);
  });

  it('throws SnapshotGoneError for a file already gone, and leaves no hold behind', () => {
    rmSync(join(snapshotDir(layout(), id), 'cot_reports.parquet'));
    expect(() => holdSnapshotFiles(layout(), manifest, ['observations', 'cot_reports'])).toThrow(
      SnapshotGoneError,
    );
    expect(readdirSync(join(layout().snapshotsDir, '.holds'))).toEqual([]);
  });

  it('clears a hold left by a crashed process an hour ago, not a recent one', () => {
    const holds = join(layout().snapshotsDir, '.holds');
    mkdirSync(join(holds, 'stale'), { recursive: true });
    mkdirSync(join(holds, 'recent'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(holds, 'stale'), twoHoursAgo, twoHoursAgo);
    const hold = holdSnapshotFiles(layout(), manifest, ['cot_reports']);
    const during = readdirSync(holds);
    expect(during).toContain('recent');
    expect(during).not.toContain('stale');
    expect(during).toHaveLength(2);
    hold.release();
    expect(readdirSync(holds)).toEqual(['recent']);
  });
});

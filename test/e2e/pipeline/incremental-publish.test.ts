import { cpSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import { diffSnapshotDetails } from '../../../src/query/changes-detail.ts';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { DERIVED_TABLES } from '../../../src/store/derived-tables.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest, type SnapshotManifest } from '../../../src/store/manifest.ts';
import { TABLES } from '../../../src/store/tables.ts';
import { VerifiedFiles, verifySnapshotFiles } from '../../../src/store/verify-files.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Incremental snapshots on the real sample data: the store holds the sample pipeline with the
 * ECB history minus its newest day (a trimmed copy of data/sample's real ECB file); then the
 * ECB's daily CSV of that day arrives. The publish rewrites the ECB partitions only, links
 * every other partition from the parent, and gives exactly what a publish from scratch of the
 * same batches gives. Partitions are made small so that ECB spans several and the second
 * publish splits the ones that grew.
 */
const ECB_HISTORY = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
/** The ECB's daily CSV of that day (../shared/data). */
const ECB_DAY = join(SHARED_DATA, 'ecb/eurofxref.csv');
const NEWEST_DAY = '2026-04-13';

const later = (hours: number) => () => new Date(FIXTURE_NOW.getTime() + hours * 3_600_000);

describe('incremental publish: one new ECB day', () => {
  const temp = createTempDir('mmds-incremental-');
  const dataDir = join(temp.dir, 'data');
  const scratchDir = join(temp.dir, 'scratch');
  let parent: SnapshotManifest;
  let child: SnapshotManifest;
  let scratch: SnapshotManifest;
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    // The history without its newest day (the file is newest first: drop the first data row).
    const [header, newest, ...rest] = readFileSync(ECB_HISTORY, 'utf8').split('\n');
    expect(newest!.startsWith(NEWEST_DAY)).toBe(true);
    const trimmed = join(temp.dir, 'eurofxref-hist_2025-01-02_to_2026-04-10.csv');
    writeFileSync(trimmed, [header, ...rest].join('\n'));
    const plan = JSON.parse(readFileSync(join(SAMPLE_DATA, 'pipeline.json'), 'utf8')) as Array<{
      source: string;
      files: string[];
    }>;
    const steps = plan.map((step) =>
      step.source === 'ecb'
        ? { ...step, files: [trimmed] }
        : { ...step, files: step.files.map((file) => join(SAMPLE_DATA, file)) },
    );
    writeFileSync(join(temp.dir, 'pipeline.json'), JSON.stringify(steps));
    const env = { MMDS_DATA_DIR: dataDir, MMDS_PARTITION_ROWS: '2000' };
    const ingested = await runMmds(['ingest-plan', join(temp.dir, 'pipeline.json')], env);
    expect(ingested.code, ingested.stderr).toBe(0);
    const first = await runMmds(['publish'], env);
    expect(first.code, first.stderr).toBe(0);
    parent = readManifest(resolveLayout(dataDir), readCurrentId(resolveLayout(dataDir))!);

    const day = await runMmds(['ingest', 'ecb', ECB_DAY], env, later(1));
    expect(day.code, day.stderr).toBe(0);
    // The same batches, published from scratch in a copy (no parent to build on).
    cpSync(dataDir, scratchDir, { recursive: true });
    rmSync(join(scratchDir, 'snapshots'), { recursive: true });
    rmSync(join(scratchDir, 'CURRENT'));
    const smaller = { ...env, MMDS_PARTITION_ROWS: '500' };
    const second = await runMmds(['publish', '--json'], smaller, later(2));
    expect(second.code, second.stderr).toBe(0);
    child = readManifest(resolveLayout(dataDir), readCurrentId(resolveLayout(dataDir))!);
    const fromScratch = await runMmds(['publish'], { ...smaller, MMDS_DATA_DIR: scratchDir }, later(2));
    expect(fromScratch.code, fromScratch.stderr).toBe(0);
    scratch = readManifest(resolveLayout(scratchDir), readCurrentId(resolveLayout(scratchDir))!);
    instance = await openDuckDb();
    connection = await instance.connect();
  });

  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
    temp.remove();
  });

  const filesOf = (manifest: SnapshotManifest, table: string, source?: string) =>
    manifest.tables[table]!.files.filter((file) => source === undefined || file.source === source);

  it('splits a source into partitions of contiguous series keys', () => {
    const ecb = filesOf(parent, 'observations', 'ecb');
    expect(ecb.length).toBeGreaterThan(2);
    expect(ecb[0]!.lower).toBeNull();
    expect(ecb.at(-1)!.upper).toBeNull();
    for (let i = 1; i < ecb.length; i++) expect(ecb[i]!.lower).toBe(ecb[i - 1]!.upper);
    expect(new Set(filesOf(parent, 'observations').map((f) => f.source))).toEqual(new Set(['bls', 'ecb']));
  });

  it('links every partition the new day did not touch and rewrites the ECB ones', () => {
    const parentDir = snapshotDir(resolveLayout(dataDir), parent.id);
    const childDir = snapshotDir(resolveLayout(dataDir), child.id);
    expect(child.parent).toBe(parent.id);
    const untouched = [...filesOf(parent, 'observations', 'bls'), ...filesOf(parent, 'cot_reports')];
    expect(untouched.length).toBeGreaterThan(0);
    for (const file of untouched) {
      const again = child.tables[file.file.split('/')[0]!]!.files.find((f) => f.file === file.file);
      expect(again, file.file).toEqual(file);
      // The same inode: a hard link, not a copy.
      expect(statSync(join(childDir, file.file)).ino, file.file).toBe(
        statSync(join(parentDir, file.file)).ino,
      );
    }
    const ecbBefore = filesOf(parent, 'observations', 'ecb');
    const ecbAfter = filesOf(child, 'observations', 'ecb');
    // Every ECB partition grew past twice the smaller target, so each was split.
    expect(ecbAfter.length).toBeGreaterThan(ecbBefore.length);
    for (const file of ecbAfter) {
      expect(statSync(join(childDir, file.file)).nlink, file.file).toBe(1);
    }
    const rows = (files: ReadonlyArray<{ rows: number }>) => files.reduce((sum, f) => sum + f.rows, 0);
    const [header] = readFileSync(ECB_DAY, 'utf8').split('\n');
    const currencies = header!
      .split(',')
      .filter((cell) => cell.trim() !== '' && cell.trim() !== 'Date').length;
    expect(rows(ecbAfter)).toBe(rows(ecbBefore) + currencies);
  });

  it('gives exactly the tables a publish from scratch of the same batches gives', async () => {
    const scratchDirOf = snapshotDir(resolveLayout(scratchDir), scratch.id);
    const childDir = snapshotDir(resolveLayout(dataDir), child.id);
    const read = async (dir: string, _manifest: SnapshotManifest, files: string[], order: string) =>
      readRows(
        connection,
        `SELECT * FROM read_parquet([${files.map((f) => quotedString(join(dir, f))).join(', ')}]) ORDER BY ${order}`,
      );
    for (const table of TABLES) {
      const order = table.kind === 'fact' ? 'id' : table.key.join(', ');
      const ours = await read(
        childDir,
        child,
        child.tables[table.name]!.files.map((f) => f.file),
        order,
      );
      const theirs = await read(
        scratchDirOf,
        scratch,
        scratch.tables[table.name]!.files.map((f) => f.file),
        order,
      );
      expect(ours.length, table.name).toBe(theirs.length);
      expect(ours, table.name).toEqual(theirs);
    }
    for (const name of DERIVED_TABLES) {
      const order = name === 'cot_markets' ? 'code' : 'series_key';
      const ours = await read(childDir, child, [child.derived[name]!.file], order);
      const theirs = await read(scratchDirOf, scratch, [scratch.derived[name]!.file], order);
      expect(ours.length, name).toBeGreaterThan(0);
      expect(ours, name).toEqual(theirs);
    }
    // The newest ECB day is the latest value of every ECB series.
    const [usd] = await readRows<{ period: string }>(
      connection,
      `SELECT period FROM read_parquet(${quotedString(join(childDir, child.derived.series_latest!.file))}) WHERE series_key = 'ecb.USD'`,
    );
    expect(usd?.period).toBe(NEWEST_DAY);
  });

  it('reads one series from the one partition that holds it', async () => {
    const layout = resolveLayout(dataDir);
    const db = await openSnapshotDb(layout, child.id);
    try {
      const keys = await db.query<{ key: string; n: number }>(
        'SELECT series_key AS key, count(*)::INTEGER AS n FROM observations GROUP BY 1 ORDER BY 1',
      );
      expect(keys.length).toBeGreaterThan(20);
      for (const { key, n } of keys) {
        const relation = db.factRelation('observations', key);
        expect(relation, key).toMatch(/^"observations__p\d+"$/);
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::INTEGER AS n FROM ${relation} WHERE series_key = $key`,
          { key },
        );
        expect(row!.n, key).toBe(n);
      }
      expect(db.factRelation('observations', 'nosuchsource.X')).toBe('observations');
    } finally {
      await db.close();
    }
  });

  it('diffs a few partitions at a time, finding what one query over the whole snapshot finds', async () => {
    const layout = resolveLayout(dataDir);
    const [header] = readFileSync(ECB_DAY, 'utf8').split('\n');
    const currencies = header!
      .split(',')
      .map((cell) => cell.trim())
      .filter((cell) => cell !== '' && cell !== 'Date');
    // The new day: one new period in each ECB series, found in the rewritten partitions.
    const day = await diffSnapshotDetails(layout, parent, child, { groupRows: 1 });
    expect(day.map((d) => d.series_key)).toEqual(currencies.map((c) => `ecb.${c}`).sort());
    for (const detail of day) {
      expect([detail.new_count, detail.new_first, detail.revised_count], detail.series_key).toEqual([
        1,
        NEWEST_DAY,
        0,
      ]);
    }
    expect(await diffSnapshotDetails(layout, parent, child, { groupRows: 1e12 })).toEqual(day);
    // From nothing (a store's first snapshot): every period of the snapshot is new.
    const all = await diffSnapshotDetails(layout, null, child, { groupRows: 1 });
    expect(await diffSnapshotDetails(layout, null, child, { groupRows: 1e12 })).toEqual(all);
    const childDir = snapshotDir(layout, child.id);
    for (const table of ['observations', 'cot_reports'] as const) {
      const files = child.tables[table]!.files.map((f) => quotedString(join(childDir, f.file)));
      const [distinct] = await readRows<{ keys: number; periods: number }>(
        connection,
        `SELECT count(DISTINCT series_key)::INTEGER AS keys, count(DISTINCT (series_key, period))::INTEGER AS periods
           FROM read_parquet([${files.join(', ')}])`,
      );
      const ours = all.filter((d) => d.table === table);
      expect(ours.length, table).toBe(distinct!.keys);
      expect(
        ours.reduce((n, d) => n + d.new_count, 0),
        table,
      ).toBe(distinct!.periods);
      expect(
        ours.every((d) => d.revised_count === 0),
        table,
      ).toBe(true);
    }
  });

  it('passes mmds verify, which hashes the linked files too', async () => {
    const run = await runMmds(['verify'], { MMDS_DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
  });

  it('lets a server re-verify a snapshot with the digests it has, yet hashes a file changed since', async () => {
    const layout = resolveLayout(dataDir);
    const parentDir = snapshotDir(layout, parent.id);
    const childDir = snapshotDir(layout, child.id);
    const verified = new VerifiedFiles();
    expect(await verifySnapshotFiles(parentDir, parent, { verified })).toEqual([]);
    // The child shares the parent's untouched partitions (same inodes): known, and intact.
    expect(await verifySnapshotFiles(childDir, child, { verified })).toEqual([]);
    // A shared partition damaged in place (same size, new modification time): hashed again.
    const shared = filesOf(parent, 'observations', 'bls')[0]!.file;
    const path = join(childDir, shared);
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(path, bytes);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const again = await verifySnapshotFiles(childDir, child, { verified });
    expect(again.map((p) => p.message)).toEqual([`${child.id}/${shared}: SHA-256 differs from the manifest`]);
  });
});

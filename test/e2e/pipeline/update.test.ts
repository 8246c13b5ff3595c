import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { listBatches } from '../../../src/store/batches.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree } from './store-files.ts';
import { startUpdatePublisher, type UpdatePublisher } from './update-publisher.ts';

/** A Monday after the September 2026 Employment Situation (2026-10-02), the newest data served. */
const NOW = new Date('2026-10-05T10:00:00Z');
const clock = () => NOW;
/** What a run may change without storing anything: its own bookkeeping. */
const STATE_FILES = (path: string) =>
  !path.endsWith('update-state.json') && !path.endsWith('fetch-state.json');

describe('mmds update against a loopback publisher (every source, real files)', () => {
  let served: UpdatePublisher;
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;
  const mmds = (...argv: string[]) => runMmds(argv, env, clock);
  const layout = () => resolveLayout(env.MMDS_DATA_DIR!);

  async function withSnapshot<T>(fn: (db: SnapshotDb) => Promise<T>): Promise<T> {
    const db = await openSnapshotDb(layout(), readCurrentId(layout())!);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    served = await startUpdatePublisher();
    temp = createTempDir('update-e2e-');
    env = {
      ...served.env(),
      MMDS_DATA_DIR: join(temp.dir, 'data'),
      MMDS_DIST_DIR: join(temp.dir, 'dist'),
    };
    const catalog = await mmds('ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml'));
    expect(catalog.code, catalog.stderr).toBe(0);
  });
  afterAll(async () => {
    await served.publisher.close();
    temp.remove();
  });

  it('--dry-run lists every source as due on an empty store and fetches nothing', async () => {
    const before = served.publisher.requests.length;
    const run = await mmds('update', '--dry-run');
    expect(run.code, run.stderr).toBe(0);
    for (const source of ['iso4217', 'm49', 'mic', 'tz', 'countries', 'ecb', 'cftc', 'bls', 'fred']) {
      expect(run.stdout).toContain(`${source}: due (never fetched successfully)`);
    }
    expect(served.publisher.requests.length).toBe(before);
  });

  it('backfills every source and publishes; BLS values carry release-calendar times', async () => {
    const run = await mmds('update', '--no-build');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/published snapshot /);
    const sources = new Set(listBatches(layout()).map((batch) => batch.source));
    for (const source of [
      'catalog',
      'iso4217',
      'm49',
      'mic',
      'tz',
      'countries',
      'ecb',
      'cftc',
      'bls',
      'fred',
    ]) {
      expect(sources.has(source), source).toBe(true);
    }
    const cftcBatch = listBatches(layout()).find((batch) => batch.source === 'cftc')!;
    expect(cftcBatch.files[0]?.origin).toMatchObject({
      url: served.publisher.url('cftc/files/dea/history/fut_fin_txt_2026.zip'),
      retrieved_at: '2026-10-05T10:00:00Z',
      member: 'FinFutYY.txt',
    });
    await withSnapshot(async (db) => {
      const [payroll] = await db.query<{ observed_at: string; method: string }>(
        `SELECT strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at, observed_at_method AS method
           FROM observations WHERE series_key = 'bls.CES0000000001' AND period = '2026-09'`,
      );
      // The Employment Situation for September 2026: 2026-10-02 08:30 New York.
      expect(payroll).toEqual({ observed_at: '2026-10-02T12:30:00Z', method: 'release_calendar' });
      const [euro] = await db.query<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM observations WHERE series_key = 'ecb.CYP'`,
      );
      expect(Number(euro?.n)).toBe(0);
    });
  });

  it('a second run finds nothing due; forced, the publisher answers 304 and nothing is written', async () => {
    const before = hashTree(env.MMDS_DATA_DIR!, STATE_FILES);
    const quiet = await mmds('update', '--no-build');
    expect(quiet.code, quiet.stderr).toBe(3);
    expect(quiet.stdout).toContain('update: nothing new');
    const forced = await mmds('update', '--force', '--source', 'cftc', 'ecb', 'iso4217', '--no-build');
    expect(forced.code, forced.stderr).toBe(3);
    expect(forced.stdout).toMatch(/cftc: 1 file\(s\) unchanged at the publisher/);
    // The ECB history is stored, so the daily file is asked for: its rates are already known.
    expect(forced.stdout).toMatch(/ecb: read 30 rows.*unchanged 30.*nothing new/);
    expect(hashTree(env.MMDS_DATA_DIR!, STATE_FILES)).toEqual(before);
  });

  it('a new COT week appearing at the publisher becomes a new batch, snapshot and build', async () => {
    served.cftc.releaseLastWeek();
    const previous = readCurrentId(layout());
    const run = await mmds('update', '--force', '--source', 'cftc');
    expect(run.code, run.stderr).toBe(0);
    const current = readCurrentId(layout());
    expect(current).not.toBe(previous);
    const manifest = JSON.parse(readFileSync(join(env.MMDS_DIST_DIR!, 'build-manifest.json'), 'utf8'));
    expect(manifest.snapshot).toBe(current);
    await withSnapshot(async (db) => {
      const rows = await db.query<{ period: string; observed_at: string }>(
        `SELECT DISTINCT period, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
           FROM cot_reports WHERE period = $week`,
        { week: served.cftc.lastWeek },
      );
      // The report of Tuesday 2026-03-17 was released Friday 2026-03-20 15:30 New York.
      expect(rows).toEqual([{ period: served.cftc.lastWeek, observed_at: '2026-03-20T19:30:00Z' }]);
    });
  });

  it('a source that fails is named, leaves the store as it was, and does not block the others', async () => {
    served.publisher.setFault('six/list-one.xml', 'html');
    const before = hashTree(env.MMDS_DATA_DIR!, STATE_FILES);
    const run = await mmds('update', '--force', '--source', 'iso4217', 'mic', '--no-build');
    served.publisher.setFault('six/list-one.xml', null);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/iso4217: failed: .*list-one\.xml.*HTML/i);
    expect(run.stderr).toMatch(/mmds: update: failed: iso4217/);
    expect(run.stdout).toMatch(/mic: 1 file\(s\) unchanged at the publisher/);
    expect(hashTree(env.MMDS_DATA_DIR!, STATE_FILES)).toEqual(before);
  });

  it('publishes what an earlier run or a manual ingest stored but did not publish', async () => {
    const legacy = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt');
    const ingest = await mmds('ingest', 'cftc', legacy);
    expect(ingest.code, ingest.stderr).toBe(0);
    const previous = readCurrentId(layout());
    const run = await mmds('update', '--no-build');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/published snapshot /);
    expect(readCurrentId(layout())).not.toBe(previous);
  });

  it('publishes in partitions of MMDS_PARTITION_ROWS, as mmds publish does', async () => {
    // The same batches twice without snapshots (nothing is due at NOW: the state file is copied).
    const copy = (name: string) => {
      const dir = join(temp.dir, name);
      cpSync(env.MMDS_DATA_DIR!, dir, { recursive: true });
      rmSync(join(dir, 'snapshots'), { recursive: true });
      rmSync(join(dir, 'CURRENT'));
      return { ...env, MMDS_DATA_DIR: dir, MMDS_PARTITION_ROWS: '500' };
    };
    const byUpdate = copy('by-update');
    const byPublish = copy('by-publish');
    const updated = await runMmds(['update', '--no-build'], byUpdate, clock);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/published snapshot /);
    const published = await runMmds(['publish'], byPublish, clock);
    expect(published.code, published.stderr).toBe(0);
    const partitions = (dir: string) => {
      const manifest = readManifest(resolveLayout(dir), readCurrentId(resolveLayout(dir))!);
      return Object.entries(manifest.tables).map(([table, { files }]) => ({
        table,
        files: files.map(({ file, source, lower, upper, rows }) => ({ file, source, lower, upper, rows })),
      }));
    };
    const layoutOfUpdate = partitions(byUpdate.MMDS_DATA_DIR!);
    expect(layoutOfUpdate).toEqual(partitions(byPublish.MMDS_DATA_DIR!));
    // Not the default layout (250,000 revisions a partition): the ECB's rates span several.
    const observations = layoutOfUpdate.find((entry) => entry.table === 'observations')!;
    expect(observations.files.filter((file) => file.source === 'ecb').length).toBeGreaterThan(2);
  });
});

describe('mmds fetch fred: ALFRED vintages become the revision history', () => {
  let served: UpdatePublisher;
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;
  const mmds = (...argv: string[]) => runMmds(argv, env, clock);

  beforeAll(async () => {
    served = await startUpdatePublisher();
    temp = createTempDir('fred-e2e-');
    env = { ...served.env(), MMDS_DATA_DIR: join(temp.dir, 'data') };
    expect((await mmds('ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml'))).code).toBe(0);
  });
  afterAll(async () => {
    await served.publisher.close();
    temp.remove();
  });

  it('a revised value becomes revision 2, known from its vintage, with revision 1 still in force before', async () => {
    const first = await mmds('fetch', 'fred', '--series', 'PAYEMS=bls.CES0000000001');
    expect(first.code, first.stderr).toBe(0);
    served.addLaterVintage();
    const second = await mmds('fetch', 'fred', '--series', 'PAYEMS=bls.CES0000000001');
    expect(second.code, second.stderr).toBe(0);
    expect((await mmds('publish')).code).toBe(0);
    const fredLayout = resolveLayout(env.MMDS_DATA_DIR!);
    const db = await openSnapshotDb(fredLayout, readCurrentId(fredLayout)!);
    try {
      const chain = await db.query<{ revision_number: number; value: number; observed_at: string }>(
        `SELECT revision_number, value, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
           FROM observations WHERE series_key = 'bls.CES0000000001' AND period = '2025-03' ORDER BY revision_number`,
      );
      // March 2025 was revised by -898 thousand between the two real vintages (PROVENANCE.md).
      expect(chain.map((row) => [Number(row.revision_number), row.observed_at])).toEqual([
        [1, '2025-08-01T12:30:00Z'],
        [2, '2026-10-02T12:30:00Z'],
      ]);
      expect(Number(chain[1]!.value) - Number(chain[0]!.value)).toBe(-898);
    } finally {
      await db.close();
    }
  });
});

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { LEGACY, writeCorrectedLegacy } from './corrected-legacy.ts';
import { hashTree } from './store-files.ts';

/*
 * A clock that is wrong must not wedge the store (issue 37): records known after the clock that
 * publishes them are named, with the way out, by publish, ingest and verify, and
 * `mmds store drop-unpublished` takes them out; a snapshot is dated at or after every record.
 */

const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const BIN = join(REPO_ROOT, 'bin/mmds.js');
const SHIFTED_CLOCK = join(REPO_ROOT, 'test/helpers/shifted-clock.ts');
const GOLD = 'cftc.088691.legacy';

const REAL = new Date('2026-11-23T12:00:00Z');
const FAST = new Date(REAL.getTime() + 400 * 86_400_000);

/** Runs bin/mmds.js as its own process under a host clock starting at `now` (shifted-clock.ts). */
function spawnMmdsAt(
  now: Date,
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
  );
  const child = spawn(process.execPath, ['--import', SHIFTED_CLOCK, BIN, ...argv], {
    env: { ...inherited, ...env, MMDS_TEST_CLOCK_START: now.toISOString() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function createStore(prefix: string) {
  const temp = createTempDir(prefix);
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data') };
  const layout = resolveLayout(env.MMDS_DATA_DIR);
  return {
    temp,
    env,
    layout,
    mmds: (argv: string[], now: Date) => runMmds(argv, env, () => now),
    /** The one "mmds:" line of a refused run, after checking it left the data directory as it was. */
    async refused(argv: string[], now: Date): Promise<string> {
      const before = hashTree(env.MMDS_DATA_DIR);
      const run = await runMmds(argv, env, () => now);
      expect(run.code, run.stdout).toBe(1);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('mmds:'));
      expect(lines, run.stderr).toHaveLength(1);
      expect(hashTree(env.MMDS_DATA_DIR)).toEqual(before);
      return lines[0]!;
    },
    async chain(period: string): Promise<Array<{ observed_at: string; revision_number: number }>> {
      const db = await openSnapshotDb(layout, readCurrentId(layout)!);
      try {
        return await db.query<{ observed_at: string; revision_number: number }>(
          `SELECT strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at, revision_number::INTEGER AS revision_number
             FROM cot_reports WHERE series_key = $key AND period = $period ORDER BY revision_number`,
          { key: GOLD, period },
        );
      } finally {
        await db.close();
      }
    },
  };
}

describe('an ingest under a host clock 400 days ahead', () => {
  const store = createStore('clock-ahead-');
  let corrected: string;
  let ahead: string;
  beforeAll(async () => {
    expect((await store.mmds(['ingest', 'catalog', CATALOG], REAL)).code).toBe(0);
    expect((await store.mmds(['ingest', 'cftc', LEGACY], REAL)).code).toBe(0);
    expect((await store.mmds(['publish'], REAL)).code).toBe(0);
    corrected = writeCorrectedLegacy(store.temp.dir);
    // The host cannot tell its clock is wrong: the ingest is accepted, as it was before.
    const run = await spawnMmdsAt(
      FAST,
      ['--json', 'ingest', 'cftc', corrected, '--collected-at', '2027-06-01T00:00:00Z'],
      store.env,
    );
    expect(run.code, run.stderr).toBe(0);
    ahead = (JSON.parse(run.stdout) as { batch_id: string }).batch_id;
    expect(ahead).toMatch(/^\d{6}-[0-9a-f]{12}$/);
  });
  afterAll(() => store.temp.remove());

  it('is named with the way out by publish, ingest and verify once the clock is right', async () => {
    const publish = await store.refused(['publish'], REAL);
    expect(publish).toMatch(
      /^mmds: publish refused: 1 record\(s\) known after the clock \(2026-11-23T12:00:00Z, allowing 5 minutes of clock skew\), the latest at 2027-06-01T00:00:00Z, in batch\(es\) (\S+) \(cftc, ingested at 2027-12-28T12:00:\d\dZ\)/,
    );
    expect(publish).toContain(`run mmds store drop-unpublished --from ${ahead} `);
    expect(publish).toMatch(/\(CURRENT is unchanged\)$/);

    // Before, this said "nothing new": compared with a correction "known" in 2027.
    const again = await store.refused(
      ['ingest', 'cftc', corrected, '--collected-at', '2025-03-19T09:00:00Z'],
      REAL,
    );
    expect(again).toMatch(/^mmds: ingest refused: 1 record\(s\) known after the clock/);
    expect(again).toContain(`drop-unpublished --from ${ahead}`);

    const verify = await store.mmds(['verify'], REAL);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(
      new RegExp(
        `error: knowledge: a publish would refuse 1 record\\(s\\) known after the clock .* in batch\\(es\\) ${ahead} .*drop-unpublished --from ${ahead}`,
      ),
    );
    expect(verify.stdout).toMatch(/1 error\(s\)/);
  });

  it('is taken out by mmds store drop-unpublished, with an audit line, and publish works again', async () => {
    const dry = await store.mmds(['store', 'drop-unpublished', '--from', ahead, '--dry-run'], REAL);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would drop batch ${ahead} (cftc`);
    expect(readdirSync(store.layout.batchesDir)).toContain(ahead);

    const published = readManifest(store.layout, readCurrentId(store.layout)!).batches;
    const refusedPublished = await store.refused(
      ['store', 'drop-unpublished', '--from', published.at(-1)!],
      REAL,
    );
    expect(refusedPublished).toMatch(/is in a published snapshot, and published records never change/);

    const drop = await store.mmds(
      ['--json', 'store', 'drop-unpublished', '--from', ahead, '--reason', 'host clock 400 days ahead'],
      REAL,
    );
    expect(drop.code, drop.stderr).toBe(0);
    const result = JSON.parse(drop.stdout) as {
      status: string;
      batches: Array<{ id: string; latest_known: string; ahead_of_clock: number; files: string[] }>;
      moved_to: string;
    };
    expect(result.status).toBe('dropped');
    expect(result.batches).toMatchObject([
      { id: ahead, latest_known: '2027-06-01T00:00:00Z', ahead_of_clock: 1, files: ['annual.txt'] },
    ]);
    expect(readdirSync(store.layout.batchesDir)).not.toContain(ahead);
    expect(existsSync(join(store.env.MMDS_DATA_DIR, result.moved_to, ahead, 'batch.json'))).toBe(true);
    const audit = readFileSync(store.layout.auditFile, 'utf8').trim().split('\n');
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!)).toMatchObject({
      at: '2026-11-23T12:00:00Z',
      action: 'drop-unpublished',
      reason: 'host clock 400 days ahead',
      batches: [{ id: ahead, source: 'cftc', options: { collectedAt: '2027-06-01T00:00:00Z' } }],
    });

    const verify = await store.mmds(['verify'], REAL);
    expect(verify.code, verify.stdout).toBe(0);
    const ingest = await store.mmds(
      ['ingest', 'cftc', corrected, '--collected-at', '2025-03-19T09:00:00Z'],
      REAL,
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toMatch(/corrections 1/);
    const publish = await store.mmds(['publish'], REAL);
    expect(publish.code, publish.stderr).toBe(0);
    expect(await store.chain('2025-03-11')).toEqual([
      { observed_at: '2025-03-14T19:30:00Z', revision_number: 1 },
      { observed_at: '2025-03-19T09:00:00Z', revision_number: 2 },
    ]);
  });
});

describe('a record known within the clock-skew allowance ahead of the publish', () => {
  const store = createStore('clock-skew-');
  const at = (time: string) => new Date(`2026-11-23T${time}Z`);
  beforeAll(async () => {
    expect((await store.mmds(['ingest', 'catalog', CATALOG], at('09:20:00'))).code).toBe(0);
    expect((await store.mmds(['ingest', 'cftc', LEGACY], at('09:20:00'))).code).toBe(0);
    expect((await store.mmds(['publish'], at('09:20:00'))).code).toBe(0);
  });
  afterAll(() => store.temp.remove());

  it('dates the snapshot at that record, so verify finds every snapshot dated after what it holds', async () => {
    const corrected = writeCorrectedLegacy(store.temp.dir);
    const ingest = await store.mmds(
      ['ingest', 'cftc', corrected, '--collected-at', '2026-11-23T09:28:17Z'],
      at('09:23:30'),
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await store.mmds(['publish'], at('09:24:44'))).code).toBe(0);
    const id = readCurrentId(store.layout)!;
    expect(id).toMatch(/^20261123T092817Z-/);
    expect(readManifest(store.layout, id).created_at).toBe('2026-11-23T09:28:17Z');
    const verify = await store.mmds(['verify'], at('09:25:00'));
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).not.toMatch(/knowledge/);
  });

  it('reports a snapshot dated before a record it holds, and a publish dates a new one honestly', async () => {
    // What a publish made before the rule: the snapshot dated by the clock alone.
    const id = readCurrentId(store.layout)!;
    const file = join(snapshotDir(store.layout, id), 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { created_at: string };
    writeFileSync(file, `${JSON.stringify({ ...manifest, created_at: '2026-11-23T09:24:44Z' }, null, 2)}\n`);
    const verify = await store.mmds(['verify'], at('09:25:00'));
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(
      new RegExp(
        `error: knowledge: ${GOLD} 2025-03-11 revision 2: knowledge time 2026-11-23T09:28:17Z \\(collected\\) is after the snapshot was created \\(2026-11-23T09:24:44Z\\); .*mmds publish makes one that is`,
      ),
    );
    const publish = await store.mmds(['publish'], at('09:29:00'));
    expect(publish.code, publish.stderr).toBe(0);
    expect(publish.stdout).toMatch(/^published snapshot 20261123T092900Z-/);
    expect(readManifest(store.layout, readCurrentId(store.layout)!).parent).toBe(id);
    const after = await store.mmds(['verify'], at('09:29:30'));
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).not.toMatch(/knowledge/);
    // Verify under a clock behind the current snapshot: it was published under a clock ahead.
    const behind = await store.mmds(['verify'], at('09:10:00'));
    expect(behind.code, behind.stdout).toBe(0);
    expect(behind.stdout).toMatch(
      /warning: knowledge: current snapshot 20261123T092900Z-\S+ is dated 2026-11-23T09:29:00Z, after the clock \(2026-11-23T09:10:00Z\)/,
    );
  });
});

import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBatches } from '../../../src/store/batches.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { seededRandom } from '../../helpers/seeded-random.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { readStderrMessages } from './store-files.ts';

const BIN = join(REPO_ROOT, 'bin/mmds.js');
const KILLS = 10;
const MAX_ATTEMPTS = 40;
/** The PAYEMS vintage after the February 2026 benchmark, a real FRED download (data/sample/README.md). */
const LATER_VINTAGE = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');

/** How a spawned `mmds` ended. */
interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/mmds.js as a separate process; `killAfterMs` sends SIGKILL after that delay. */
function spawnMmds(argv: readonly string[], dataDir: string, killAfterMs?: number): Promise<ChildRun> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, MMDS_DATA_DIR: dataDir },
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
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('publish is atomic when the process is killed at any moment', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let backup: string;
  let oldId: string;

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    temp = createTempDir('mmds-crash-');
    oldId = fixture.snapshotId;
    // A later real vintage of the licensed test series (PAYEMS after the 2026 benchmark): its
    // months are new revisions, so the next publish has something to do.
    const ingest = await runMmds(
      ['--json', 'ingest', 'fred', LATER_VINTAGE, '--series', LICENSED_SERIES_KEY, '--vintage', '2026-10-02'],
      fixture.env,
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    const result = JSON.parse(ingest.stdout) as {
      batch_id: string | null;
      tables: Record<string, { added: number }>;
    };
    expect(result.batch_id).not.toBeNull();
    // Every row of a vintage is stored, a repeat of the value in force included (data-model.md).
    const rows = readFileSync(LATER_VINTAGE, 'utf8').trimEnd().split('\n').length - 1;
    expect(result.tables.observations?.added).toBe(rows);
    backup = join(temp.dir, 'backup');
    cpSync(fixture.dataDir, backup, { recursive: true });
  });
  afterAll(() => {
    fixture?.remove();
    temp?.remove();
  });

  /** The snapshot a completed publish makes: child of the old one, made from every batch. */
  function isNewSnapshot(id: string): boolean {
    const layout = resolveLayout(fixture.dataDir);
    if (!existsSync(join(snapshotDir(layout, id), 'manifest.json'))) return false;
    const manifest = readManifest(layout, id);
    return (
      manifest.parent === oldId &&
      manifest.batches.join() ===
        listBatches(layout)
          .map((b) => b.id)
          .join()
    );
  }

  it('leaves CURRENT on the old or the new snapshot, both verifiable, after every SIGKILL', async () => {
    const random = seededRandom(20261123);
    // Kills land anywhere in a whole publish, however slow the machine is now: one is timed on a
    // copy first (under a loaded suite, starting the process alone can take over a second).
    const timed = join(temp.dir, 'timed');
    cpSync(backup, timed, { recursive: true });
    const timedAt = Date.now();
    const whole = await spawnMmds(['publish'], timed);
    expect(whole.code, whole.stderr).toBe(0);
    const span = Math.max(1500, Date.now() - timedAt);
    const layout = resolveLayout(fixture.dataDir);
    let kills = 0;
    // Kills that landed after the publish had begun writing: they leave a directory behind.
    let midway = 0;
    // Go on until enough kills landed, at least one of them while the snapshot was being written.
    for (let attempt = 1; kills < KILLS || midway === 0; attempt++) {
      expect(attempt, `${kills} kills (${midway} midway) in ${MAX_ATTEMPTS} attempts`).toBeLessThanOrEqual(
        MAX_ATTEMPTS,
      );
      const delay = Math.floor(random() * span);
      const startedAt = Date.now();
      const run = await spawnMmds(['publish'], fixture.dataDir, delay);
      const what = `attempt ${attempt}, kill after ${delay} ms`;
      if (run.signal === 'SIGKILL') {
        kills += 1;
        const written = readdirSync(layout.snapshotsDir).filter(
          (name) => name !== oldId && statSync(join(layout.snapshotsDir, name)).mtimeMs >= startedAt - 20,
        );
        if (written.length > 0) midway += 1;
      } else {
        expect(run.code, `${what}: ${run.stderr}`).toBe(0);
      }

      const current = readCurrentId(layout);
      expect(current, what).not.toBeNull();
      expect(current === oldId || isNewSnapshot(current!), `${what}: CURRENT is ${current}`).toBe(true);
      const verify = await runMmds(['verify'], fixture.env);
      expect(verify.code, `${what}: ${verify.stdout}${verify.stderr}`).toBe(0);

      if (current !== oldId) {
        // The publish got as far as the switch: start the next attempt from the old state again.
        rmSync(fixture.dataDir, { recursive: true, force: true });
        cpSync(backup, fixture.dataDir, { recursive: true });
      }
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    expect(midway).toBeGreaterThan(0);

    const finished = await spawnMmds(['publish'], fixture.dataDir);
    expect(finished.code, finished.stderr).toBe(0);
    const current = readCurrentId(layout)!;
    expect(current).not.toBe(oldId);
    expect(isNewSnapshot(current)).toBe(true);
    expect(finished.stdout).toContain(`published snapshot ${current}`);
    expect(readdirSync(layout.snapshotsDir).filter((name) => name.startsWith('.staging-'))).toEqual([]);
    const verify = await runMmds(['verify'], fixture.env);
    expect(verify.code, verify.stdout).toBe(0);
  }, 240_000);

  it('lets two concurrent ingests either both succeed or refuse the second with exit 75', async () => {
    const dataDir = join(temp.dir, 'concurrent');
    const env = { MMDS_DATA_DIR: dataDir };
    const catalog = await runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], env);
    expect(catalog.code, catalog.stderr).toBe(0);
    const runs = await Promise.all([
      spawnMmds(['ingest', 'ecb', join(SHARED_DATA, 'ecb/eurofxref-hist.csv')], dataDir),
      spawnMmds(['ingest', 'cftc', join(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt')], dataDir),
    ]);
    let succeeded = 0;
    for (const run of runs) {
      if (run.code === 0) {
        succeeded += 1;
        expect(run.stdout).toMatch(/batch \d{6}-[0-9a-f]{12}/);
      } else {
        expect(run.code, run.stderr).toBe(75);
        const lines = readStderrMessages(run.stderr);
        expect(lines, run.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(/^mmds: the data directory is in use by process \d+ \(.*mmds\.lock\)/);
      }
    }
    expect(succeeded).toBeGreaterThanOrEqual(1);
    const layout = resolveLayout(dataDir);
    expect(listBatches(layout)).toHaveLength(1 + succeeded);
    const publish = await runMmds(['publish'], env);
    expect(publish.code, publish.stderr).toBe(0);
    const verify = await runMmds(['verify'], env);
    expect(verify.code, verify.stdout).toBe(0);
  });
});

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { SAMPLE_DATA } from '../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { LICENSED_FIXTURE_STEPS } from '../helpers/snapshot-fixture.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Disk full during publish, on a real tmpfs (mounting needs root; elsewhere the test is skipped
 * and says so). The store holds snapshot A of the sample and one more batch (the licensed test
 * fixture); the tmpfs is then shrunk to what that data needs, with room for about two more
 * snapshots. A filler file leaves a little less room each time than the new snapshot needs, from
 * none at all to just too little, so that the publish runs out of space at every step it has:
 * staging each Parquet file, the manifest, the rename, CURRENT. Each time: a one-line error
 * naming the cause, CURRENT still on A, no staging debris, and `mmds verify` clean. With room
 * again, the publish goes through.
 */

const FILLER = 'filler';
const PAGE = 4_096;
/** Room for the setup (ingest stages each batch as NDJSON first); the disk is resized after it. */
const SETUP_SIZE = '64m';
/** About this many publishes run out of room before one fits. */
const ATTEMPTS = 96;

const roundUpToPage = (bytes: number) => Math.ceil(bytes / PAGE) * PAGE;

function tryMount(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SETUP_SIZE}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

/** Bytes the files of a directory take on a page-granular tmpfs. */
function directoryBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => statSync(join(dir, name)))
    .filter((stats) => stats.isFile())
    .reduce((sum, stats) => sum + roundUpToPage(stats.size), 0);
}

async function unmount(dir: string): Promise<void> {
  // DuckDB releases its file handles a moment after closing; retry before giving up lazily.
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
}

const freeBytes = (dir: string) => {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
};

const usedBytes = (dir: string) => {
  const stats = statfsSync(dir);
  return (stats.blocks - stats.bfree) * stats.bsize;
};

describe('disk full during publish', () => {
  const temp = createTempDir('mmds-disk-full-');
  const mountPoint = join(temp.dir, 'small');
  const env = { MMDS_DATA_DIR: join(mountPoint, 'data') };
  const layout = resolveLayout(env.MMDS_DATA_DIR);
  let refusal: string | null = 'not tried';
  let snapshotA = '';
  let diskBytes = 0;
  let stepBytes = 0;

  beforeAll(async () => {
    execFileSync('mkdir', ['-p', mountPoint]);
    refusal = tryMount(mountPoint);
    if (refusal !== null) return;
    const ingest = await runMmds(['ingest-plan', join(SAMPLE_DATA, 'pipeline.json')], env);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await runMmds(['publish'], env)).code).toBe(0);
    snapshotA = readFileSync(layout.currentFile, 'utf8');
    const snapshotBytes = directoryBytes(snapshotDir(layout, readCurrentId(layout)!));
    // One more batch of real data, so that the next publish makes a new snapshot.
    for (const [source, ...rest] of LICENSED_FIXTURE_STEPS) {
      const more = await runMmds(['ingest', source!, ...rest], env);
      expect(more.code, more.stderr).toBe(0);
    }
    // Size the disk from the data: what is stored, room for two snapshots like A, and slack.
    diskBytes = roundUpToPage(usedBytes(mountPoint) + 2 * snapshotBytes + 1024 * 1024);
    execFileSync('mount', ['-o', `remount,size=${diskBytes}`, mountPoint], { stdio: 'pipe' });
    expect(statfsSync(mountPoint).blocks * statfsSync(mountPoint).bsize).toBe(diskBytes);
    stepBytes = Math.max(2 * PAGE, roundUpToPage(snapshotBytes / ATTEMPTS));
  });

  afterAll(async () => {
    if (refusal === null) await unmount(mountPoint);
    temp.remove();
  });

  it('fails cleanly at every point short of room, leaves CURRENT and the store intact, then publishes', async (context) => {
    if (refusal !== null) {
      console.warn(`disk-full test skipped: cannot mount a tmpfs here (${refusal})`);
      context.skip();
    }
    // The same clock every time: a retry must cope with what the previous attempt left.
    const later = () => new Date(FIXTURE_NOW.getTime() + 3_600_000);
    const failures: string[] = [];
    let published = false;
    for (let room = 0; room < diskBytes && !published; room += stepBytes) {
      writeFileSync(join(mountPoint, FILLER), Buffer.alloc(Math.max(0, freeBytes(mountPoint) - room)));
      const run = await runMmds(['publish'], env, later);
      if (run.code === 0) {
        published = true;
        break;
      }
      const message = run.stderr.trim().split('\n').at(-1)!;
      failures.push(message);
      expect(message, `room ${room}`).toMatch(/^mmds: .*(no space left on device|ENOSPC)/i);
      // Whether Node or DuckDB hit the full disk, it is the environment's fault, not an internal error.
      expect(message, `room ${room}`).toMatch(/: the disk is full: free some space/);
      expect(run.code, `room ${room}: ${message}`).toBe(1);
      expect(readFileSync(layout.currentFile, 'utf8'), `room ${room}`).toBe(snapshotA);
      expect(
        readdirSync(layout.snapshotsDir).filter((name) => name.startsWith('.')),
        `room ${room}`,
      ).toEqual([]);
      expect(
        readdirSync(layout.dataDir).filter((name) => name.includes('.tmp')),
        `room ${room}`,
      ).toEqual([]);
      const verify = await runMmds(['verify'], env);
      expect(verify.code, `room ${room}: ${verify.stdout}`).toBe(0);
      rmSync(join(mountPoint, FILLER));
    }
    rmSync(join(mountPoint, FILLER), { force: true });
    expect(published).toBe(true);
    // Ran out of room at several different steps, not only at the first write.
    expect(new Set(failures.map((message) => message.replace(/\.staging-[^/]+/, ''))).size).toBeGreaterThan(
      3,
    );
    expect(readFileSync(layout.currentFile, 'utf8')).not.toBe(snapshotA);
    const verify = await runMmds(['verify'], env);
    expect(verify.code, verify.stdout).toBe(0);
    console.info(
      `disk full: ${diskBytes} byte tmpfs, ${failures.length} failed publishes (steps of ${stepBytes} bytes) before one fit; last: ${failures.at(-1)}`,
    );
  }, 300_000);
});

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout } from '../../src/store/layout.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Disk full during publish, on a real 2 MB tmpfs (mounting needs root; elsewhere the test is
 * skipped and says so). The store holds snapshot A and one more batch; a filler file leaves a
 * little less room each time than the new snapshot needs, from none at all to just too little, so
 * that the publish runs out of space at every step it has: staging each Parquet file, the
 * manifest, the rename, CURRENT. Each time: a one-line error naming the cause, CURRENT still on
 * A, no staging debris, and `mmds verify` clean. With room again, the publish goes through.
 */

const STEP_BYTES = 8_192;
const FILLER = 'filler';

function tryMount(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
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

describe('disk full during publish', () => {
  const temp = createTempDir('mmds-disk-full-');
  const mountPoint = join(temp.dir, 'small');
  const env = { MMDS_DATA_DIR: join(mountPoint, 'data') };
  const layout = resolveLayout(env.MMDS_DATA_DIR);
  let refusal: string | null = 'not tried';
  let snapshotA = '';

  beforeAll(async () => {
    execFileSync('mkdir', ['-p', mountPoint]);
    refusal = tryMount(mountPoint);
    if (refusal !== null) return;
    const ingest = await runMmds(['ingest-plan', join(SAMPLE_DATA, 'pipeline.json')], env);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await runMmds(['publish'], env)).code).toBe(0);
    snapshotA = readFileSync(layout.currentFile, 'utf8');
    const more = await runMmds(['ingest', 'ecb', join(SHARED_DATA, 'ecb/eurofxref.csv')], env);
    expect(more.code, more.stderr).toBe(0);
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
    for (let room = 0; room < 1_000_000 && !published; room += STEP_BYTES) {
      writeFileSync(join(mountPoint, FILLER), Buffer.alloc(Math.max(0, freeBytes(mountPoint) - room)));
      const run = await runMmds(['publish'], env, later);
      if (run.code === 0) {
        published = true;
        break;
      }
      const message = run.stderr.trim().split('\n').at(-1)!;
      failures.push(message);
      expect(message, `room ${room}`).toMatch(/^mmds: .*(no space left on device|ENOSPC)/i);
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
    console.info(`disk full: ${failures.length} failed publishes before one fit; last: ${failures.at(-1)}`);
  }, 120_000);
});

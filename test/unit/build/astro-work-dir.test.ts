import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAstroWorkDir, moveDir } from '../../../src/build/astro-work-dir.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/** A tmpfs on another device than the temporary directory, where Linux has one (/dev/shm). */
const OTHER_FS =
  existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev ? '/dev/shm' : null;

describe('the working directory of mmds build', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function tree(): string {
    const temp = createTempDir('mmds-workdir-');
    cleanups.push(temp.remove);
    const from = join(temp.dir, 'out');
    mkdirSync(join(from, 'api', 'v1'), { recursive: true });
    writeFileSync(join(from, 'index.html'), '<!doctype html>');
    writeFileSync(join(from, 'api', 'v1', 'index.json'), '{}');
    return from;
  }

  it('moves a tree to a path whose parents do not exist yet', () => {
    const from = tree();
    const to = join(from, '..', 'a', 'b', 'site.staging');
    moveDir(from, to);
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(join(to, 'api', 'v1', 'index.json'), 'utf8')).toBe('{}');
  });

  it.skipIf(!OTHER_FS)('moves a tree to another filesystem by copying it (EXDEV)', () => {
    const from = tree();
    const target = mkdtempSync(join(OTHER_FS!, 'mmds-workdir-'));
    cleanups.push(() => rmSync(target, { recursive: true, force: true }));
    moveDir(from, join(target, 'site.staging'));
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(join(target, 'site.staging', 'index.html'), 'utf8')).toBe('<!doctype html>');
  });

  it('lives in the project cache, one per build, and removes what killed builds left', () => {
    const root = createTempDir('mmds-root-');
    cleanups.push(root.remove);
    // A process that has exited: its pid names a directory no live build owns.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const abandoned = join(root.dir, 'node_modules', '.cache', 'mmds-build', `${dead}-0000`);
    mkdirSync(join(abandoned, 'server', '.prerender'), { recursive: true });
    const first = createAstroWorkDir(root.dir);
    const second = createAstroWorkDir(root.dir);
    expect(
      first.outDir.startsWith(join(root.dir, 'node_modules', '.cache', 'mmds-build', `${process.pid}-`)),
    ).toBe(true);
    expect(second.outDir).not.toBe(first.outDir);
    expect(existsSync(abandoned)).toBe(false);
    first.remove();
    expect(existsSync(join(first.outDir, '..'))).toBe(false);
    expect(existsSync(join(second.outDir, '..'))).toBe(true);
    second.remove();
  });
});

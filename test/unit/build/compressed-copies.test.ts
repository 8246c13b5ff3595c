import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compressedCopiesDir, openCompressedCopies } from '../../../src/build/compressed-copies.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/**
 * The build's cache of gzip and brotli copies: a copy is hard-linked into every dist/ that holds
 * it, so a later build that uses the same copy must not move the modification time of the files
 * an earlier dist/ serves (static hosts derive Last-Modified and ETags from it).
 */
describe('the cache of compressed copies', () => {
  const temps: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const temp of temps.splice(0)) temp.remove();
  });

  it("leaves an earlier dist/'s copies as they were when a later build reuses them", async () => {
    const temp = createTempDir('mmds-copies-');
    temps.push(temp);
    const cache = compressedCopiesDir(join(temp.dir, 'cache'));
    const copies = openCompressedCopies(cache);
    const body = Buffer.from(JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => i) }));
    const first = join(temp.dir, 'first.json');
    await copies.write(first, body, sha256(body));
    const before = [statSync(`${first}.gz`).mtimeMs, statSync(`${first}.br`).mtimeMs];
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = join(temp.dir, 'second.json');
    await copies.write(second, body, sha256(body));
    // The same copies (one inode), reused rather than made again.
    expect(statSync(`${second}.gz`).ino).toBe(statSync(`${first}.gz`).ino);
    expect([statSync(`${first}.gz`).mtimeMs, statSync(`${first}.br`).mtimeMs]).toEqual(before);
    // The use is recorded beside the copies when the build trims the cache.
    copies.trim();
    const used = JSON.parse(readFileSync(join(cache, 'used.json'), 'utf8')) as Record<string, number>;
    expect(Object.keys(used)).toEqual([sha256(body)]);
    expect([statSync(`${first}.gz`).mtimeMs, statSync(`${first}.br`).mtimeMs]).toEqual(before);
  });
});

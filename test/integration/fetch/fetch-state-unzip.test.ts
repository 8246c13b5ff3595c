import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFetchState } from '../../../src/fetch/fetch-state.ts';
import type { FetchedFile } from '../../../src/fetch/types.ts';
import { toSafeMemberPath, unzipFetchedFile } from '../../../src/fetch/unzip.ts';
import { zipFiles } from '../../helpers/loopback-publisher.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

function fetched(path: string, url = 'https://example.test/a.zip'): FetchedFile {
  return {
    path,
    url,
    member: null,
    retrieved_at: '2026-03-20T12:00:00Z',
    sha256: 'ab'.repeat(32),
    bytes: 10,
    etag: '"v1"',
    last_modified: 'Wed, 01 Jan 2025 00:00:00 GMT',
  };
}

describe('fetch state and unzip', () => {
  let temp: ReturnType<typeof createTempDir>;
  beforeEach(() => {
    temp = createTempDir();
  });
  afterEach(() => temp.remove());

  it('remembers committed validators across opens, atomically, keyed by URL', () => {
    const file = join(temp.dir, 'data', 'fetch-state.json');
    const state = openFetchState(file);
    expect(state.get('https://example.test/a.zip')).toBeNull();
    state.commit([fetched('/x'), fetched('/y', 'https://example.test/b.xml')]);
    expect(openFetchState(file).get('https://example.test/a.zip')).toEqual({
      etag: '"v1"',
      last_modified: 'Wed, 01 Jan 2025 00:00:00 GMT',
      sha256: 'ab'.repeat(32),
      retrieved_at: '2026-03-20T12:00:00Z',
    });
    expect(readdirSync(join(temp.dir, 'data'))).toEqual(['fetch-state.json']);
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
  });

  it('keeps what another open state of the same file committed (sources fetched side by side)', () => {
    const file = join(temp.dir, 'fetch-state.json');
    const ecb = openFetchState(file);
    const cftc = openFetchState(file);
    ecb.commit([fetched('/e', 'https://example.test/ecb.xml')]);
    cftc.commit([fetched('/c', 'https://example.test/cftc.zip')]);
    const reopened = openFetchState(file);
    expect(reopened.get('https://example.test/ecb.xml')).not.toBeNull();
    expect(reopened.get('https://example.test/cftc.zip')).not.toBeNull();
  });

  it('refuses a damaged state file with a way out', () => {
    const file = join(temp.dir, 'fetch-state.json');
    writeFileSync(file, '{not json');
    expect(() => openFetchState(file)).toThrow(/delete it to download every file afresh/);
  });

  it('unpacks every member with the archive provenance, keeping folders but not escapes', () => {
    const zipPath = join(temp.dir, 'multi.zip');
    writeFileSync(zipPath, zipFiles({ 'a.txt': Buffer.from('A'), 'sub/b.txt': Buffer.from('B') }));
    const files = unzipFetchedFile(fetched(zipPath), temp.dir);
    expect(files.map((file) => [file.member, readFileSync(file.path, 'utf8'), file.url, file.etag])).toEqual([
      ['a.txt', 'A', 'https://example.test/a.zip', '"v1"'],
      ['sub/b.txt', 'B', 'https://example.test/a.zip', '"v1"'],
    ]);
    expect(files[1]?.path).toBe(join(temp.dir, 'multi', 'sub', 'b.txt'));
    expect(toSafeMemberPath('../../etc/passwd')).toBe('etc/passwd');
    expect(toSafeMemberPath('/abs\\win.txt')).toBe('abs/win.txt');
  });
});

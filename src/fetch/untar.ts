import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseTar } from 'nanotar';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';
import type { FetchedFile } from './types.ts';

/**
 * Extracts the named members (matched on their base name, since a release tarball may or may not
 * put files under a folder) from a downloaded `.tar.gz`, returning one FetchedFile per member
 * with the archive's provenance. A missing member is a FetchError: the tarball is not what the
 * fetcher expects.
 */
export function extractTarGzMembers(
  archive: FetchedFile,
  members: readonly string[],
  workDir: string,
): FetchedFile[] {
  let tar: Uint8Array;
  try {
    // A copy: nanotar reads `data.buffer` from offset 0, and gunzipSync may hand back a view into
    // a larger buffer (it did with sources fetched side by side), so the members were not found.
    tar = new Uint8Array(gunzipSync(readFileSync(archive.path)));
  } catch (error) {
    throw new FetchError(
      archive.url,
      `the gzip archive is incomplete or damaged (${(error as Error).message}); download it again, or point ${MIRROR_SETTING} at a mirror`,
      { kind: 'bad_content', cause: error },
    );
  }
  const wanted = new Set(members);
  const items = parseTar(tar, { filter: (item) => item.type === 'file' && wanted.has(basename(item.name)) });
  const target = join(workDir, basename(archive.path).replace(/\.(tar\.gz|tgz)$/i, ''));
  mkdirSync(target, { recursive: true });
  return members.map((member) => {
    const item = items.find((candidate) => basename(candidate.name) === member);
    if (item?.data === undefined) {
      throw new FetchError(
        archive.url,
        `the tarball has no ${member}; check that the base URL (${MIRROR_SETTING}) points at an IANA tzdata release`,
        {
          kind: 'bad_content',
        },
      );
    }
    const path = join(target, member);
    const temporary = `${path}.part-${randomUUID()}`;
    writeFileSync(temporary, item.data);
    renameSync(temporary, path);
    return { ...archive, path, member: item.name };
  });
}

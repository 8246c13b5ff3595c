import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FetchedFile } from './types.ts';
import { inflateZip } from './zip-archive.ts';

/**
 * Turns a member name into a safe relative path: a member in a subfolder keeps its folders,
 * while `..`, absolute paths and backslashes cannot escape the unpack directory.
 */
export function toSafeMemberPath(member: string): string {
  const parts = member
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.' && part !== '..');
  return parts.length === 0 ? 'member' : parts.join('/');
}

/**
 * Unpacks every member of the zip at `path` into `<workDir>/<archive name>/` and returns the
 * members' names and local paths (`label` names the archive in errors: its URL, or the path).
 * The directory appears complete or not at all.
 */
export function unpackZip(
  path: string,
  label: string,
  workDir: string,
): Array<{ member: string; path: string }> {
  const bytes = readFileSync(path);
  const target = join(workDir, basename(path).replace(/\.zip$/i, ''));
  const staging = join(workDir, `.${basename(target)}.unpack-${randomUUID()}`);
  const open = new Map<string, number>();
  const members: string[] = [];
  try {
    inflateZip(bytes, label, (member, chunk, final) => {
      let fd = open.get(member);
      if (fd === undefined) {
        const path = join(staging, toSafeMemberPath(member));
        mkdirSync(dirname(path), { recursive: true });
        fd = openSync(path, 'w');
        open.set(member, fd);
        members.push(member);
      }
      writeSync(fd, chunk);
      if (final) {
        closeSync(fd);
        open.delete(member);
      }
    });
  } catch (error) {
    for (const fd of open.values()) closeSync(fd);
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  rmSync(target, { recursive: true, force: true });
  if (members.length > 0) renameSync(staging, target);
  else rmSync(staging, { recursive: true, force: true });
  return members.map((member) => ({ member, path: join(target, toSafeMemberPath(member)) }));
}

/**
 * Unpacks every member of a downloaded zip into `<workDir>/<archive name>/`, returning one
 * FetchedFile per member with `member` set and the archive's URL, digest, size and validators
 * (the provenance of a member is the archive it came in).
 */
export function unzipFetchedFile(archive: FetchedFile, workDir: string): FetchedFile[] {
  return unpackZip(archive.path, archive.url, workDir).map(({ member, path }) => ({
    ...archive,
    path,
    member,
  }));
}

// The output tree of `mmds build`: read the earlier one, write the new one beside it, swap it in.
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { MmdsError } from '../lib/errors.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from './build-manifest.ts';

/** Writes a file of the tree being built, with its folders. */
export function writeBody(root: string, file: string, body: string): void {
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}

/**
 * Puts a file of one tree into another: a hard link (a built file is never written in place;
 * the next build writes a new tree), a copy where linking fails (another device). The folder is
 * made only when the link finds none (a build takes thousands of files into a few folders).
 */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync(from)) {
      copyFileSync(from, to);
      return;
    }
  }
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

export function readExistingManifest(outDir: string): BuildManifest | null {
  const path = join(outDir, BUILD_MANIFEST_FILE);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as BuildManifest;
  } catch {
    return null;
  }
}

/** The output directory is something the build must not replace. */
export class OutputDirError extends MmdsError {
  constructor(message: string) {
    super('output_dir_refused', message);
    this.name = 'OutputDirError';
  }
}

/**
 * The build replaces its output directory whole, so it must only ever replace an earlier build:
 * never a file, a device, or a directory someone else filled.
 */
export function assertReplaceable(outDir: string): void {
  if (!existsSync(outDir)) return;
  const stat = statSync(outDir);
  const empty = stat.isDirectory() && readdirSync(outDir).length === 0;
  if (!stat.isDirectory() || (!empty && !existsSync(join(outDir, BUILD_MANIFEST_FILE)))) {
    throw new OutputDirError(
      `${outDir} exists and is not an earlier mmds build; choose another --out or remove it`,
    );
  }
}

export function swapInto(staging: string, outDir: string): void {
  const old = `${outDir}.old`;
  rmSync(old, { recursive: true, force: true });
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(staging, outDir);
  rmSync(old, { recursive: true, force: true });
}

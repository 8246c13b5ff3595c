import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { linkOrCopy } from './dist-tree.ts';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Brotli's quality by size, measured on the 516 files one new ECB day makes a build write on the
 * real data (one thread, 2026-11-27): level 11 took 13.8 s on the 458 files up to 256 KB, level
 * 10 3.3 s for copies 5 % larger; on the 58 files above (the ECB series' histories, up to 0.7 MB)
 * level 10 took 16.7 s, level 5 0.7 s for copies 39 % larger, still smaller than gzip's. The
 * build's time is what keeps the public tier behind a release, so: 10 up to 256 KB, 5 above.
 * Gzip (the copy for clients without brotli) at zlib's default level 6: on the 500 files of the
 * same day, level 9 took 4.3 s, level 6 0.9 s, for copies 4 % (files up to 256 KB) and 9 %
 * (above) larger.
 */
const BROTLI_LARGE_BYTES = 256 * 1024;
const BROTLI_QUALITY = { small: 10, large: 5 } as const;
const GZIP_LEVEL = 6;
/**
 * Names the settings the copies are made with: a change of level or quality must change it, so
 * that copies made the old way are not reused.
 */
const SETTINGS = `gz${GZIP_LEVEL}-br${BROTLI_QUALITY.small}-${BROTLI_QUALITY.large}at256k`;
/** The cache is trimmed to this size after a build, least recently used entries first. */
const CACHE_MAX_BYTES = 512 * 1024 * 1024;
/**
 * When each entry was last used by a build (SHA-256 to ms), written at trim. Not the copies' own
 * times: a copy is hard-linked into every dist/ that holds it, so its modification time is that
 * of the files served (static hosts derive Last-Modified and ETags from it), which a later build
 * must not move.
 */
const USED_FILE = 'used.json';

/** Sizes of the two copies written beside a file. */
export interface CopySizes {
  gzip: number;
  br: number;
}

/**
 * The gzip and brotli copies of built files, kept in a cache keyed by the SHA-256 of the bytes.
 *
 * Most of a build's files come out byte for byte as in the build before (a new ECB day changes
 * the FX and series files, not the reference lists), and brotli is the
 * slowest part of writing dist/: about half of a cold build of the sample. A file whose bytes
 * were compressed before gets its copies from the cache (a hard link, or a copy across file
 * systems); the others are compressed on the thread pool, several at once.
 */
export interface CompressedCopies {
  /** Writes `<path>.gz` and `<path>.br` for a body whose SHA-256 (hex) is `sha256`. */
  write(path: string, body: Buffer, sha256: string): Promise<CopySizes>;
  /**
   * Makes the cached copies of a body ahead of `write` (which then only links them): the build
   * calls it as each payload is rendered, so compression runs on the thread pool while the main
   * thread renders the next files.
   */
  prepare(body: Buffer, sha256: string): Promise<void>;
  /** Trims the cache to its size bound; call once the build has written every copy. */
  trim(): void;
}

/** The cache directory of compressed copies under the build's cache directory. */
export function compressedCopiesDir(buildCacheDir: string): string {
  return join(buildCacheDir, 'compressed', SETTINGS);
}

/** Opens the cache of compressed copies in `dir` (created when missing). */
export function openCompressedCopies(dir: string): CompressedCopies {
  mkdirSync(dir, { recursive: true });
  const limit = createLimit(Math.max(2, availableParallelism()));
  // The entries this build used, recorded as used when it trims.
  const used = new Set<string>();
  const ensure = (body: Buffer, sha256: string) => {
    used.add(sha256);
    return ensureCopies(dir, body, sha256);
  };
  return {
    write: (path, body, sha256) => limit(() => writeCopies(ensure, path, body, sha256)),
    prepare: (body, sha256) => limit(async () => void (await ensure(body, sha256))),
    trim: () => trimCache(dir, CACHE_MAX_BYTES, used),
  };
}

async function writeCopies(
  ensure: (body: Buffer, sha256: string) => Promise<{ gz: string; br: string }>,
  path: string,
  body: Buffer,
  sha256: string,
): Promise<CopySizes> {
  const { gz, br } = await ensure(body, sha256);
  linkOrCopy(gz, `${path}.gz`);
  linkOrCopy(br, `${path}.br`);
  return { gzip: statSync(gz).size, br: statSync(br).size };
}

/** Makes the cached copies of a body unless they exist; their paths. */
async function ensureCopies(dir: string, body: Buffer, sha256: string): Promise<{ gz: string; br: string }> {
  const cached = join(dir, sha256.slice(0, 2), sha256);
  const gz = `${cached}.gz`;
  const br = `${cached}.br`;
  if (!existsSync(gz) || !existsSync(br)) {
    const quality = body.length > BROTLI_LARGE_BYTES ? BROTLI_QUALITY.large : BROTLI_QUALITY.small;
    const [gzBody, brBody] = await Promise.all([
      gzipAsync(body, { level: GZIP_LEVEL }),
      brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }),
    ]);
    mkdirSync(join(dir, sha256.slice(0, 2)), { recursive: true });
    // Written whole under a private name, then renamed: a build beside this one, or one killed
    // halfway, never leaves a half-written copy under the name that is reused.
    publish(gz, gzBody);
    publish(br, brBody);
  }
  return { gz, br };
}

function publish(path: string, body: Buffer): void {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, body);
  renameSync(temp, path);
}

/**
 * Records `used` as used now, then removes the least recently used entries (by that record, else
 * the time the copy was made) until the cache holds at most `maxBytes`. Two builds trimming at
 * once may each miss the other's record: an entry then looks older than it is, which costs at
 * most a compression again (a dist/ keeps its own links to the copies it holds).
 */
function trimCache(dir: string, maxBytes: number, used: ReadonlySet<string>): void {
  const usedFile = join(dir, USED_FILE);
  let lastUse: Record<string, number> = {};
  try {
    lastUse = JSON.parse(readFileSync(usedFile, 'utf8')) as Record<string, number>;
  } catch {
    // None yet, or unreadable: the copies' own times stand in.
  }
  const now = Date.now();
  for (const sha256 of used) lastUse[sha256] = now;
  const entries: Array<{ path: string; sha256: string; bytes: number; used: number }> = [];
  for (const bucket of readdirSync(dir)) {
    const bucketDir = join(dir, bucket);
    if (!statSync(bucketDir).isDirectory()) continue;
    for (const name of readdirSync(bucketDir)) {
      const path = join(bucketDir, name);
      const stat = statSync(path);
      const sha256 = name.replace(/\..*$/, '');
      entries.push({ path, sha256, bytes: stat.size, used: lastUse[sha256] ?? stat.mtimeMs });
    }
  }
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  entries.sort((a, b) => a.used - b.used);
  for (const entry of entries) {
    if (total <= maxBytes) break;
    rmSync(entry.path, { force: true });
    delete lastUse[entry.sha256];
    total -= entry.bytes;
  }
  const kept = new Set(entries.filter((entry) => existsSync(entry.path)).map((entry) => entry.sha256));
  publish(
    usedFile,
    Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(lastUse).filter(([sha]) => kept.has(sha))))),
  );
}

/** Runs at most `size` tasks at once. */
function createLimit(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: Array<() => void> = [];
  return async (task) => {
    if (running >= size) await new Promise<void>((resolve) => queue.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      queue.shift()?.();
    }
  };
}

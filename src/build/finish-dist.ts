import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { BuiltFile } from './build-manifest.ts';
import { isBulkFile } from './bulk-files.ts';
import type { CompressedCopies } from './compressed-copies.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8; header=present',
  '.ics': 'text/calendar; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.parquet': 'application/vnd.apache.parquet',
  // The bulk .csv.gz files are gzip files, not CSV sent with a Content-Encoding.
  '.gz': 'application/gzip',
};

/** Content type of a built file by its extension. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
}

/**
 * The strong ETag the build gives a file from its bytes' SHA-256 (hex): a bulk file the full hash,
 * as its listing gives it; any other the first 32 base64url characters, enough for a cache key.
 */
export function builtFileEtag(file: string, sha256: string): string {
  return isBulkFile(file)
    ? `"${sha256}"`
    : `"${Buffer.from(sha256, 'hex').toString('base64url').slice(0, 32)}"`;
}

/** Compressed copies pay off only above a few hundred bytes. */
const COMPRESS_MIN_BYTES = 256;

/** Whether a file of dist/ gets gzip and brotli copies: a text type, and a few hundred bytes or more. */
export function isCompressible(file: string, bytes: number): boolean {
  return bytes >= COMPRESS_MIN_BYTES && /json|html|svg|css|javascript|text|xml/.test(contentTypeOf(file));
}

/** Lists every regular file under a directory (relative paths, sorted). */
export function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listFiles(root, path) : [relative(root, path)];
    })
    .sort();
}

/**
 * Writes gzip and brotli copies beside each compressible file (from the cache of copies when
 * the same bytes were compressed before) and returns every file's size, SHA-256, strong ETag
 * (from `endpointEtags` for an endpoint's answer, else of the bytes) and content type for the
 * build manifest.
 */
export async function compressAndDescribe(
  outDir: string,
  skip: ReadonlySet<string>,
  copies: CompressedCopies,
  /** Files already described (taken unchanged from an earlier build, with their copies). */
  known: ReadonlyMap<string, BuiltFile> = new Map(),
  /** The ETags of the endpoint files rendered, by path under dist/ (no leading slash). */
  endpointEtags: ReadonlyMap<string, string> = new Map(),
): Promise<BuiltFile[]> {
  const described = listFiles(outDir).map(async (file): Promise<BuiltFile | null> => {
    const entry = known.get(file);
    if (entry) return entry;
    if (isBulkFile(file)) return describeBulkFile(outDir, file);
    if (file.endsWith('.gz') || file.endsWith('.br') || skip.has(file)) return null;
    const path = join(outDir, file);
    const body = readFileSync(path);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const contentType = contentTypeOf(file);
    const sizes = isCompressible(file, body.length) ? await copies.write(path, body, sha256) : null;
    return {
      file: `/${file}`,
      bytes: body.length,
      etag: endpointEtags.get(file) ?? builtFileEtag(file, sha256),
      content_type: contentType,
      gzip_bytes: sizes?.gzip ?? null,
      br_bytes: sizes?.br ?? null,
      sha256,
    };
  });
  return (await Promise.all(described)).filter((file) => file !== null);
}

/**
 * A bulk file (src/build/bulk-files.ts) is already compressed (zstd Parquet, gzip CSV): no
 * copies; its strong ETag is its full SHA-256, as the bulk listing gives it.
 */
function describeBulkFile(outDir: string, file: string): BuiltFile {
  const body = readFileSync(join(outDir, file));
  const sha256 = createHash('sha256').update(body).digest('hex');
  return {
    file: `/${file}`,
    bytes: body.length,
    etag: builtFileEtag(file, sha256),
    content_type: contentTypeOf(file),
    gzip_bytes: null,
    br_bytes: null,
    sha256,
  };
}

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { isBulkFile } from './bulk-files.ts';

/** What the build manifest records of one file. */
export interface BuiltFile {
  /** Path under dist/, with a leading slash. */
  file: string;
  bytes: number;
  /** Strong ETag: a hash of the bytes. */
  etag: string;
  content_type: string;
  gzip_bytes: number | null;
  br_bytes: number | null;
  /** Bulk files only: SHA-256 of the bytes, lowercase hex (their ETag is this, quoted). */
  sha256?: string;
}

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

/** Compressed copies pay off only above a few hundred bytes. */
const COMPRESS_MIN_BYTES = 256;
/**
 * Above this size brotli's densest level (11) is left for level 10: on the public series
 * histories (about 100 files up to 0.7 MB on the real data) level 11 took 26 s of the build,
 * level 10 6 s, for copies 9 % larger (still half the size of gzip's).
 */
const BROTLI_MAX_QUALITY_BYTES = 256 * 1024;

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
 * Writes gzip and brotli copies beside each compressible file and returns every file's
 * size, strong ETag and content type for the build manifest.
 */
export function compressAndDescribe(outDir: string, skip: ReadonlySet<string>): BuiltFile[] {
  const described: BuiltFile[] = [];
  for (const file of listFiles(outDir)) {
    if (isBulkFile(file)) {
      described.push(describeBulkFile(outDir, file));
      continue;
    }
    if (file.endsWith('.gz') || file.endsWith('.br') || skip.has(file)) continue;
    const path = join(outDir, file);
    const body = readFileSync(path);
    const contentType = contentTypeOf(file);
    let gzipBytes: number | null = null;
    let brBytes: number | null = null;
    if (body.length >= COMPRESS_MIN_BYTES && /json|html|svg|css|javascript|text|xml/.test(contentType)) {
      const gz = gzipSync(body, { level: 9 });
      const quality = body.length > BROTLI_MAX_QUALITY_BYTES ? 10 : 11;
      const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } });
      writeFileSync(`${path}.gz`, gz);
      writeFileSync(`${path}.br`, br);
      gzipBytes = gz.length;
      brBytes = br.length;
    }
    described.push({
      file: `/${file}`,
      bytes: body.length,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
      content_type: contentType,
      gzip_bytes: gzipBytes,
      br_bytes: brBytes,
    });
  }
  return described;
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
    etag: `"${sha256}"`,
    content_type: contentTypeOf(file),
    gzip_bytes: null,
    br_bytes: null,
    sha256,
  };
}

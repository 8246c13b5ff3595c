import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkSnapshot } from '../api/v1/bulk.ts';
import type { BuiltFile } from '../build/build-manifest.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../build/build-manifest.ts';
import { isBulkFile } from '../build/bulk-files.ts';
import { SITE_CACHE_CONTROL } from '../contract/header-rules.ts';

/** One built file held in memory with its compressed copies and headers. */
export interface StaticEntry {
  body: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  etag: string;
  contentType: string;
  cacheControl: string;
}

/** A pre-rendered public request: its file and the route (by id) it answers. */
export interface StaticRequestHit {
  entry: StaticEntry;
  routeId: string;
}

/** The built public files of one `mmds build`, in memory (no disk read per request). */
export interface StaticSite {
  readonly snapshot: string;
  readonly generatedAt: string;
  /** The payload file of a public request (path plus at most one filter), or null. */
  lookupRoute(path: string, search: URLSearchParams): StaticEntry | null;
  /**
   * The pre-rendered request whose raw path and query (`/api/v1/fx/ecb?currency=USD`) are exactly
   * this text, or null: the server's fast path, one Map lookup with no URL parsing. Any other
   * spelling of the same request (escapes, reordering) is null and takes the general path.
   */
  lookupRequest(target: string): StaticRequestHit | null;
  /** A file by its own path (pages, assets), or null. */
  lookupFile(path: string): StaticEntry | null;
  readonly fileCount: number;
  /** The bulk files' listing, newest snapshot first (empty before the build wrote any). */
  readonly bulk: readonly BulkSnapshot[];
  /** A bulk file by its path: read from disk per request (large files are not held in memory). */
  lookupBulkFile(path: string): BulkFileEntry | null;
}

/** A bulk file on disk: where it is and how it is answered. */
export interface BulkFileEntry {
  /** Absolute path under dist/. */
  path: string;
  bytes: number;
  etag: string;
  contentType: string;
}

/** The key of a request: the path and its single query parameter, if any. */
function requestKey(path: string, query: Record<string, string>): string {
  const entries = Object.entries(query);
  return entries.length === 0 ? path : `${path}?${entries[0]![0]}=${entries[0]![1]}`;
}

/** The request line's target of a pre-rendered request, as a client writes it (values escaped). */
function rawRequestKey(path: string, query: Record<string, string>): string {
  const entries = Object.entries(query);
  if (entries.length === 0) return path;
  return `${path}?${entries.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`;
}

/**
 * Loads dist/ (as described by its build manifest) into memory. Returns null when nothing has
 * been built yet; every public request is then rendered live.
 */
export function loadStaticSite(distDir: string): StaticSite | null {
  const manifestPath = join(distDir, BUILD_MANIFEST_FILE);
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as BuildManifest;
  const cacheByFile = new Map(manifest.routes.map((route) => [`/${route.file}`, route.cache_control]));
  const files = new Map<string, StaticEntry>();
  const bulkFiles = new Map<string, BulkFileEntry>();
  for (const file of manifest.files) {
    if (isBulkFile(file.file)) {
      const { bytes, etag, content_type: contentType } = file;
      bulkFiles.set(file.file, { path: join(distDir, file.file), bytes, etag, contentType });
    } else files.set(file.file, loadEntry(distDir, file, cacheByFile.get(file.file)));
  }
  const routes = new Map<string, StaticEntry>();
  const requests = new Map<string, StaticRequestHit>();
  for (const route of manifest.routes) {
    const entry = files.get(`/${route.file}`);
    if (!entry || route.path === '') continue;
    routes.set(requestKey(route.path, route.query), entry);
    if (route.route_id !== null)
      requests.set(rawRequestKey(route.path, route.query), { entry, routeId: route.route_id });
  }
  return {
    snapshot: manifest.snapshot,
    generatedAt: manifest.generated_at,
    fileCount: files.size + bulkFiles.size,
    bulk: manifest.bulk ?? [],
    lookupBulkFile(path) {
      return bulkFiles.get(path) ?? null;
    },
    lookupRoute(path, search) {
      const names = [...search.keys()];
      if (names.length > 1) return null;
      const query = names.length === 1 ? { [names[0]!]: search.get(names[0]!)! } : {};
      return routes.get(requestKey(path, query)) ?? null;
    },
    lookupRequest(target) {
      return requests.get(target) ?? null;
    },
    lookupFile(path) {
      return (
        files.get(path) ??
        files.get(`${path.replace(/\/$/, '')}/index.html`) ??
        files.get(`${path}.html`) ??
        null
      );
    },
  };
}

function loadEntry(distDir: string, file: BuiltFile, cacheControl: string | undefined): StaticEntry {
  const path = join(distDir, file.file);
  return {
    body: readFileSync(path),
    gzip: file.gzip_bytes === null ? null : readFileSync(`${path}.gz`),
    br: file.br_bytes === null ? null : readFileSync(`${path}.br`),
    etag: file.etag,
    contentType: file.content_type,
    cacheControl: cacheControl ?? SITE_CACHE_CONTROL,
  };
}

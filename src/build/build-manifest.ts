import type { BulkSnapshot } from '../api/v1/bulk.ts';

/** What the build manifest records of one file. */
export interface BuiltFile {
  /** Path under dist/, with a leading slash. */
  file: string;
  bytes: number;
  /**
   * Strong ETag: of an endpoint's answer the server's for the same request (api/v1/resource-etag.ts,
   * from its identity, not its bytes); of any other file (pages, assets, bulk files) its bytes' hash.
   */
  etag: string;
  content_type: string;
  gzip_bytes: number | null;
  br_bytes: number | null;
  /**
   * SHA-256 of the bytes, lowercase hex: what `mmds upload` checks the file against (a bulk file's
   * ETag is this, quoted). Absent in manifests written before every file had it.
   */
  sha256?: string;
}

/** A request the static host answers from a file: path, exact query, file, status, caching. */
export interface StaticRoute {
  path: string;
  query: Record<string, string>;
  file: string;
  status: number;
  cache_control: string;
  route_id: string | null;
}

/** `dist/build-manifest.json`: what the build wrote and how requests map to files. */
export interface BuildManifest {
  format: 1;
  snapshot: string;
  pipeline_version: string;
  generated_at: string;
  routes: StaticRoute[];
  files: BuiltFile[];
  /** The bulk files in dist/ by snapshot, newest first (src/build/bulk-files.ts); absent before they existed. */
  bulk?: BulkSnapshot[];
  /**
   * A build of the pages and assets only (`mmds build --site-only`): no payload files, so the
   * server answers every public route from the snapshot. Not for a CDN; a full build replaces it.
   */
  site_only?: boolean;
  /** A digest of the code, pages, docs and calendars it was rendered with (src/build/reuse.ts). */
  inputs_digest?: string;
  /**
   * Files taken unchanged from an earlier build, by path under dist/ (no leading slash), with the
   * snapshot they were rendered from (their `meta.snapshot`); every other file is of `snapshot`.
   */
  rendered_from?: Record<string, string>;
}

// The header rules are the server's (src/contract/header-rules.ts); the build writes the same ones.
export { NO_STORE, publicCacheControl, SITE_CACHE_CONTROL } from '../contract/header-rules.ts';

/** The file name of the manifest inside dist/. */
export const BUILD_MANIFEST_FILE = 'build-manifest.json';

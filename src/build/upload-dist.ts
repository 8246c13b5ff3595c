import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { API_INDEX_FILE, API_INDEX_MAX_AGE, API_INDEX_PATHS } from '../api/v1/api-index.ts';
import { bulkFileCacheControl } from '../api/v1/bulk.ts';
import { MmdsError } from '../lib/errors.ts';
import { mapConcurrent } from '../lib/map-concurrent.ts';
import type { ObjectStore } from '../store/object-store/object-store.ts';
import {
  BUILD_MANIFEST_FILE,
  type BuildManifest,
  NO_STORE,
  publicCacheControl,
  SITE_CACHE_CONTROL,
} from './build-manifest.ts';
import { isBulkFile } from './bulk-files.ts';
import { readExistingManifest } from './dist-tree.ts';

/**
 * `mmds build --to s3://bucket/prefix`: dist/ into a bucket a CDN uses as its origin
 * (docs/deploy-static.md, "The static tier from the same bucket"). A bucket answers a key with
 * the headers stored with it, so each object is uploaded with its file's Content-Type and the
 * Cache-Control mmds serve sends for it. No precompressed copies: a bucket cannot choose between
 * them by Accept-Encoding, and CDNs compress an identity origin themselves.
 */

/** Objects looked up or uploaded at once. */
const TRANSFERS = 8;

/** One object the upload puts (or finds already there) in the bucket. */
export interface PlannedObject {
  /** Key under the prefix: the file's path under dist/, or a request path (an alias). */
  key: string;
  /** The local file of its bytes. */
  path: string;
  sha256: string;
  bytes: number;
  contentType: string;
  cacheControl: string;
}

/** What an upload did. */
export interface DistUploadResult {
  url: string;
  snapshot: string;
  /** Objects of this build: files, request-path aliases and the build manifest. */
  objects: number;
  aliases: number;
  uploaded: { objects: number; bytes: number };
  /** Objects the bucket held already with the same sha256, type and Cache-Control. */
  unchanged: number;
  /** How many objects under the prefix belong to no file of this build (older builds'; never deleted here). */
  stale: number;
  /** Their keys, for an operator to expire (docs/deploy-static.md). */
  stale_keys: string[];
  /**
   * Keys of `cot_reports` bulk files this build no longer has, deleted by the upload: such a file
   * holds a report outside the public window (withheld or pruned; docs/api/bulk.md), which the
   * bucket must not keep serving.
   */
  deleted_keys: string[];
}

/** A bulk COT file's key: `api/v1/bulk/<snapshot>/cot_reports.<format>`. */
const BULK_COT_KEY = /^api\/v1\/bulk\/\d{8}T\d{6}Z-[0-9a-f]{8}\/cot_reports\.(?:parquet|csv\.gz)$/;

/** dist/ cannot be uploaded as it is (no build, a site-only build, a file changed since the build). */
export class DistUploadError extends MmdsError {
  constructor(message: string) {
    super('dist_upload_failed', message);
    this.name = 'DistUploadError';
  }
}

/**
 * The Cache-Control of each file of a build (path with its leading slash): its route's (a
 * payload's endpoint max-age, `no-store` for error bodies), the endpoint list's, `immutable` for
 * bulk files (300 s for the COT window's), SITE_CACHE_CONTROL for everything else: what mmds serve sends for that file.
 */
export function cacheControlOfFile(manifest: BuildManifest): (file: string) => string {
  const byFile = new Map(manifest.routes.map((route) => [`/${route.file}`, route.cache_control]));
  byFile.set(`/${API_INDEX_FILE}`, publicCacheControl(API_INDEX_MAX_AGE));
  return (file) => byFile.get(file) ?? (isBulkFile(file) ? bulkFileCacheControl(file) : SITE_CACHE_CONTROL);
}

/**
 * Every object of an upload of dist/, in the order they go up: assets (and bulk files) first,
 * then the API payloads and their request-path aliases, then the HTML pages, and the build
 * manifest last; so a CDN never reaches a page or payload whose assets are not there yet, and the
 * manifest in the bucket names a complete upload. Reads and hashes every file first: a file that
 * is missing or no longer matches its ETag in build-manifest.json refuses the whole upload.
 */
export function planDistUpload(distDir: string): {
  manifest: BuildManifest;
  phases: PlannedObject[][];
  aliases: number;
} {
  const manifest = readExistingManifest(distDir);
  if (manifest === null)
    throw new DistUploadError(
      `no build in ${distDir} (no readable ${BUILD_MANIFEST_FILE}): run mmds build first`,
    );
  if (manifest.site_only)
    throw new DistUploadError(
      `${distDir} holds a site-only build (no payload files): not for a CDN; run a full mmds build`,
    );
  const cacheControl = cacheControlOfFile(manifest);
  const byKey = new Map<string, PlannedObject>();
  for (const file of manifest.files) {
    const key = file.file.slice(1);
    const path = join(distDir, key);
    if (!existsSync(path))
      throw new DistUploadError(`${path} is in ${BUILD_MANIFEST_FILE} but missing: run mmds build again`);
    byKey.set(key, {
      key,
      path,
      sha256: verifiedSha256(path, file),
      bytes: file.bytes,
      contentType: file.content_type,
      cacheControl: cacheControl(file.file),
    });
  }
  const aliases = listAliases(manifest, byKey);
  const payloadFiles = new Set(manifest.routes.map((route) => route.file));
  const assets: PlannedObject[] = [];
  const payloads: PlannedObject[] = [];
  const pages: PlannedObject[] = [];
  for (const object of byKey.values()) {
    if (object.key.endsWith('.html')) pages.push(object);
    else if (payloadFiles.has(object.key) || object.key === API_INDEX_FILE) payloads.push(object);
    else assets.push(object);
  }
  const manifestPath = join(distDir, BUILD_MANIFEST_FILE);
  const manifestBytes = readFileSync(manifestPath);
  const last: PlannedObject = {
    key: BUILD_MANIFEST_FILE,
    path: manifestPath,
    sha256: createHash('sha256').update(manifestBytes).digest('hex'),
    bytes: manifestBytes.length,
    contentType: 'application/json; charset=utf-8',
    // Bookkeeping of the upload, not a page: no cache may keep an older one.
    cacheControl: NO_STORE,
  };
  return { manifest, phases: [assets, [...payloads, ...aliases], pages, [last]], aliases: aliases.length };
}

/**
 * Request paths a bucket cannot map to their file (the API's extensionless paths: `/api/v1/status`
 * is `api/v1/status/index.json`), uploaded again under the request path with the file's headers,
 * so a CDN needs no rewrite for them. A bucket's keys are flat, so `api/v1/markets/cot` and
 * `api/v1/markets/cot/gold` coexist. Requests with a query (filters) cannot be keys: they need
 * the CDN's rewrite (docs/deploy-static.md). A key that is also a file keeps the file.
 */
function listAliases(manifest: BuildManifest, files: ReadonlyMap<string, PlannedObject>): PlannedObject[] {
  const requests = manifest.routes
    .filter((route) => route.status === 200 && route.path !== '' && Object.keys(route.query).length === 0)
    .map((route) => ({ path: route.path, file: route.file }));
  for (const path of API_INDEX_PATHS) requests.push({ path, file: API_INDEX_FILE });
  const aliases = new Map<string, PlannedObject>();
  for (const request of requests) {
    const key = request.path.slice(1);
    const target = files.get(request.file);
    if (key === '' || key.endsWith('/') || files.has(key) || aliases.has(key) || !target) continue;
    aliases.set(key, { ...target, key });
  }
  return [...aliases.values()];
}

/**
 * The file's SHA-256, checked against the one the build recorded (an endpoint file's ETag is not of
 * its bytes: api/v1/resource-etag.ts). A bulk file is checked by its size (the hash of gigabytes
 * is in the manifest); a manifest from before every file had its sha256 is built again.
 */
function verifiedSha256(path: string, file: BuildManifest['files'][number]): string {
  const changed = () =>
    new DistUploadError(
      `${path} is not the file ${BUILD_MANIFEST_FILE} describes (changed since the build?): run mmds build again`,
    );
  if (file.sha256 === undefined)
    throw new DistUploadError(
      `${BUILD_MANIFEST_FILE} gives no sha256 for ${file.file} (written by an older mmds build): run mmds build --force`,
    );
  if (isBulkFile(file.file)) {
    if (statSync(path).size !== file.bytes) throw changed();
    return file.sha256;
  }
  const body = readFileSync(path);
  if (body.length !== file.bytes || createHash('sha256').update(body).digest('hex') !== file.sha256)
    throw changed();
  return file.sha256;
}

/** Options of uploadDist. */
export interface DistUploadOptions {
  /** Reports progress, with a count of objects checked. */
  progress?: (message: string, count?: { done: number; total: number }) => void;
  /** Called with each key uploaded (not with the unchanged ones). */
  onUpload?: (key: string) => void;
}

/**
 * Uploads a built dist/ into the bucket in planDistUpload's order, each phase complete before the
 * next. An object whose key already holds the same bytes (the sha256 stored in its metadata at
 * upload) with the same Content-Type and Cache-Control is left alone: a second upload of the same
 * build puts nothing but looks up every key. Objects of older builds are left (listed as `stale`),
 * but for the bulk COT files this build does not have: deleted (they hold reports outside the window).
 */
export async function uploadDist(
  store: ObjectStore,
  distDir: string,
  options: DistUploadOptions = {},
): Promise<DistUploadResult> {
  const { manifest, phases, aliases } = planDistUpload(distDir);
  const total = phases.reduce((sum, phase) => sum + phase.length, 0);
  const uploaded = { objects: 0, bytes: 0 };
  let unchanged = 0;
  let done = 0;
  for (const phase of phases)
    await mapConcurrent(phase, TRANSFERS, async (object) => {
      if (await holds(store, object)) unchanged++;
      else {
        await store.putFile(object.key, object.path, {
          contentType: object.contentType,
          cacheControl: object.cacheControl,
          metadata: { sha256: object.sha256 },
        });
        uploaded.objects++;
        uploaded.bytes += object.bytes;
        options.onUpload?.(object.key);
      }
      done++;
      options.progress?.(`build: uploading to ${store.url}…`, { done, total });
    });
  const keys = new Set(phases.flat().map((object) => object.key));
  const gone = (await store.list('')).filter((key) => !keys.has(key));
  const deleted = gone.filter((key) => BULK_COT_KEY.test(key));
  await mapConcurrent(deleted, TRANSFERS, (key) => store.delete(key));
  const stale = gone.filter((key) => !BULK_COT_KEY.test(key));
  return {
    url: store.url,
    snapshot: manifest.snapshot,
    objects: total,
    aliases,
    uploaded,
    unchanged,
    stale: stale.length,
    stale_keys: stale,
    deleted_keys: deleted,
  };
}

/** Whether the bucket holds the object as planned: same sha256 (our metadata), size, type and Cache-Control. */
async function holds(store: ObjectStore, object: PlannedObject): Promise<boolean> {
  const head = await store.head(object.key);
  return (
    head !== null &&
    head.size === object.bytes &&
    head.metadata?.sha256 === object.sha256 &&
    head.contentType === object.contentType &&
    head.cacheControl === object.cacheControl
  );
}

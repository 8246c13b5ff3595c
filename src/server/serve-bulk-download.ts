import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import {
  BULK_FILE_NAME,
  BULK_LATEST,
  BULK_LISTING_MAX_AGE,
  BULK_PATH,
  bulkFileCacheControl,
  renderBulkListing,
} from '../api/v1/bulk.ts';
import type { Caller } from '../contract/authorise.ts';
import { ApiError, invalidParameter, notFound, unavailable } from '../contract/errors.ts';
import { KEYED_CACHE_CONTROL, publicCacheControl } from '../contract/header-rules.ts';
import { SNAPSHOT_ID_PATTERN } from '../store/layout.ts';
import type { HandlerDeps, RequestState } from './handler-deps.ts';
import {
  compressBody,
  createResponse,
  matchesEtag,
  type Representation,
  respondWith,
  respondWithFile,
} from './http-response.ts';
import type { ResponseHeaders } from './response-headers.ts';
import type { BulkFileEntry, StaticSite } from './static-site.ts';

/**
 * Whether a path is the public bulk listing, a snapshot's listing or file, or a `latest`
 * redirect (`/api/v1/bulk/full…`, the keyed full store, is not).
 */
export function isBulkDownloadPath(pathname: string): boolean {
  if (pathname === BULK_PATH) return true;
  if (!pathname.startsWith(`${BULK_PATH}/`)) return false;
  const first = pathname.slice(BULK_PATH.length + 1).split('/')[0]!;
  return first === BULK_LATEST || SNAPSHOT_ID_PATTERN.test(first);
}

/**
 * Answers the public bulk paths from the build in service (dist/), whichever snapshot the API
 * serves: the listings as built, `latest` as a 302 to the newest snapshot with bulk files, and a
 * file by a lookup of its exact path in the build manifest (so nothing outside the listed files
 * is ever opened), streamed from disk with its sha256 as strong ETag. Throws ApiErrors.
 */
export async function serveBulkDownload(
  request: Request,
  url: URL,
  headers: ResponseHeaders,
  state: RequestState,
  deps: HandlerDeps,
  caller: Caller | null,
): Promise<Response> {
  const [name] = url.searchParams.keys();
  if (name !== undefined)
    throw invalidParameter(name.slice(0, 40), 'no query parameters (the bulk paths take none)');
  const site = deps.staticSite();
  if (!site && !deps.snapshots.current()) throw unavailable('no snapshot has been published yet', 30);
  const segments = url.pathname === BULK_PATH ? [] : url.pathname.slice(BULK_PATH.length + 1).split('/');
  const shared = (cacheControl: string) =>
    headers.set('Cache-Control', caller ? KEYED_CACHE_CONTROL : cacheControl);
  if (segments[0] === BULK_LATEST) {
    const newest = site?.bulk[0]?.snapshot;
    const file = segments[1];
    if (!newest) throw notFound('bulk files (none has been built)');
    if (segments.length > 2 || (file !== undefined && !BULK_FILE_NAME.test(file)))
      throw notFound('bulk file (/api/v1/bulk lists the files)');
    shared(publicCacheControl(BULK_LISTING_MAX_AGE));
    headers.set('Location', `${BULK_PATH}/${newest}${file === undefined ? '' : `/${file}`}`);
    return createResponse(302, headers.toPairs());
  }
  if (segments.length <= 1) {
    const entry = site?.lookupRoute(url.pathname, url.searchParams) ?? null;
    if (!entry && segments.length === 1) throw notFound('bulk snapshot (unknown, or pruned from the store)');
    // The listings are the build's: its snapshot, as in their meta.snapshot.
    if (site) {
      headers.set('X-Snapshot-Id', site.snapshot);
      state.snapshot = site.snapshot;
    }
    shared(publicCacheControl(BULK_LISTING_MAX_AGE));
    return respondWith(request, entry ?? renderEmptyListing(site, deps), headers);
  }
  const file = segments.length === 2 ? site?.lookupBulkFile(url.pathname) : null;
  if (!file) throw refuseMissingFile(site, segments[0]!, url.pathname);
  headers.set('X-Snapshot-Id', segments[0]!);
  state.snapshot = segments[0]!;
  shared(bulkFileCacheControl(url.pathname));
  headers.set('ETag', file.etag);
  if (matchesEtag(request.headers.get('if-none-match'), file.etag))
    return createResponse(304, headers.toPairs());
  const handle = await openBulkFile(file);
  headers.set('Content-Type', file.contentType);
  headers.set('Content-Length', String(file.bytes));
  return respondWithFile(request, handle, headers);
}

/**
 * The 404 of a bulk file not in the build: a withheld one (the same answer with any key, as on a
 * static host: the file is in no public tree any more) says why and where its reports are.
 */
function refuseMissingFile(site: StaticSite | null, snapshot: string, path: string): ApiError {
  const withheld = site?.bulk
    .find((entry) => entry.snapshot === snapshot)
    ?.withheld?.find((file) => file.path === path);
  if (!withheld) return notFound('bulk file (/api/v1/bulk lists the files)');
  return new ApiError(
    'not_found',
    `bulk file ${path} withheld: it ${withheld.reason}; a key with ${withheld.scope} reads every report of a market at ${withheld.history}`,
  );
}

/** Opens a listed file without following a symbolic link; one gone from disk is 404. */
async function openBulkFile(file: BulkFileEntry): Promise<FileHandle> {
  try {
    const handle = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stats = await handle.stat();
    if (stats.isFile() && stats.size === file.bytes) return handle;
    await handle.close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ELOOP' && code !== 'ENOTDIR') throw error;
  }
  throw notFound('bulk file (no longer on disk)');
}

/** The listing when no build with bulk files is in service: no snapshot, no files. */
function renderEmptyListing(site: StaticSite | null, deps: HandlerDeps): Representation {
  const snapshot = site?.snapshot ?? deps.snapshots.current()?.id ?? '';
  const generatedAt = `${deps.now().toISOString().slice(0, 19)}Z`;
  const envelope = renderBulkListing(site?.bulk ?? [], snapshot, generatedAt);
  const body = Buffer.from(JSON.stringify(envelope));
  const data = JSON.stringify(envelope.data);
  return {
    body,
    ...compressBody(body),
    etag: `"${createHash('sha256').update(data).update(snapshot).digest('base64url').slice(0, 32)}"`,
    contentType: 'application/json; charset=utf-8',
  };
}

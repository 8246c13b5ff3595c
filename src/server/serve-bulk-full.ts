import { constants } from 'node:fs';
import { type FileHandle, open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { type BulkFullEntry, listBulkFullFiles, mayReadBulkFullFile } from '../api/v1/bulk-full.ts';
import type { Caller } from '../contract/authorise.ts';
import {
  ApiError,
  insufficientScope,
  invalidParameter,
  notFound,
  unauthorized,
  unavailable,
} from '../contract/errors.ts';
import { COT_HISTORY_SCOPE } from '../contract/routes.ts';
import {
  BULK_FULL_FILE_CACHE_CONTROL,
  BULK_FULL_FILE_PREFIX,
  BULK_FULL_SCOPE,
  PARQUET_MEDIA_TYPE,
} from '../contract/schemas/bulk-full.ts';
import { SNAPSHOT_ID_PATTERN, snapshotDir } from '../store/layout.ts';
import { readManifest, type SnapshotManifest } from '../store/manifest.ts';
import type { HandlerDeps, RequestState } from './handler-deps.ts';
import { createResponse, matchesEtag, respondWithFile } from './http-response.ts';
import type { ResponseHeaders } from './response-headers.ts';

/** Whether a request path is one of the full store's files (`/api/v1/bulk/full/{snapshot}/{file}`). */
export function isBulkFullFilePath(pathname: string): boolean {
  return pathname.startsWith(BULK_FULL_FILE_PREFIX);
}

/** A relative path the store writes: plain segments, no `..`, no absolute or empty parts. */
const STORE_FILE = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.parquet$/;

/**
 * Answers `GET /api/v1/bulk/full/{snapshot}/{file}` (scope bulk:read): streams the store's own
 * file, byte for byte. The path is never used as given: it must equal, unescaped as sent, a `file`
 * of that snapshot's manifest, and the file is opened without following symbolic links, inside
 * the snapshot's real directory. The file is opened before the response starts: a publish that
 * prunes the snapshot meanwhile removes its directory entry, not the open file, so a download
 * that has started completes (POSIX unlink semantics). Throws ApiErrors.
 */
export async function serveBulkFullFile(
  request: Request,
  url: URL,
  headers: ResponseHeaders,
  state: RequestState,
  deps: HandlerDeps,
  caller: Caller | null,
): Promise<Response> {
  if (!caller)
    throw unauthorized(
      `this endpoint needs an API key with scope ${BULK_FULL_SCOPE}: send Authorization: Bearer <key>`,
    );
  if (!caller.scopes.includes(BULK_FULL_SCOPE)) throw insufficientScope(BULK_FULL_SCOPE);
  const [name] = url.searchParams.keys();
  if (name !== undefined)
    throw invalidParameter(name.slice(0, 40), 'no query parameters (a file of the full store takes none)');
  // URL parsing resolves dot segments (`a/../b`, `%2e%2e`): a file is its listed path as sent, or nothing.
  if (readRawPath(request) !== url.pathname)
    throw new ApiError(
      'not_found',
      'no file has a path with dot segments (`.`, `..`, `%2e`): send the url of the listing as it is',
    );
  const current = deps.snapshots.current();
  if (!current) throw unavailable('no snapshot has been published yet', 30);
  const rest = url.pathname.slice(BULK_FULL_FILE_PREFIX.length);
  const slash = rest.indexOf('/');
  const snapshot = slash < 0 ? rest : rest.slice(0, slash);
  const requested = slash < 0 ? '' : rest.slice(slash + 1);
  const manifest = snapshot === current.id ? current.manifest : readKeptManifest(deps, snapshot);
  if (!manifest)
    throw snapshotNotFound(
      `snapshot ${printable(snapshot)} is not in the store (pruned or unknown)`,
      current.id,
    );
  const entry = listBulkFullFiles(manifest).find((candidate) => candidate.file === requested);
  if (!entry || !STORE_FILE.test(entry.file) || entry.file.split('/').includes('..'))
    throw new ApiError(
      'not_found',
      `snapshot ${manifest.id} has no file ${printable(requested)}; /api/v1/bulk/full lists the files (the file path as listed, its slashes unescaped)`,
    );
  if (!mayReadBulkFullFile(entry, caller.scopes.includes(COT_HISTORY_SCOPE)))
    throw insufficientScope(
      COT_HISTORY_SCOPE,
      `the COT reports' files need an API key with scope ${COT_HISTORY_SCOPE} besides ${BULK_FULL_SCOPE}`,
    );
  headers.set('X-Snapshot-Id', manifest.id);
  state.snapshot = manifest.id;
  headers.set('Cache-Control', BULK_FULL_FILE_CACHE_CONTROL);
  const etag = `"${entry.sha256}"`;
  headers.set('ETag', etag);
  if (matchesEtag(request.headers.get('if-none-match'), etag)) return createResponse(304, headers.toPairs());
  const handle = await openStoreFile(deps, manifest.id, entry, current.id);
  headers.set('Content-Type', PARQUET_MEDIA_TYPE);
  headers.set('Content-Length', String(entry.bytes));
  headers.set('Content-Disposition', `attachment; filename="${entry.file.replaceAll('/', '_')}"`);
  return respondWithFile(request, handle, headers);
}

/** The manifest of a snapshot the store still keeps, or null (malformed id, pruned, unknown). */
function readKeptManifest(deps: HandlerDeps, snapshot: string): SnapshotManifest | null {
  if (!SNAPSHOT_ID_PATTERN.test(snapshot)) return null;
  try {
    return readManifest(deps.layout, snapshot);
  } catch {
    return null;
  }
}

/**
 * Opens a listed file for reading: no symbolic link anywhere below the snapshot directory, a
 * regular file of the size the manifest states. A file that vanished (pruned since the manifest
 * was read) is 404; one that differs from its manifest is an internal error (logged, not served).
 */
async function openStoreFile(
  deps: HandlerDeps,
  snapshot: string,
  entry: BulkFullEntry,
  currentId: string,
): Promise<FileHandle> {
  const dir = snapshotDir(deps.layout, snapshot);
  const path = join(dir, entry.file);
  let handle: FileHandle;
  try {
    if ((await realpath(path)) !== join(await realpath(dir), entry.file)) throw symlinked(entry);
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw snapshotNotFound(`snapshot ${snapshot} is no longer in the store (pruned)`, currentId);
    if (code === 'ELOOP') throw symlinked(entry);
    throw error;
  }
  const stats = await handle.stat();
  if (!stats.isFile() || stats.size !== entry.bytes) {
    await handle.close();
    throw new Error(`${entry.file} of snapshot ${snapshot} is not the file its manifest lists`);
  }
  return handle;
}

function symlinked(entry: BulkFullEntry): ApiError {
  return notFound(`file ${entry.file}`);
}

/** The 404 of a snapshot the store does not hold, naming the one to use instead. */
function snapshotNotFound(what: string, currentId: string): ApiError {
  return new ApiError(
    'not_found',
    `${what}; the current snapshot is ${currentId}: /api/v1/bulk/full lists its files`,
  );
}

/**
 * The path of a request as the client sent it, before dot segments are resolved: node:http's raw
 * request target under srvx, else (a Request made in-process) the URL's own text.
 */
function readRawPath(request: Request): string {
  const node = (request as Request & { runtime?: { node?: { req?: { url?: string } } } }).runtime?.node;
  // An absolute-form target (`GET http://host/path`, as sent to proxies) loses its origin too.
  const target = (node?.req?.url ?? request.url).replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

/** Path parts are echoed in messages; keep them short and printable. */
function printable(text: string): string {
  const clean = text.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}

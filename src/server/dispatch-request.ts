import { API_INDEX_PATHS } from '../api/v1/api-index.ts';
import { filtersOf } from '../api/v1/events.ts';
import { authorise, type Caller } from '../contract/authorise.ts';
import { ApiError, notFound, unauthorized } from '../contract/errors.ts';
import { cacheControlFor, KEYED_CACHE_CONTROL } from '../contract/header-rules.ts';
import { OPENAPI_PATH } from '../contract/openapi.ts';
import { parseRequest } from '../contract/parse-request.ts';
import { COT_HISTORY_SCOPE, csvQuery, matchRoute } from '../contract/routes.ts';
import { bearerToken } from './bearer-token.ts';
import { invalidHost, refusedHost } from './check-host.ts';
import { wantsEventStream } from './event-streams.ts';
import type { HandlerDeps, RequestState } from './handler-deps.ts';
import { createResponse, respondWith } from './http-response.ts';
import { INVALID_KEY_MESSAGE } from './key-refusal.ts';
import { rateLimited } from './map-error.ts';
import { namedSnapshots, snapshotForRequest } from './monotonic-read.ts';
import { isRepeatable, representRoute } from './represent-route.ts';
import { ALLOW, type ResponseHeaders } from './response-headers.ts';
import { isBulkDownloadPath, serveBulkDownload } from './serve-bulk-download.ts';
import { isBulkFullFilePath, serveBulkFullFile } from './serve-bulk-full.ts';
import { MCP_PATH, serveMcp } from './serve-mcp.ts';
import {
  isSiteFilePath,
  isStatusPagePath,
  serveApiIndex,
  serveNotFoundPage,
  wantsHtml,
} from './serve-site-extras.ts';
import { serveStatusPage } from './serve-status-page.ts';

const MAX_URL_LENGTH = 4096;

/**
 * Routes one request of the general path (everything the public fast path does not answer):
 * OPTIONS, method and URL checks, the site's built files (not counted without a key),
 * authentication and rate limit, the status page, the other built files, and the endpoints of the route table with their access rules. Throws ApiErrors.
 */
export async function dispatchRequest(
  request: Request,
  clientIp: string,
  headers: ResponseHeaders,
  state: RequestState,
  deps: HandlerDeps,
): Promise<Response> {
  if (request.method === 'OPTIONS') {
    headers.set('Allow', ALLOW);
    headers.set('Access-Control-Allow-Methods', ALLOW);
    headers.set('Access-Control-Allow-Headers', 'Authorization, If-None-Match, Content-Type');
    headers.set('Access-Control-Max-Age', '86400');
    return createResponse(204, headers.toPairs());
  }
  // The MCP endpoint takes POST (JSON-RPC): its method is checked by serveMcp, after the rate limit.
  const mcp = isMcpRequest(request.url);
  if (!mcp && request.method !== 'GET' && request.method !== 'HEAD') {
    throw new ApiError(
      'method_not_allowed',
      `method ${request.method.slice(0, 20)} is not allowed; use GET`,
      {
        headers: { Allow: ALLOW },
      },
    );
  }
  if (request.url.length > MAX_URL_LENGTH)
    throw new ApiError('uri_too_long', `the URL is longer than ${MAX_URL_LENGTH} bytes`);
  const url = requestUrl(request.url);
  state.path = url.pathname;
  // The site's built pages and assets are not counted (docs/rate-limits.md): a request with a
  // key is still authenticated and counted below, so a bad key is a 401 on any path.
  if (!mcp && isSiteFilePath(url.pathname) && request.headers.get('authorization') === null) {
    const host = refusedHost(request);
    if (host !== undefined) throw invalidHost(host);
    return serveFile(request, url, headers, deps, null);
  }
  const caller = await identify(request, clientIp, headers, state, deps);
  // After the rate limit, so that a bad Host is counted and logged like any other refusal.
  const host = refusedHost(request);
  if (host !== undefined) throw invalidHost(host);
  if (mcp) return serveMcp(request, headers, deps, caller);
  if (isStatusPagePath(url.pathname)) return serveStatusPage(request, headers, deps, caller);
  // The OpenAPI document is a built file under /api/, not a route of the table.
  if (!url.pathname.startsWith('/api/') || url.pathname === OPENAPI_PATH)
    return serveFile(request, url, headers, deps, caller);
  if (API_INDEX_PATHS.includes(url.pathname)) return serveApiIndex(request, headers, deps, caller);
  // The full store's files: paths of several segments with a Parquet body, outside the route table.
  if (isBulkFullFilePath(url.pathname)) return serveBulkFullFile(request, url, headers, state, deps, caller);
  // The public bulk files and listings, answered from the build in service (src/build/bulk-files.ts).
  if (isBulkDownloadPath(url.pathname)) return serveBulkDownload(request, url, headers, state, deps, caller);
  const matched = matchRoute(url.pathname);
  if (!matched) {
    const version = /^\/api\/(v\d+)\//.exec(url.pathname)?.[1];
    throw notFound(version && version !== 'v1' ? `API version ${version}` : 'endpoint');
  }
  // A `.csv` path is the route's request with format=csv (one success media type per operation).
  const query = matched.csv ? csvQuery(url.searchParams) : url.searchParams;
  const params = parseRequest(matched.route, matched.slug, query);
  const keyed = authorise(matched.route, params, caller, matched.csv);
  // Never from a snapshot older than one the request names (monotonic reads across instances).
  const db = await snapshotForRequest(
    request,
    namedSnapshots(matched.route.id, params, request.headers.get('last-event-id')),
    deps.snapshots,
    deps.snapshotWait,
  );
  headers.set('X-Snapshot-Id', db.id);
  state.snapshot = db.id;
  if (matched.route.access.kind === 'public-or-scope') headers.append('Vary', 'Authorization');
  headers.set('Cache-Control', cacheControlFor(matched.route.maxAge, caller !== null));
  const cotHistory = caller?.scopes.includes(COT_HISTORY_SCOPE) ?? false;
  // Endpoint 24 as Server-Sent Events: a stream that outlives this snapshot (event-streams.ts).
  // The JSON pages at the same URL may be cached: never for a client that asked for the stream.
  if (matched.route.id === 'events') headers.append('Vary', 'Accept');
  if (matched.route.id === 'events' && wantsEventStream(request))
    return deps.eventStreams.open({
      request,
      headers,
      keyId: caller?.keyId ?? null,
      addressBucket: deps.anonymousBucket(clientIp),
      after: (params.query.after as string | undefined) ?? null,
      filters: filtersOf(params),
      view: { keyed, cotHistory },
    });
  // The request's queries all read this snapshot, even if a publish retires it meanwhile.
  const release = db.lease();
  try {
    const { representation, cacheKey } = await representRoute(
      matched.route,
      params,
      url,
      db,
      keyed,
      deps,
      cotHistory,
      caller !== null,
      request.headers.get('if-none-match'),
    );
    // The keyed fast path may give this body again to the same request of a key with these scopes.
    if (caller && cacheKey !== null && isRepeatable(matched.route))
      deps.keyedAnswers?.remember(rawTarget(request.url), caller.scopes, db.id, {
        cacheKey,
        route: matched.route,
        path: url.pathname,
      });
    return respondWith(request, representation, headers);
  } finally {
    release();
  }
}

/** Whether a request is for MCP_PATH (with or without a query). */
function isMcpRequest(href: string): boolean {
  const path = rawTarget(href);
  return path === MCP_PATH || path.startsWith(`${MCP_PATH}?`);
}

/** The path and query of a request's URL as srvx gave it, without the origin it put in front. */
function rawTarget(href: string): string {
  return href.replace(/^[a-z]+:\/\/[^/]*/i, '');
}

/**
 * The request's URL with its path and query as sent, whatever the Host header held: the handler
 * reads only the path and query, and a URL built on a bad Host (`x:99999`, `1.2.3.256`) would
 * not parse. The origin srvx put in front (scheme and host, never a `/`) is replaced.
 */
function requestUrl(href: string): URL {
  return new URL(`http://host${rawTarget(href)}`);
}

/** Authenticates a bearer token (a bad key is a 401, never anonymous access) and applies the rate limit. */
async function identify(
  request: Request,
  clientIp: string,
  headers: ResponseHeaders,
  state: RequestState,
  deps: HandlerDeps,
): Promise<Caller | null> {
  const authorization = request.headers.get('authorization');
  let caller: Caller | null = null;
  let refusal: string | null = null;
  if (authorization !== null) {
    const token = bearerToken(authorization);
    const result = token ? await deps.authenticate(token) : { refused: INVALID_KEY_MESSAGE };
    if ('refused' in result) refusal = result.refused;
    else caller = result;
  }
  // The log line names the key also when the limit refuses it.
  state.caller = caller;
  const decision = caller
    ? await deps.consume(`key:${caller.keyId}`, caller.rateLimit)
    : await deps.consume(deps.anonymousBucket(clientIp), deps.anonymousLimit);
  for (const [name, value] of Object.entries(deps.rateLimitHeaders(decision))) headers.set(name, value);
  if (!decision.allowed) throw rateLimited(decision);
  if (refusal !== null) throw unauthorized(refusal);
  return caller;
}

/** A built file by its own path (pages, assets, the OpenAPI document). */
function serveFile(
  request: Request,
  url: URL,
  headers: ResponseHeaders,
  deps: HandlerDeps,
  caller: Caller | null,
): Response {
  const entry = deps.staticSite()?.lookupFile(url.pathname === '/' ? '/index.html' : url.pathname);
  if (!entry) {
    // A browser gets the site's HTML 404 page; other clients (and every /api/ path) the envelope.
    const page =
      !url.pathname.startsWith('/api/') && wantsHtml(request)
        ? serveNotFoundPage(request, headers, deps)
        : null;
    if (page) return page;
    throw notFound('page');
  }
  headers.set('Cache-Control', caller ? KEYED_CACHE_CONTROL : entry.cacheControl);
  return respondWith(request, entry, headers);
}

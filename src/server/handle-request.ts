import { createHash, randomBytes } from 'node:crypto';
import { renderCsv } from '../api/v1/csv.ts';
import { renderPayload } from '../api/v1/render.ts';
import { ApiError, insufficientScope, notFound, unauthorized, unavailable } from '../contract/errors.ts';
import { OPENAPI_PATH } from '../contract/openapi.ts';
import { parseRequest, type RequestParams } from '../contract/parse-request.ts';
import { matchRoute, ROUTES, type RouteDefinition } from '../contract/routes.ts';
import { QueryTimeoutError, type SnapshotDb } from '../query/snapshot-db.ts';
import { renderStatusPage } from '../site/status-page.ts';
import {
  compressBody,
  createHeaderTemplate,
  createResponse,
  type HeaderPairs,
  type HeaderTemplate,
  type Representation,
  respondWith,
  respondWithError,
  respondWithTemplate,
} from './http-response.ts';
import type { ResponseCache } from './response-cache.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import type { StaticRequestHit, StaticSite } from './static-site.ts';

/** An authenticated caller (never the key itself). */
export interface Caller {
  keyId: string;
  org: string;
  scopes: readonly string[];
  rateLimit: number;
}

/** One rate-limit decision, as the limiter returns it. */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retry_after_s: number;
  reset_s: number;
}

/** Everything the request handler needs, injected by the composition root. */
export interface HandlerDeps {
  snapshots: SnapshotManager;
  staticSite: () => StaticSite | null;
  /** Resolves a bearer token to a caller, or null (the same null for every kind of bad key). */
  authenticate: (token: string) => Promise<Caller | null>;
  consume: (bucket: string, limit: number) => Promise<LimitDecision>;
  rateLimitHeaders: (decision: LimitDecision) => Record<string, string>;
  anonymousLimit: number;
  cache: ResponseCache;
  now: () => Date;
  log: (entry: Record<string, unknown>) => void;
}

const ALLOW = 'GET, HEAD, OPTIONS';
const MAX_URL_LENGTH = 4096;
const EXPOSED =
  'ETag, X-Request-Id, X-Snapshot-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After';
/** Header fields of every response. */
const BASE_HEADERS: HeaderPairs = [
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', EXPOSED],
  ['x-content-type-options', 'nosniff'],
];
const ROUTES_BY_ID = new Map(ROUTES.map((route) => [route.id as string, route]));

/** What one request resolved to, for its log line. */
interface RequestState {
  caller: Caller | null;
  /** The URL path (normalised), once parsed. */
  path: string | null;
  snapshot: string | null;
}

/** Creates the request handler: the one function every HTTP request goes through. */
export function createRequestHandler(
  deps: HandlerDeps,
): (request: Request, clientIp: string) => Promise<Response> {
  return async (request, clientIp) => {
    const started = performance.now();
    const requestId = createRequestId();
    const state: RequestState = { caller: null, path: null, snapshot: null };
    let response: Response | null = null;
    let headers: Headers | null = null;
    try {
      response = await answerFromMemory(request, clientIp, requestId, state, deps);
      if (!response) {
        headers = createHeaders(requestId);
        response = await dispatch(request, clientIp, headers, state, deps);
      }
    } catch (error) {
      headers ??= createHeaders(requestId);
      response = respondWithError(request, toApiError(error, requestId, deps), requestId, headers);
    }
    deps.log({
      event: 'request',
      request_id: requestId,
      method: request.method,
      path: (state.path ?? readPath(request.url)).slice(0, 200),
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ip: clientIp,
      key_id: state.caller?.keyId ?? null,
      snapshot: state.snapshot,
    });
    return response;
  };
}

/** Request ids: 12 base64url characters (72 random bits), cut from a pool refilled 512 at a time. */
let idPool = '';
let idPoolOffset = 0;
function createRequestId(): string {
  if (idPoolOffset >= idPool.length) {
    idPool = randomBytes(9 * 512).toString('base64url');
    idPoolOffset = 0;
  }
  idPoolOffset += 12;
  return idPool.slice(idPoolOffset - 12, idPoolOffset);
}

function createHeaders(requestId: string): Headers {
  return new Headers([['x-request-id', requestId], ...BASE_HEADERS]);
}

function readPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** The raw path and query of an absolute request URL (`http://host/api/v1/x?y=1` gives `/api/v1/x?y=1`). */
function readTarget(url: string): string {
  const scheme = url.indexOf('://');
  const slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  return slash < 0 ? '/' : url.slice(slash);
}

const templates = new WeakMap<StaticRequestHit, HeaderTemplate>();

/**
 * The fast path of the public tier: an anonymous GET or HEAD whose URL is exactly one of the
 * pre-rendered requests of the snapshot in service is answered from memory with precomputed
 * headers. It counts against the rate limit and answers exactly as the general path would; any
 * other request (a key, another spelling of the URL, a filter to validate) returns null.
 */
async function answerFromMemory(
  request: Request,
  clientIp: string,
  requestId: string,
  state: RequestState,
  deps: HandlerDeps,
): Promise<Response | null> {
  const method = request.method;
  if (method !== 'GET' && method !== 'HEAD') return null;
  const site = deps.staticSite();
  if (!site) return null;
  const target = readTarget(request.url);
  const hit = site.lookupRequest(target);
  if (!hit || hit.routeId === 'status' || request.headers.get('authorization') !== null) return null;
  const db = deps.snapshots.current();
  if (!db || db.id !== site.snapshot) return null;
  const route = ROUTES_BY_ID.get(hit.routeId);
  if (!route) return null;
  const decision = await deps.consume(`ip:${clientIp}`, deps.anonymousLimit);
  const limitHeaders = Object.entries(deps.rateLimitHeaders(decision));
  if (!decision.allowed) {
    const headers = createHeaders(requestId);
    for (const [name, value] of limitHeaders) headers.set(name, value);
    return respondWithError(request, rateLimited(decision), requestId, headers);
  }
  const query = target.indexOf('?');
  state.path = query < 0 ? target : target.slice(0, query);
  state.snapshot = db.id;
  let template = templates.get(hit);
  if (!template) {
    template = createHeaderTemplate(hit.entry, [
      ...BASE_HEADERS,
      ['x-snapshot-id', db.id],
      [
        'vary',
        route.access.kind === 'public-or-scope' ? 'Authorization, Accept-Encoding' : 'Accept-Encoding',
      ],
      ['cache-control', `public, max-age=${route.maxAge}`],
    ]);
    templates.set(hit, template);
  }
  return respondWithTemplate(request, hit.entry, template, [['x-request-id', requestId], ...limitHeaders]);
}

function rateLimited(decision: LimitDecision): ApiError {
  return new ApiError(
    'rate_limited',
    `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retry_after_s} s`,
    {
      headers: { 'Retry-After': String(decision.retry_after_s) },
    },
  );
}

async function dispatch(
  request: Request,
  clientIp: string,
  headers: Headers,
  state: RequestState,
  deps: HandlerDeps,
): Promise<Response> {
  if (request.method === 'OPTIONS') {
    headers.set('Allow', ALLOW);
    headers.set('Access-Control-Allow-Methods', ALLOW);
    headers.set('Access-Control-Allow-Headers', 'Authorization, If-None-Match, Content-Type');
    headers.set('Access-Control-Max-Age', '86400');
    return createResponse(204, headers);
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
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
  const url = new URL(request.url);
  state.path = url.pathname;
  const caller = await identify(request, clientIp, headers, deps);
  state.caller = caller;
  // The OpenAPI document is a built file under /api/, not a route of the table.
  if (url.pathname === '/status' || url.pathname === '/status/')
    return serveStatusPage(request, headers, deps, caller);
  if (!url.pathname.startsWith('/api/') || url.pathname === OPENAPI_PATH)
    return serveFile(request, url, headers, deps, caller);
  const matched = matchRoute(url.pathname);
  if (!matched) {
    const version = /^\/api\/(v\d+)\//.exec(url.pathname)?.[1];
    throw notFound(version && version !== 'v1' ? `API version ${version}` : 'endpoint');
  }
  const params = parseRequest(matched.route, matched.slug, url.searchParams);
  const keyed = authorise(matched.route, params, caller);
  const db = deps.snapshots.current();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  headers.set('X-Snapshot-Id', db.id);
  state.snapshot = db.id;
  if (matched.route.access.kind === 'public-or-scope') headers.append('Vary', 'Authorization');
  headers.set('Cache-Control', caller ? 'private, no-store' : `public, max-age=${matched.route.maxAge}`);
  const representation = await represent(matched.route, params, url, db, keyed, deps);
  return respondWith(request, representation, headers);
}

/** Authenticates a bearer token (a bad key is a 401, never anonymous access) and applies the rate limit. */
async function identify(
  request: Request,
  clientIp: string,
  headers: Headers,
  deps: HandlerDeps,
): Promise<Caller | null> {
  const authorization = request.headers.get('authorization');
  let caller: Caller | null = null;
  let authFailed = false;
  if (authorization !== null) {
    const token = /^Bearer ([\x21-\x7e]{1,200})$/i.exec(authorization.trim())?.[1];
    caller = token ? await deps.authenticate(token) : null;
    authFailed = caller === null;
  }
  const decision = caller
    ? await deps.consume(`key:${caller.keyId}`, caller.rateLimit)
    : await deps.consume(`ip:${clientIp}`, deps.anonymousLimit);
  for (const [name, value] of Object.entries(deps.rateLimitHeaders(decision))) headers.set(name, value);
  if (!decision.allowed) throw rateLimited(decision);
  if (authFailed) throw unauthorized('the API key is not valid');
  return caller;
}

/** Applies the route's access rule; returns whether the caller gets the keyed view. */
function authorise(route: RouteDefinition, params: RequestParams, caller: Caller | null): boolean {
  if (route.access.kind === 'public') return false;
  const scope = route.access.scope;
  const holdsScope = caller?.scopes.includes(scope) ?? false;
  if (route.access.kind === 'scope' || params.keyedParams.length > 0) {
    if (!caller) {
      const what = route.access.kind === 'scope' ? 'this endpoint' : `parameter ${params.keyedParams[0]}`;
      throw unauthorized(`${what} needs an API key with scope ${scope}: send Authorization: Bearer <key>`);
    }
    if (!holdsScope) throw insufficientScope(scope);
  }
  return holdsScope;
}

async function represent(
  route: RouteDefinition,
  params: RequestParams,
  url: URL,
  db: SnapshotDb,
  keyed: boolean,
  deps: HandlerDeps,
): Promise<Representation> {
  const site = deps.staticSite();
  if (!keyed && route.id !== 'status' && site?.snapshot === db.id) {
    const entry = site.lookupRoute(url.pathname, url.searchParams);
    if (entry) return entry;
  }
  const csv = params.query.format === 'csv';
  const cacheKey =
    route.id === 'status'
      ? null
      : `${db.id} ${keyed ? 'k' : 'p'} ${route.id} ${params.slug ?? ''} ${normaliseQuery(params)}`;
  const cached = cacheKey ? deps.cache.get(cacheKey) : undefined;
  if (cached) return cached as Representation;
  const envelope = await renderPayload(db, route, params, { now: deps.now(), keyed });
  // The data is serialised once: the body is built around it, and the ETag covers it (not
  // generated_at), so an unchanged snapshot keeps its ETag.
  const data = csv ? '' : (JSON.stringify(envelope.data) ?? 'null');
  const body = Buffer.from(
    csv ? renderCsv(envelope.data as unknown[]) : `{"data":${data},"meta":${JSON.stringify(envelope.meta)}}`,
  );
  const etagSource = csv ? body : data;
  const representation: Representation = {
    body,
    ...compressBody(body),
    etag: `"${createHash('sha256').update(etagSource).update(db.id).digest('base64url').slice(0, 32)}"`,
    contentType: csv ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8',
    link: nextLink(url, envelope.meta.next_cursor),
  };
  if (cacheKey) deps.cache.set(cacheKey, representation);
  return representation;
}

/** The next page's URL as a Link header, when the payload has a next cursor. */
function nextLink(url: URL, cursor: unknown): string | null {
  if (typeof cursor !== 'string') return null;
  const next = new URL(url.pathname, url);
  for (const [name, value] of url.searchParams) if (name !== 'cursor') next.searchParams.set(name, value);
  next.searchParams.set('cursor', cursor);
  return `<${next.pathname}${next.search}>; rel="next"`;
}

function normaliseQuery(params: RequestParams): string {
  return Object.entries(params.query)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

const STATUS_ROUTE = ROUTES.find((route) => route.id === 'status')!;

/**
 * The status page is rendered live, from the same payload as /api/v1/status, by the same
 * function the build uses for its static copy (docs/site.md says why there is no Node adapter).
 */
async function serveStatusPage(
  request: Request,
  headers: Headers,
  deps: HandlerDeps,
  caller: Caller | null,
): Promise<Response> {
  const db = deps.snapshots.current();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  headers.set('X-Snapshot-Id', db.id);
  const envelope = await renderPayload(
    db,
    STATUS_ROUTE,
    { slug: null, query: {}, keyedParams: [] },
    { now: deps.now(), keyed: false },
  );
  const body = Buffer.from(
    renderStatusPage(envelope as Parameters<typeof renderStatusPage>[0], { live: true }),
  );
  headers.set('Cache-Control', caller ? 'private, no-store' : `public, max-age=${STATUS_ROUTE.maxAge}`);
  return respondWith(
    request,
    {
      body,
      ...compressBody(body),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
      contentType: 'text/html; charset=utf-8',
    },
    headers,
  );
}

function serveFile(
  request: Request,
  url: URL,
  headers: Headers,
  deps: HandlerDeps,
  caller: Caller | null,
): Response {
  const entry = deps.staticSite()?.lookupFile(url.pathname === '/' ? '/index.html' : url.pathname);
  if (!entry) throw notFound('page');
  headers.set('Cache-Control', caller ? 'private, no-store' : entry.cacheControl);
  return respondWith(request, entry, headers);
}

function toApiError(error: unknown, requestId: string, deps: HandlerDeps): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof QueryTimeoutError)
    return unavailable('the query took too long; try a narrower request', 2);
  deps.log({
    event: 'internal_error',
    request_id: requestId,
    error: String((error as Error)?.stack ?? error),
  });
  return new ApiError('internal_error', 'internal error; the request id identifies it in our logs');
}

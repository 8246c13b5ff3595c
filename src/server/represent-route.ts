import { eventLogOf } from '../api/v1/events.ts';
import { selectFields } from '../api/v1/field-selection.ts';
import { historyCsvBody, historyJsonBody, readHistoryPageBytes } from '../api/v1/history-bytes.ts';
import { renderReleasesIcs } from '../api/v1/releases-ics.ts';
import { renderDataCsv, renderPayload } from '../api/v1/render.ts';
import {
  bytesEtag,
  type CallerView,
  CLOCK_ROUTES,
  canonicalParams,
  etagIsOfBytes,
  identityEtag,
  normaliseQuery,
  snapshotContent,
} from '../api/v1/resource-etag.ts';
import type { RequestParams } from '../contract/parse-request.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { compressBody, matchesEtag, type Representation } from './http-response.ts';

export type { CallerView } from '../api/v1/resource-etag.ts';

/**
 * What the answer path reads besides the request: the built site, the response cache, the clock
 * and, on an instance following a bucket, where it stands. The HTTP server passes its HandlerDeps;
 * MCP passes the same (POST /mcp) or its own cache (`mmds mcp`).
 */
export type AnswerDeps = Pick<HandlerDeps, 'staticSite' | 'cache' | 'now' | 'replica'>;

/** A body to send, and its key in the response cache when the cache holds it (else null). */
export interface RouteRepresentation {
  representation: Representation;
  cacheKey: string | null;
}

/**
 * The body of an endpoint request: the built file of a public request when `mmds build` made one
 * for the snapshot in service, else a rendered body from the response cache, else rendered now
 * (and cached: snapshots are immutable, so the key of snapshot, view and query never goes stale).
 */
export async function representRoute(
  route: RouteDefinition,
  params: RequestParams,
  url: URL,
  db: SnapshotDb,
  keyed: boolean,
  deps: AnswerDeps,
  /** The caller holds cot:history (ApiContext.cotHistory): part of the view, so of the cache key. */
  cotHistory = false,
  /** The request carried a valid key (ApiContext.authenticated): only which refusal, never the body. */
  authenticated = false,
  /** The request's If-None-Match: when it names the ETag, nothing is rendered (no body, not cached). */
  ifNoneMatch: string | null = null,
): Promise<RouteRepresentation> {
  const site = deps.staticSite();
  if (!keyed && route.id !== 'status' && site?.snapshot === db.id) {
    const entry = site.lookupRoute(url.pathname, url.searchParams);
    if (entry) return { representation: entry, cacheKey: null };
  }
  const cacheKey = responseCacheKey(route, params, db, keyed, cotHistory, deps);
  const cached = cacheKey ? deps.cache.get(cacheKey) : undefined;
  if (cached) return { representation: cached, cacheKey };
  const now = deps.now();
  const replica = route.id === 'status' && deps.replica ? await deps.replica(db.id, now) : null;
  const representation = await renderRepresentation(
    route,
    params,
    url,
    db,
    { keyed, cotHistory, authenticated },
    now,
    replica,
    ifNoneMatch,
  );
  if (BODILESS.has(representation)) return { representation, cacheKey: null };
  return keep(deps, cacheKey, representation);
}

/**
 * Renders the body of an endpoint request (no cache, no built file): the payload in the JSON
 * envelope, or its rows as CSV or iCalendar, with its ETag and Link. A page of endpoints 5 and 8
 * is put together from row bytes (api/v1/history-bytes.ts). The ETag comes from what the body is
 * a function of (api/v1/resource-etag.ts, as the build's), not from its bytes; for a series page a request whose If-None-Match names it
 * gets a representation without a body (respondWith answers it 304) and nothing is rendered.
 */
export async function renderRepresentation(
  route: RouteDefinition,
  params: RequestParams,
  url: URL,
  db: SnapshotDb,
  view: CallerView,
  now: Date,
  replica: ReplicaStatus | null,
  ifNoneMatch: string | null = null,
): Promise<Representation> {
  const csv = params.query.format === 'csv';
  const contentType = csv ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8';
  const chosen = route.mediaType ? null : await readHistoryPageBytes(db, route, params, now);
  if (chosen) {
    const etag = identityEtag(route, params, view, chosen.content);
    const link = nextLink(url, chosen.meta.next_cursor);
    if (namesExactly(ifNoneMatch, etag)) return withoutBody(etag, contentType, link);
    const body = csv ? historyCsvBody(db, route, chosen) : historyJsonBody(db, chosen);
    return { body, ...compressBody(body), etag, contentType, link };
  }
  // The clock routes' bodies change within the hour they are cached for: their ETag is their bytes'.
  const identity = etagIsOfBytes(route)
    ? null
    : identityEtag(
        route,
        await canonicalParams(db, route, params),
        view,
        snapshotContent(db.id, logEnd(route, db)),
      );
  // No 304 before the payload here: a payload may still refuse the request (a COT report date
  // beyond the public window without cot:history), and a refusal must not become a 304.
  // `fields` selects from the payload's rows before they are serialised (field-selection.ts).
  const { envelope, fields } = selectFields(
    route,
    params,
    await renderPayload(db, route, params, {
      now,
      ...view,
      authenticated: view.authenticated ?? false,
      replica,
    }),
  );
  if (route.mediaType === 'text/calendar') {
    const body = Buffer.from(renderReleasesIcs(envelope));
    return {
      body,
      ...compressBody(body),
      etag: identity ?? bytesEtag(body, db.id),
      contentType: `${route.mediaType}; charset=utf-8`,
      link: null,
    };
  }
  const body = Buffer.from(
    csv
      ? renderDataCsv(route, envelope, fields)
      : `{"data":${JSON.stringify(envelope.data) ?? 'null'},"meta":${JSON.stringify(envelope.meta)}}`,
  );
  return {
    body,
    ...compressBody(body),
    // Not over generated_at, which changes with every rendering of the same data.
    etag: identity ?? bytesEtag(csv ? body : (JSON.stringify(envelope.data) ?? 'null'), db.id),
    contentType,
    link: nextLink(url, envelope.meta.next_cursor),
  };
}

/** Whether If-None-Match names this ETag (`*` does not: only a body rendered knows the resource exists). */
function namesExactly(ifNoneMatch: string | null, etag: string): boolean {
  return ifNoneMatch !== null && ifNoneMatch.trim() !== '*' && matchesEtag(ifNoneMatch, etag);
}

/** A representation for a 304: its ETag, type and Link, no body (never cached). */
function withoutBody(etag: string, contentType: string, link: string | null): Representation {
  const representation = { body: EMPTY, gzip: null, br: null, etag, contentType, link };
  BODILESS.add(representation);
  return representation;
}

const EMPTY = Buffer.alloc(0);
/** The representations made for a 304 alone: never cached or remembered. */
const BODILESS = new WeakSet<Representation>();

/** Puts a rendered body in the response cache (when it has a key), saying whether the cache kept it. */
function keep(
  deps: AnswerDeps,
  cacheKey: string | null,
  representation: Representation,
): RouteRepresentation {
  const kept = cacheKey !== null && deps.cache.set(cacheKey, representation);
  return { representation, cacheKey: kept ? cacheKey : null };
}

/**
 * The key of a rendered body in the response cache: snapshot, view, route and normalised query,
 * plus the hour or the log's end for the routes whose body also depends on them. Null for the
 * live status, never cached.
 */
function responseCacheKey(
  route: RouteDefinition,
  params: RequestParams,
  db: SnapshotDb,
  keyed: boolean,
  cotHistory: boolean,
  deps: AnswerDeps,
): string | null {
  if (route.id === 'status') return null;
  return `${db.id} ${keyed ? 'k' : 'p'}${cotHistory ? 'c' : ''} ${route.id} ${params.slug ?? ''} ${normaliseQuery(params)}${clockHour(route, deps)}${logEnd(route, db)}`;
}

/**
 * Whether a route's rendered body depends only on the snapshot and the request (not on the
 * clock or the event log's end), so that the same request may be answered with it again for as
 * long as the snapshot is in service (keyed-fast-path.ts).
 */
export function isRepeatable(route: RouteDefinition): boolean {
  return route.id !== 'status' && route.id !== 'events' && !CLOCK_ROUTES.has(route.id);
}

/**
 * The events route's pages also change without a new snapshot (release.delayed is appended
 * between snapshots: noticed-events.ts), so its key holds the position of the log's end.
 */
function logEnd(route: RouteDefinition, db: SnapshotDb): string {
  return route.id === 'events' ? ` ${eventLogOf(db).end()}` : '';
}

/** The next page's URL as a Link header, when the payload has a next cursor. */
function nextLink(url: URL, cursor: unknown): string | null {
  if (typeof cursor !== 'string') return null;
  const next = new URL(url.pathname, url);
  for (const [name, value] of url.searchParams) if (name !== 'cursor') next.searchParams.set(name, value);
  next.searchParams.set('cursor', cursor);
  return `<${next.pathname}${next.search}>; rel="next"`;
}

/**
 * The release calendar splits past from scheduled at the request time, and /macro names each
 * series' next release: their cached bodies are kept for the hour they were rendered in, not for
 * the whole snapshot.
 */
function clockHour(route: RouteDefinition, deps: AnswerDeps): string {
  return CLOCK_ROUTES.has(route.id) ? ` ${deps.now().toISOString().slice(0, 13)}` : '';
}

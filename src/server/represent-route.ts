import { createHash } from 'node:crypto';
import { eventLogOf } from '../api/v1/events.ts';
import { renderReleasesIcs } from '../api/v1/releases-ics.ts';
import { renderDataCsv, renderPayload } from '../api/v1/render.ts';
import type { RequestParams } from '../contract/parse-request.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { compressBody, type Representation } from './http-response.ts';

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
  deps: HandlerDeps,
  /** The caller holds cot:history (ApiContext.cotHistory): part of the view, so of the cache key. */
  cotHistory = false,
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
    { keyed, cotHistory },
    now,
    replica,
  );
  return keep(deps, cacheKey, representation);
}

/** Who is asking, as far as it changes a body: a key of the route's scope, and cot:history. */
export interface CallerView {
  keyed: boolean;
  cotHistory: boolean;
}

/**
 * Renders the body of an endpoint request (no cache, no built file): the payload in the JSON
 * envelope, or its rows as CSV or iCalendar, with its ETag and Link.
 */
export async function renderRepresentation(
  route: RouteDefinition,
  params: RequestParams,
  url: URL,
  db: SnapshotDb,
  view: CallerView,
  now: Date,
  replica: ReplicaStatus | null,
): Promise<Representation> {
  const csv = params.query.format === 'csv';
  const envelope = await renderPayload(db, route, params, { now, ...view, replica });
  if (route.mediaType === 'text/calendar') {
    const body = Buffer.from(renderReleasesIcs(envelope));
    return {
      body,
      ...compressBody(body),
      etag: `"${createHash('sha256').update(body).update(db.id).digest('base64url').slice(0, 32)}"`,
      contentType: `${route.mediaType}; charset=utf-8`,
      link: null,
    };
  }
  // The data is serialised once: the body is built around it, and the ETag covers it (not
  // generated_at), so an unchanged snapshot keeps its ETag.
  const data = csv ? '' : (JSON.stringify(envelope.data) ?? 'null');
  const body = Buffer.from(
    csv ? renderDataCsv(route, envelope) : `{"data":${data},"meta":${JSON.stringify(envelope.meta)}}`,
  );
  const etagSource = csv ? body : data;
  return {
    body,
    ...compressBody(body),
    etag: `"${createHash('sha256').update(etagSource).update(db.id).digest('base64url').slice(0, 32)}"`,
    contentType: csv ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8',
    link: nextLink(url, envelope.meta.next_cursor),
  };
}

/** Puts a rendered body in the response cache (when it has a key), saying whether the cache kept it. */
function keep(
  deps: HandlerDeps,
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
  deps: HandlerDeps,
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

function normaliseQuery(params: RequestParams): string {
  return Object.entries(params.query)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** Routes whose payload depends on the request time (past vs scheduled releases, next_release). */
const CLOCK_ROUTES: ReadonlySet<string> = new Set(['releases', 'releases-ics', 'macro-latest']);

/**
 * The release calendar splits past from scheduled at the request time, and /macro names each
 * series' next release: their cached bodies are kept for the hour they were rendered in, not for
 * the whole snapshot.
 */
function clockHour(route: RouteDefinition, deps: HandlerDeps): string {
  return CLOCK_ROUTES.has(route.id) ? ` ${deps.now().toISOString().slice(0, 13)}` : '';
}

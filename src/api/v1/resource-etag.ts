import { createHash } from 'node:crypto';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { RouteDefinition } from '../../contract/routes.ts';
import { resolveRegion } from '../../query/reference-codes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

/**
 * The strong ETag of an endpoint's answer, from what the body is a function of (issue 33, item 3):
 * the server (server/represent-route.ts) and the build (build/run-static-build.ts) both take it
 * from here, so that a built file and the server's rendering of the same request carry the same
 * ETag, whichever answers, and a site-only build and a full build agree.
 */

/** Who is asking, as far as it changes a body: a key of the route's scope, and cot:history. */
export interface CallerView {
  keyed: boolean;
  cotHistory: boolean;
  /** A valid key of another scope: which refusal (401 or 403), never the body, so not in the ETag. */
  authenticated?: boolean;
}

/** The view of an anonymous request: the built files' view. */
export const PUBLIC_VIEW: CallerView = { keyed: false, cotHistory: false };

/** Routes whose payload depends on the request time (past vs scheduled releases, next_release). */
export const CLOCK_ROUTES: ReadonlySet<string> = new Set(['releases', 'releases-ics', 'macro-latest']);

/**
 * Whether a route's ETag is its body's hash rather than its identity: the clock routes, whose
 * bodies change within the hour they are cached for, and the live status.
 */
export function etagIsOfBytes(route: RouteDefinition): boolean {
  return CLOCK_ROUTES.has(route.id) || route.id === 'status';
}

/**
 * The parameters in the one spelling the identity takes, where the payload reads several alike
 * (and the build writes one file for them all: api/v1/static-requests.ts aliases): a region's
 * name as its M49 code, the currency codes of /fx/ecb in upper case and its default base EUR
 * left out, `format=json` (the default format) left out. A country or currency code of the
 * reference routes is read in upper case already by its parameter. An unknown region is left as
 * it is: the payload refuses it.
 */
export async function canonicalParams(
  db: SnapshotDb,
  route: RouteDefinition,
  params: RequestParams,
): Promise<RequestParams> {
  const query = { ...params.query };
  if (query.format === 'json') delete query.format;
  if (route.id === 'fx-ecb') {
    for (const name of FX_CODE_PARAMS)
      if (typeof query[name] === 'string') query[name] = query[name].toUpperCase();
    if (query.base === 'EUR') delete query.base;
  }
  const { region } = query;
  if (typeof region === 'string' && !/^\d{3}$/.test(region)) {
    const code = await resolveRegion(db, region);
    if (code !== null) query.region = code;
  }
  return { ...params, query };
}

/** The code parameters of /fx/ecb, read in any case. */
const FX_CODE_PARAMS = ['base', 'currency', 'symbols'] as const;

/** The query in one spelling: its parameters sorted by name, `name=value` joined by `&`. */
export function normaliseQuery(params: RequestParams): string {
  return Object.entries(params.query)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/**
 * The strong ETag of a body from what it is a function of: the route, its path value, the
 * normalised query (format included), the caller's view, and `content`: what the body reads,
 * for a series page the hash of the series' revisions and its description (so a series that did
 * not change keeps its ETag across snapshots), else the snapshot's id (snapshotContent). Not the
 * bytes: meta's generated_at and snapshot are left out, as the old hash of `data` left them out.
 */
export function identityEtag(
  route: RouteDefinition,
  params: RequestParams,
  view: CallerView,
  content: string,
): string {
  const identity = `${route.id}\n${params.slug ?? ''}\n${normaliseQuery(params)}\n${view.keyed ? 'k' : 'p'}${view.cotHistory ? 'c' : ''}\n${content}`;
  return `"${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}"`;
}

/**
 * The `content` of a body read from the snapshot as a whole: its id, and for the events route
 * the position of the log's end (release.delayed is appended between snapshots).
 */
export function snapshotContent(snapshot: string, logEnd = ''): string {
  return `${snapshot}${logEnd}`;
}

/**
 * The ETag of a body whose ETag is of its bytes (etagIsOfBytes): the hash of `bytes` (the JSON
 * of the envelope's `data`, not of meta's generated_at; a CSV or iCalendar body whole) and the
 * snapshot's id.
 */
export function bytesEtag(bytes: string | Buffer, snapshot: string): string {
  return `"${createHash('sha256').update(bytes).update(snapshot).digest('base64url').slice(0, 32)}"`;
}

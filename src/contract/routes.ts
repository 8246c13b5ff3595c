/**
 * The route table of v1: every endpoint once, in the order of the endpoint list and OpenAPI, put
 * together from the family files beside it (cot-routes.ts, history-routes.ts, series-routes.ts,
 * reference-routes.ts, fx-routes.ts, releases-routes.ts, feed-routes.ts, bulk-routes.ts); and how a
 * request path finds its route.
 */
import { BULK_ROUTES } from './bulk-routes.ts';
import { COT_ROUTES } from './cot-routes.ts';
import { invalidParameter } from './errors.ts';
import { FEED_ROUTES } from './feed-routes.ts';
import { FX_ROUTES } from './fx-routes.ts';
import { MACRO_ROUTES, OBSERVATIONS_ROUTES } from './history-routes.ts';
import { PARAMS, type ParamName, type ParamSpec } from './params.ts';
import {
  REFERENCE_ROUTES,
  RESEARCH_ROUTE,
  SECTORS_ROUTE,
  SOURCES_ROUTE,
  STATUS_ROUTE,
} from './reference-routes.ts';
import { RELEASES_ROUTES } from './releases-routes.ts';
import type { RouteDefinition } from './route-definition.ts';
import { SERIES_ROUTES } from './series-routes.ts';

export type { Access, Prerender, RouteDefinition, RouteId, Scope } from './route-definition.ts';
export { COT_HISTORY_SCOPE, SCOPES } from './route-definition.ts';

/**
 * The fourteen endpoints of SPEC section 4 and the service's additions: 15 public series
 * history, 16-18 bulk files (public listings, keyed full store), 19 the release calendar (JSON
 * and iCalendar), 20-21 revisions (by macro slug, by series key), 22 the change feed, 23 aligned
 * observations.
 */
export const ROUTES: readonly RouteDefinition[] = [
  STATUS_ROUTE,
  ...COT_ROUTES,
  ...MACRO_ROUTES,
  RESEARCH_ROUTE,
  SOURCES_ROUTE,
  ...OBSERVATIONS_ROUTES,
  ...SERIES_ROUTES,
  SECTORS_ROUTE,
  ...FX_ROUTES,
  ...REFERENCE_ROUTES,
  ...RELEASES_ROUTES,
  ...FEED_ROUTES,
  ...BULK_ROUTES,
];

/**
 * Appended to the path of a route with `format` (the keyed history endpoints), it asks for CSV:
 * `/api/v1/observations.csv?series=...` is the request `/api/v1/observations?series=...&format=csv`.
 * OpenAPI describes it as an operation of its own whose only success is `text/csv`.
 */
export const CSV_PATH_SUFFIX = '.csv';

/**
 * Finds the route whose path matches, with its slug; `csv` when the path is the route's CSV path
 * (CSV_PATH_SUFFIX appended; then pass the query through csvQuery).
 */
export function matchRoute(
  pathname: string,
): { route: RouteDefinition; slug: string | null; csv: boolean } | null {
  if (pathname.endsWith(CSV_PATH_SUFFIX)) {
    const matched = matchPath(pathname.slice(0, -CSV_PATH_SUFFIX.length));
    if (matched?.route.query.includes('format')) return { ...matched, csv: true };
  }
  const matched = matchPath(pathname);
  return matched && { ...matched, csv: false };
}

/** The query of a CSV path as the route's own request: `format=csv` added, a `format` of the caller's refused. */
export function csvQuery(search: URLSearchParams): URLSearchParams {
  if (search.has('format'))
    throw invalidParameter(
      'format',
      `no format parameter on a ${CSV_PATH_SUFFIX} path, which always answers CSV (for JSON, drop ${CSV_PATH_SUFFIX} from the path)`,
    );
  const query = new URLSearchParams(search);
  query.append('format', 'csv');
  return query;
}

function matchPath(pathname: string): { route: RouteDefinition; slug: string | null } | null {
  // An exact path wins over a slug route it would also match (/api/v1/bulk/full, /api/v1/bulk/:slug).
  const exact = ROUTES.find((route) => !route.path.includes(':slug') && route.path === pathname);
  if (exact) return { route: exact, slug: null };
  for (const route of ROUTES) {
    if (!route.path.includes(':slug')) continue;
    const prefix = route.path.slice(0, route.path.indexOf(':slug'));
    // What follows the slug (`/revisions`), if anything: the slug itself never holds a `/`.
    const suffix = route.path.slice(route.path.indexOf(':slug') + ':slug'.length);
    if (pathname.startsWith(prefix) && pathname.endsWith(suffix)) {
      const rest = pathname.slice(prefix.length, pathname.length - suffix.length);
      if (rest !== '' && !rest.includes('/')) return { route, slug: rest };
    }
  }
  return null;
}

/** A route's path as OpenAPI and the docs write it: `:slug` as `{slug}`, or as its pathParam. */
export function documentedPath(route: RouteDefinition): string {
  return route.path.replace(':slug', `{${route.pathParam ?? 'slug'}}`);
}

/** The parameter specs of a route's query parameters. */
export function routeParams(route: RouteDefinition) {
  return route.query.map((name) => ({ name, spec: paramSpec(route, name) }));
}

/** How a route validates and documents one query parameter: its own override, else PARAMS. */
export function paramSpec(route: RouteDefinition, name: ParamName): ParamSpec {
  return route.params?.[name] ?? PARAMS[name];
}

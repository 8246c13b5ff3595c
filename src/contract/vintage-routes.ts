/**
 * Endpoint 27 in the route table: the vintage dates of a series, as ALFRED lists them
 * (fred/series/vintagedates; src/api/v1/vintages.ts, docs/api/vintages.md).
 */
import type { RouteDefinition } from './route-definition.ts';

/** Endpoint 27: /api/v1/series/{slug}/vintagedates. */
export const VINTAGE_DATES_ROUTE: RouteDefinition = {
  id: 'series-vintagedates',
  number: 27,
  path: '/api/v1/series/:slug/vintagedates',
  summary: 'Vintage dates of one series: the days its values were released or revised (ALFRED)',
  description:
    "The vintage dates of a catalogued series (its slug, any source): the days in St. Louis time (ALFRED's " +
    'zone) on which a value of it was first released or revised, with the knowledge time of each ' +
    '(observed_at: pass it as as_of, or the day as vintage_dates, to /api/v1/observations or ' +
    '/api/v1/macro/{slug}), within realtime_start/realtime_end (default: every one), oldest first or ' +
    'newest first with sort_order=desc. A series the catalog does not list is 404. Keyed: observations:read.',
  access: { kind: 'scope', scope: 'observations:read' },
  query: ['realtime_start', 'realtime_end', 'sort_order', 'fields'],
  maxAge: 0,
  prerender: 'none',
};

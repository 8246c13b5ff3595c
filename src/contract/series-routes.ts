/**
 * The series catalogue routes of the route table: endpoint 9 (the catalogue with latest values),
 * 26 (its search, search-routes.ts), 27 (a series' vintage dates, vintage-routes.ts) and 15 (the
 * public history of one redistributable series, in JSON and CSV without a key).
 */
import { PARAMS, type ParamName, type ParamSpec, PUBLIC_FORMAT } from './params.ts';
import { LATEST_MAX_AGE, type RouteDefinition } from './route-definition.ts';
import { SERIES_SEARCH_ROUTE } from './search-routes.ts';
import { VINTAGE_DATES_ROUTE } from './vintage-routes.ts';

/** Keyed-only history parameters made public on a route (endpoint 15's range, order and paging). */
function publicHistoryParams(names: readonly ParamName[]): Partial<Record<ParamName, ParamSpec>> {
  return Object.fromEntries(names.map((name) => [name, { ...PARAMS[name], keyedOnly: false }]));
}

/** Endpoints 9, 26, 27 and 15, in the order of the route table. */
export const SERIES_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'series',
    number: 9,
    path: '/api/v1/series',
    summary: 'Series catalogue with latest values (redistributable data only)',
    description:
      'Series of redistributable sources with their latest value; filter by country, region or currency.',
    access: { kind: 'public' },
    query: ['country', 'region', 'currency'],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  SERIES_SEARCH_ROUTE,
  VINTAGE_DATES_ROUTE,
  {
    id: 'series-history',
    number: 15,
    path: '/api/v1/series/:slug',
    summary: 'Public history of one redistributable series (values in force)',
    description:
      'For a catalogued series of a public-domain or open-licence source that holds data: per period the value in force in the snapshot (its latest revision), oldest period first, with its revision_number and observed_at, and the licence and attribution in meta. The same rows as RFC 4180 CSV, without a key: /api/v1/series/{slug}.csv (a plain file on static hosts) or format=csv. ' +
      'Without a key too: from/to (FRED: observation_start/observation_end), sort_order=desc (newest first) and limit with cursor (limit=1&sort_order=desc: the latest value); the plain path is a pre-rendered file, a request with parameters is answered by the server. ' +
      'The slug is the series slug of /api/v1/series (history_url). Licensed or proprietary series, and series without data, are 404. Every revision, as_of and units (transforms) stay keyed: /api/v1/macro/{slug} and /api/v1/observations.',
    access: { kind: 'public' },
    query: [
      'from',
      'to',
      'observation_start',
      'observation_end',
      'sort_order',
      'limit',
      'cursor',
      'format',
      'fields',
    ],
    maxAge: LATEST_MAX_AGE,
    prerender: 'per-slug',
    // The public history is public with its range, order and paging, and in CSV too: no key here.
    params: {
      format: PUBLIC_FORMAT,
      ...publicHistoryParams(['from', 'to', 'observation_start', 'observation_end', 'sort_order', 'cursor']),
      limit: {
        ...PARAMS.limit,
        description: 'Rows per page, 1 to 10000 (default: every period, one page); no key needed.',
        keyedOnly: false,
      },
    },
  },
];

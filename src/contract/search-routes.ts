/**
 * Endpoint 26 in the route table: the series search FRED users know (fred/series/search), over the
 * catalogue of /api/v1/series (src/api/v1/series-search.ts; docs/api/series-search.md).
 */
import { PARAMS } from './params.ts';
import type { RouteDefinition } from './route-definition.ts';

/** Endpoint 26: /api/v1/series/search (an exact path: it wins over /series/{slug}). */
export const SERIES_SEARCH_ROUTE: RouteDefinition = {
  id: 'series-search',
  number: 26,
  path: '/api/v1/series/search',
  summary: 'Search the series catalogue by words, ranked',
  description:
    'The series of /api/v1/series (redistributable sources) whose name, key, slug, FRED id, notes, source, ' +
    'geography (country, region), frequency or units hold every word of search_text (a word matches the ' +
    'start of a word of the field, any case), ranked: per word the weight of the best field it matches ' +
    '(name 8, key, slug or FRED id 6, geography 4, source 3, units 3, frequency 2, notes 1), summed, plus 100 ' +
    'when search_text is the key, slug or FRED id itself; ties by name then key. offset and limit page the ' +
    'ranked list (meta.matches: every match). Rendered by the server.',
  access: { kind: 'public' },
  query: ['search_text', 'limit', 'offset'],
  maxAge: 300,
  prerender: 'none',
  params: {
    limit: {
      ...PARAMS.limit,
      description: 'Matches per page, 1 to 10000 (default 1000); no key needed.',
      keyedOnly: false,
    },
  },
};

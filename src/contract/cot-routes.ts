/**
 * The Commitments of Traders routes of the route table: endpoint 2 (the latest report of every
 * market), 3 (one market's history) and 25 (every market's report of one date, as CFTC Socrata
 * users ask for it: src/api/v1/cot-reports.ts, docs/api/cot-reports.md).
 */
import { COT_MARKET_PARAM } from './cot-params.ts';
import { HISTORY } from './history-params.ts';
import { PARAMS } from './params.ts';
import { LATEST_MAX_AGE, type RouteDefinition } from './route-definition.ts';

/** Endpoint 25: /api/v1/markets/cot/reports (an exact path: it wins over /markets/cot/{slug}). */
const COT_REPORTS_ROUTE: RouteDefinition = {
  id: 'cot-reports',
  number: 25,
  path: '/api/v1/markets/cot/reports',
  summary: "Every market's Commitments of Traders report of one date and report type",
  description:
    'One row per market reported on report_date (default: the newest report date of the report type) in ' +
    'report_type (default legacy): the market (slug, code: the CFTC contract market code, exchange, mic, ' +
    'sector) and its report, the same report as /api/v1/markets/cot/{slug} gives (the revision in force, ' +
    'with its analytics), by slug. A date with no report is an empty list. Public for the dates in the ' +
    "public window (each market's 12 most recent reports); an older date needs a key holding cot:history " +
    '(401 without a key, 403 with another key), as every COT report does. Rendered by the server.',
  access: { kind: 'public-or-scope', scope: 'cot:history' },
  query: ['report_date', 'report_type', 'fields'],
  maxAge: 300,
  prerender: 'none',
  params: {
    report_type: {
      ...PARAMS.report_type,
      description:
        'COT report: legacy (default), disaggregated or tff (futures only), the same with `_combined` ' +
        '(futures and options combined), or cit (Commodity Index Trader supplement).',
    },
  },
};

/** Endpoints 2, 3 and 25, in the order of the route table. */
export const COT_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'cot-summary',
    number: 2,
    path: '/api/v1/markets/cot',
    summary: 'Latest positioning summary for all tracked futures markets',
    description:
      'Every market the CFTC ever reported in the snapshot, with its first and last report date, `active`, its contract lineage (`replaces`, `replaced_by`) and its latest Commitments of Traders report: open interest, long, short and net by trader category, week-on-week changes and percent of open interest.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'cot-market',
    number: 3,
    path: '/api/v1/markets/cot/:slug',
    summary: 'Positioning history of one market',
    description:
      'The market by its slug or by its CFTC contract market code (/api/v1/markets/cot/088691: the same body as the slug, meta.market.slug naming it). ' +
      'Without a key: the 12 most recent weekly reports. With a key holding cot:history: the full history, with as_of, from, to, limit, cursor and format=csv.',
    access: { kind: 'public-or-scope', scope: 'cot:history' },
    query: ['report_type', ...HISTORY],
    maxAge: LATEST_MAX_AGE,
    prerender: 'per-slug',
    params: { slug: COT_MARKET_PARAM },
  },
  COT_REPORTS_ROUTE,
];

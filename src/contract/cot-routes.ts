/**
 * Endpoint 25 in the route table: every market's Commitments of Traders report of one date, as
 * CFTC Socrata users ask for it (src/api/v1/cot-reports.ts; docs/api/cot-reports.md).
 */
import { PARAMS } from './params.ts';
import type { RouteDefinition } from './route-definition.ts';

/** Endpoint 25: /api/v1/markets/cot/reports (an exact path: it wins over /markets/cot/{slug}). */
export const COT_REPORTS_ROUTE: RouteDefinition = {
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

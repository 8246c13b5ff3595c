/**
 * The parameters of the COT endpoints that CFTC Socrata users bring: a market by its CFTC
 * contract market code (the path of endpoint 3), and every market's report of one date (25).
 * docs/api/cot-reports.md describes them.
 */
import { z } from 'zod';
import { DAY } from './fx-params.ts';
import { isRealDay } from './instant.ts';
import type { ParamSpec } from './param-spec.ts';

/** A CFTC contract market code as the files write it: six letters, digits or `+` (`088691`, `13874A`, `12460+`). */
export const CFTC_CODE = /^[0-9A-Za-z+]{6}$/;
const SLUG_OR_CODE = /^([a-z0-9-]{1,64}|[0-9A-Za-z+]{6})$/;

/** The query parameter of /api/v1/markets/cot/reports (spread into PARAMS). */
export const COT_PARAMS = {
  report_date: {
    description:
      "Report date (the Tuesday of the positions, Socrata's report_date_as_yyyy_mm_dd), YYYY-MM-DD: every " +
      "market's report of that date. Default: the newest report date of the report type. A date with no " +
      'report is an empty list. Dates older than the public window (the 12 most recent reports of each ' +
      'market) need a key holding cot:history.',
    schema: z.string().regex(DAY).refine(isRealDay),
    expected: 'a real calendar day YYYY-MM-DD, the Tuesday of a weekly report',
    openapi: { type: 'string', format: 'date', pattern: DAY.source },
  },
} satisfies Record<string, ParamSpec>;

/** The path value of endpoint 3 (a per-route override of `slug`): a market slug or a CFTC code. */
export const COT_MARKET_PARAM: ParamSpec = {
  description:
    'The market: its slug (gold, as /api/v1/markets/cot lists it) or its CFTC contract market code ' +
    "(088691, Socrata's cftc_contract_market_code, any case), which answers the same body as the slug.",
  schema: z.string().regex(SLUG_OR_CODE),
  expected: 'a market slug such as gold or a CFTC contract market code such as 088691',
  openapi: { type: 'string', pattern: SLUG_OR_CODE.source, maxLength: 64 },
};

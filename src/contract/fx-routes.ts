/**
 * Endpoint 11, the ECB euro reference rates, in the route table: by query (`/api/v1/fx/ecb`) and
 * by Frankfurter's path forms (`/api/v1/fx/ecb/2025-01-02..2025-01-31`), one endpoint in two
 * spellings with one payload function (src/api/v1/fx.ts). docs/api/fx.md is the long form.
 */
import { FX_CURRENCY_PARAM, FX_DATES_PARAM, FX_MAX_SERIES_RATES, FX_RANGE_PARAMS } from './fx-params.ts';
import type { RouteDefinition } from './route-definition.ts';

/** Rates change once a business day: the same short life as the other "latest" payloads. */
const FX_MAX_AGE = 300;

const RATES_DESCRIPTION =
  'ECB euro reference rates (units of each currency per euro) of the latest reference date, of the last ' +
  'reference date at or before `date` (meta.requested_date, meta.date), or, with from/to, a time series of ' +
  'every reference date of the range (meta.range: a from on a weekend or TARGET holiday starts at the ' +
  "reference date before it, and says so). `currency` (or Frankfurter's `symbols`) takes one code or a " +
  'comma list, any case. `base` other than EUR gives cross rates of the same date: units of quote per ' +
  '`amount` base = amount x EUR->quote / EUR->base, EUR included as a quote; every computed rate (a ' +
  'cross rate, or an amount other than 1) is exact decimal arithmetic rounded half away from zero to 6 ' +
  'significant digits (no more precise than the ECB inputs; meta.method, meta.rounding). Base EUR and ' +
  'amount 1 are the rates as published. Currencies the ECB does not quote on a date are left out. A ' +
  `date before the first reference date is 404; a series of more than ${FX_MAX_SERIES_RATES} rates is a ` +
  '400 asking for fewer currencies or a shorter range.';

/** The two routes of endpoint 11. */
export const FX_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'fx-ecb',
    number: 11,
    path: '/api/v1/fx/ecb',
    summary: 'Euro reference exchange rates and cross rates: latest, of a day, or a time series',
    description:
      `${RATES_DESCRIPTION} Single-currency and single-base requests are pre-rendered; lists, dates, ` +
      'ranges and amounts are rendered by the server, with the same envelope and caching. The same time ' +
      'series by path: /api/v1/fx/ecb/{dates}.',
    access: { kind: 'public' },
    query: ['currency', 'symbols', 'base', 'amount', 'date', 'from', 'to', 'fields'],
    maxAge: FX_MAX_AGE,
    prerender: 'filters',
    params: { currency: FX_CURRENCY_PARAM, ...FX_RANGE_PARAMS },
  },
  {
    id: 'fx-ecb-series',
    number: 11,
    path: '/api/v1/fx/ecb/:slug',
    pathParam: 'dates',
    summary: "Euro reference rates by Frankfurter's path: a day, a range, an open range or latest",
    description:
      `The answer of /api/v1/fx/ecb for the dates in the path: \`2025-01-06\` is date=2025-01-06, ` +
      '`2025-01-02..2025-01-31` is from=2025-01-02&to=2025-01-31, `2025-01-02..` is from=2025-01-02 (to the ' +
      `latest reference date), \`latest\` the latest rates; the same body. ${RATES_DESCRIPTION} Rendered by ` +
      'the server (static hosts proxy it).',
    access: { kind: 'public' },
    query: ['currency', 'symbols', 'base', 'amount', 'fields'],
    maxAge: FX_MAX_AGE,
    prerender: 'none',
    params: { currency: FX_CURRENCY_PARAM, slug: FX_DATES_PARAM },
  },
];

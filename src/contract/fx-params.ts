/**
 * The parameters of the ECB rates endpoint (11) that Frankfurter users bring: `symbols` (its
 * name for the currency list), `amount`, a day range by `from`/`to` or in the path
 * (`/api/v1/fx/ecb/2025-01-02..2025-01-31`). docs/api/fx.md describes them.
 */
import { z } from 'zod';
import { isRealDay } from './instant.ts';
import type { ParamSpec } from './param-spec.ts';

/** Currency codes of /fx/ecb: at most this many per request. */
export const FX_MAX_CURRENCIES = 40;
/** One calendar day YYYY-MM-DD (checked to exist by isRealDay: no 30 February). */
export const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const FX_CODE_LIST = new RegExp(`^[A-Za-z]{3}(,[A-Za-z]{3}){0,${FX_MAX_CURRENCIES - 1}}$`);
/** A positive decimal amount: up to 12 digits before the point and 6 after, not zero. */
const AMOUNT = /^(?=.*[1-9])\d{1,12}(\.\d{1,6})?$/;
/** The path of the range form: a day, `<day>..<day>`, `<day>..` (to the latest) or `latest`. */
const DATES = /^(latest|\d{4}-\d{2}-\d{2}(\.\.(\d{4}-\d{2}-\d{2})?)?)$/;

/** Rates one time series answer may hold (dates x currencies); more is a 400 asking for less. */
export const FX_MAX_SERIES_RATES = 20_000;

/** The two query parameters Frankfurter users bring to endpoint 11 (spread into PARAMS). */
export const FX_PARAMS = {
  symbols: {
    description:
      "Frankfurter's name for `currency`: the ISO 4217 codes to return, one or a comma-separated list " +
      `of at most ${FX_MAX_CURRENCIES}, any case. Give one of currency and symbols.`,
    schema: z.string().regex(FX_CODE_LIST),
    expected: `1 to ${FX_MAX_CURRENCIES} ISO 4217 codes separated by commas, such as usd,gbp (not together with currency)`,
    openapi: { type: 'string', pattern: FX_CODE_LIST.source },
    reference: 'currencies',
  },
  amount: {
    description:
      'Units of base to convert (default 1): every rate is amount x EUR->quote / EUR->base, computed ' +
      'exactly and rounded half away from zero to 6 significant digits (meta.rounding).',
    schema: z.string().regex(AMOUNT),
    expected:
      'a positive decimal number such as 100 or 12.5 (at most 12 digits before the point and 6 after)',
    openapi: { type: 'string', pattern: AMOUNT.source, default: '1' },
  },
} satisfies Record<string, ParamSpec>;

/** A day of the range (`from`, `to` on /fx/ecb): public, a real day. */
function dayParam(description: string): ParamSpec {
  return {
    description,
    schema: z.string().regex(DAY).refine(isRealDay),
    expected: 'a real calendar day YYYY-MM-DD, not after today (UTC)',
    openapi: { type: 'string', format: 'date', pattern: DAY.source },
  };
}

/** `from`/`to` on /fx/ecb (per-route overrides): a time series of reference dates, public. */
export const FX_RANGE_PARAMS: Record<'from' | 'to', ParamSpec> = {
  from: dayParam(
    'First day of a time series (YYYY-MM-DD): every ECB reference date from the last one at or before ' +
      'it (a weekend or TARGET holiday starts at the business day before, as meta.range says) to `to`. ' +
      'Not together with date.',
  ),
  to: dayParam('Last day of the time series (YYYY-MM-DD; default: the latest reference date). Needs from.'),
};

/** The path value of /api/v1/fx/ecb/{dates} (a per-route override of `slug`). */
export const FX_DATES_PARAM: ParamSpec = {
  description:
    "Frankfurter's path forms: a day (`2025-01-06`: that day's rates, or the last reference date before " +
    'it), a range `2025-01-02..2025-01-31` (a time series), an open range `2025-01-02..` (to the latest ' +
    'reference date), or `latest`.',
  schema: z
    .string()
    .regex(DATES)
    .refine((text) => text === 'latest' || text.split('..').every((day) => day === '' || isRealDay(day))),
  expected: 'a day YYYY-MM-DD, a range YYYY-MM-DD..YYYY-MM-DD, an open range YYYY-MM-DD.., or latest',
  openapi: { type: 'string', pattern: DATES.source },
};

/**
 * `currency` on /fx/ecb (a per-route override, see RouteDefinition.params): one to
 * FX_MAX_CURRENCIES codes separated by commas, upper or lower case. Elsewhere `currency` stays
 * one upper-case code.
 */
export const FX_CURRENCY_PARAM: ParamSpec = {
  description:
    `ISO 4217 codes to return, one or a comma-separated list of at most ${FX_MAX_CURRENCIES} ` +
    '(`USD` or `usd,gbp`), without repeats; answered in upper case. A code the ECB does not quote ' +
    'on the reference date is left out and listed in meta.not_quoted; a code ISO 4217 does not know is a 400.',
  schema: z.string().regex(FX_CODE_LIST),
  expected: `1 to ${FX_MAX_CURRENCIES} ISO 4217 codes separated by commas, upper or lower case, such as USD or usd,gbp (see /api/v1/reference/currencies)`,
  openapi: { type: 'string', pattern: FX_CODE_LIST.source },
  reference: 'currencies',
};

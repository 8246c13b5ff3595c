import { SINGLE_SOURCE_TERMS } from './envelope.ts';
import {
  arrayOf,
  date,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  partialObject,
  text,
  timestamp,
} from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';

const CODE = '^[A-Z]{3}$';

/** Endpoint 11: ECB euro reference rates, or cross rates from them, of one reference date. */
export const FX_ECB_DATA: JsonSchema = arrayOf(
  object({
    currency: text('ISO 4217 code of the quote currency.', { pattern: CODE }),
    currency_name: nullable(text('ISO 4217 name.')),
    rate: number(
      'Units of the currency per 1 unit of base: the ECB rate as published for base EUR, else a cross rate rounded to 6 significant digits.',
      { exclusiveMinimum: 0 },
    ),
    base: text('The base currency: EUR unless `base` asked for another.', { pattern: CODE }),
    date: date('The ECB reference date of the rate.'),
    observed_at: timestamp(
      'When the ECB published it; for a cross rate the later publication of its two inputs.',
    ),
    observed_at_method: knowledgeMethod('observed_at'),
    revision_number: integer('Revision of the series_key rate used.', { minimum: 1 }),
    series_key: text(
      "Series key, `ecb.<currency>`: the quote's ECB series (for EUR as quote of a cross rate, the base's).",
    ),
  }),
  'Rates of one reference date, by currency; currencies the ECB no longer quotes then are left out, and so is the base itself.',
);

/** Endpoint 11 meta. */
export const FX_ECB_META: Record<string, JsonSchema> = {
  filters: partialObject(
    {
      currency: text('The requested codes in upper case, comma-separated, in request order.', {
        pattern: '^[A-Z]{3}(,[A-Z]{3})*$',
      }),
    },
    'The filters applied.',
  ),
  date: nullable(date('The ECB reference date of the rates; null when there are none.')),
  requested_date: nullable(
    date(
      'The `date` asked for (the rates are of the last reference date at or before it), or null: the latest.',
    ),
  ),
  base: text('The base currency.', { pattern: CODE }),
  method: text('How the rates were obtained: as published (EUR), or the cross-rate formula and rounding.'),
  base_rate: nullable(
    object(
      {
        currency: text(undefined, { pattern: CODE }),
        rate: number('Units of the base per 1 EUR, as published.', { exclusiveMinimum: 0 }),
        date: date(),
        observed_at: timestamp(),
        revision_number: integer(undefined, { minimum: 1 }),
        series_key: text(),
      },
      'The euro reference rate of the base every cross rate divides by; null for base EUR.',
    ),
  ),
  not_quoted: arrayOf(
    text(undefined, { pattern: CODE }),
    'Requested codes with no rate in data: not quoted by the ECB on that date, or the base itself.',
  ),
  ...SINGLE_SOURCE_TERMS,
};

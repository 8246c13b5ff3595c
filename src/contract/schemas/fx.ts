import { SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';

const CODE = '^[A-Z]{3}$';

/** Endpoint 11: ECB euro reference rates, or cross rates from them, of one reference date. */
export const FX_ECB_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    currency: js.text('ISO 4217 code of the quote currency.', { pattern: CODE }),
    currency_name: js.nullable(js.text('ISO 4217 name.')),
    rate: js.number(
      'Units of the currency per `amount` units of base: the ECB rate as published for base EUR and amount 1, else computed exactly and rounded half away from zero to 6 significant digits.',
      { exclusiveMinimum: 0 },
    ),
    base: js.text('The base currency: EUR unless `base` asked for another.', { pattern: CODE }),
    date: js.date('The ECB reference date of the rate.'),
    observed_at: js.timestamp(
      'When the ECB published it; for a cross rate the later publication of its two inputs.',
    ),
    observed_at_method: knowledgeMethod('observed_at'),
    revision_number: js.integer('Revision of the series_key rate used.', { minimum: 1 }),
    series_key: js.text(
      "Series key, `ecb.<currency>`: the quote's ECB series (for EUR as quote of a cross rate, the base's).",
    ),
  }),
  'Rates of one reference date by currency, or of every reference date of a range by date then currency; currencies the ECB does not quote on a date are left out, and so is the base itself.',
);

/** Endpoint 11 meta. */
export const FX_ECB_META: Record<string, js.JsonSchema> = {
  filters: js.partialObject(
    {
      currency: js.text('The requested codes in upper case, comma-separated, in request order.', {
        pattern: '^[A-Z]{3}(,[A-Z]{3})*$',
      }),
      symbols: js.text('The same, when they were asked for as `symbols`.', {
        pattern: '^[A-Z]{3}(,[A-Z]{3})*$',
      }),
    },
    'The filters applied.',
  ),
  date: js.nullable(
    js.date(
      'The ECB reference date of the rates; null when there are none, and for a time series (see range).',
    ),
  ),
  requested_date: js.nullable(
    js.date(
      'The `date` asked for (the rates are of the last reference date at or before it), or null: the latest.',
    ),
  ),
  range: js.nullable(
    js.object(
      {
        requested_from: js.date('The first day asked for (from, or the path).'),
        requested_to: js.nullable(js.date('The last day asked for; null: up to the latest reference date.')),
        start_date: js.nullable(js.date('The first reference date of data.')),
        end_date: js.nullable(js.date('The last reference date of data.')),
        dates: js.integer('Reference dates in data.', { minimum: 0 }),
        dates_without_base: js.integer(
          'Reference dates of the range left out because the base had no rate then.',
          {
            minimum: 0,
          },
        ),
        note: js.nullable(
          js.text(
            'Why the series starts before the day asked for (a weekend or TARGET holiday: the reference date before it) or after it (before the first reference date); null when it starts on it.',
          ),
        ),
      },
      'The time series asked for with from/to or a path range; null for one day.',
    ),
  ),
  base: js.text('The base currency.', { pattern: CODE }),
  amount: js.number('Units of base every rate is for (amount, default 1).', { exclusiveMinimum: 0 }),
  method: js.text(
    'How the rates were obtained: as published (EUR, amount 1), or the formula (amount x EUR->quote / EUR->base).',
  ),
  rounding: js.text(
    'The rounding rule of the rates: none (as published), or exact decimal, half away from zero, 6 significant digits.',
  ),
  base_rate: js.nullable(
    js.object(
      {
        currency: js.text(undefined, { pattern: CODE }),
        rate: js.number('Units of the base per 1 EUR, as published.', { exclusiveMinimum: 0 }),
        date: js.date(),
        observed_at: js.timestamp(),
        revision_number: js.integer(undefined, { minimum: 1 }),
        series_key: js.text(),
      },
      'The euro reference rate of the base every cross rate divides by; null for base EUR and for a time series (each date its own).',
    ),
  ),
  not_quoted: js.arrayOf(
    js.text(undefined, { pattern: CODE }),
    'Requested codes with no rate in data: not quoted by the ECB on that date, or the base itself.',
  ),
  ...SINGLE_SOURCE_TERMS,
};

import { GEO_FILTERS } from './catalog.ts';
import { SINGLE_SOURCE_TERMS } from './envelope.ts';
import {
  arrayOf,
  date,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  text,
  timestamp,
} from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';

/** Endpoint 11: the latest ECB euro reference rate per currency. */
export const FX_ECB_DATA: JsonSchema = arrayOf(
  object({
    currency: text('ISO 4217 code.', { pattern: '^[A-Z]{3}$' }),
    currency_name: nullable(text('ISO 4217 name.')),
    rate: number('Units of the currency per euro.', { exclusiveMinimum: 0 }),
    base: { type: 'string', const: 'EUR' },
    date: date('The reference date of the rate.'),
    observed_at: timestamp('When the ECB published it.'),
    observed_at_method: knowledgeMethod('observed_at'),
    revision_number: integer(undefined, { minimum: 1 }),
    series_key: text('Series key, `ecb.<currency>`.'),
  }),
  'Rates of the latest reference date, by currency; currencies the ECB no longer quotes are left out.',
);

/** Endpoint 11 meta. */
export const FX_ECB_META: Record<string, JsonSchema> = {
  filters: GEO_FILTERS,
  date: nullable(date('The reference date of the rates; null when there are none.')),
  ...SINGLE_SOURCE_TERMS,
};

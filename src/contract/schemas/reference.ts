import { GEO_FILTERS } from './catalog.ts';
import { SOURCE_TERMS_LIST } from './envelope.ts';
import { arrayOf, boolean, integer, type JsonSchema, nullable, object, ref, text } from './json-schema.ts';

const CODE_LIST = (description: string) => arrayOf(text(undefined, { pattern: '^[A-Z]{3}$' }), description);

/** Named schemas of the reference lists. */
export const REFERENCE_COMPONENTS: Record<string, JsonSchema> = {
  Area: object(
    {
      code: text('Three-digit UN M49 code.', { pattern: '^\\d{3}$' }),
      name: nullable(text('English name.')),
      slug: nullable(text('Kebab-case name, accepted by the region filter.')),
    },
    'A UN M49 area.',
  ),
};

/** Endpoint 12: countries with M49 areas, currencies, time zones and coverage. */
export const COUNTRIES_DATA: JsonSchema = arrayOf(
  object({
    iso2: text('ISO 3166-1 alpha-2.', { pattern: '^[A-Z]{2}$' }),
    iso3: text('ISO 3166-1 alpha-3.'),
    numeric: text('ISO 3166-1 numeric (= M49 code), three digits.'),
    name: text(),
    region: nullable(ref('Area')),
    sub_region: nullable(ref('Area')),
    intermediate_region: nullable(ref('Area')),
    currencies: CODE_LIST('ISO 4217 codes the country uses.'),
    time_zones: arrayOf(text(), 'IANA zones overlapping the country, by name.'),
    coverage: object({
      series: integer('Catalog series of redistributable sources about the country.', { minimum: 0 }),
      venues: integer('ISO 10383 venues in the country still in service.', { minimum: 0 }),
    }),
  }),
  'By iso2.',
);

/** Endpoints 12 and 14 meta. */
export const FILTERED_LIST_META: Record<string, JsonSchema> = {
  filters: GEO_FILTERS,
  attribution: SOURCE_TERMS_LIST,
};

/** Endpoint 13: ISO 4217 currencies and funds, current and withdrawn. */
export const CURRENCIES_DATA: JsonSchema = arrayOf(
  object({
    code: text(undefined, { pattern: '^[A-Z]{3}$' }),
    numeric: nullable(text('Three digits.')),
    name: text(),
    minor_units: nullable(
      integer('Digits after the decimal point; null where ISO says N.A.', { minimum: 0 }),
    ),
    is_fund: boolean(),
    current: boolean('True while withdrawn is null.'),
    withdrawn: nullable(
      text('When withdrawn, as ISO writes it (`YYYY-MM`, `YYYY` or a range): the latest of withdrawals.'),
    ),
    withdrawals: arrayOf(
      object({
        entity: nullable(text('Country or area that stopped using the code, as ISO writes it.')),
        name: text('Name of the currency for that entity at the time.'),
        withdrawn: text('When, as ISO writes it (`YYYY-MM`, `YYYY` or a range).'),
      }),
      'Every ISO 4217 list-three (historic) entry of the code, oldest first; [] for a code never withdrawn anywhere.',
    ),
    entities: arrayOf(
      text(),
      'Countries or areas using it (all that used it, for a withdrawn code), as ISO writes them.',
    ),
  }),
  'By code.',
);

/** Endpoint 13 meta. */
export const CURRENCIES_META: Record<string, JsonSchema> = { attribution: SOURCE_TERMS_LIST };

/** Endpoint 14: ISO 10383 venues with time zone and currencies. */
export const VENUES_DATA: JsonSchema = arrayOf(
  object({
    mic: text('ISO 10383 MIC.'),
    operating_mic: text(),
    kind: text('`OPRT` operating or `SGMT` segment.'),
    name: text(),
    legal_name: nullable(text()),
    lei: nullable(text()),
    acronym: nullable(text()),
    category: nullable(text('Market category code.')),
    country: text('ISO 3166-1 alpha-2 (or `ZZ`).'),
    city: nullable(text()),
    status: text('`ACTIVE`, `UPDATED` or `EXPIRED`.'),
    website: nullable(text()),
    time_zone: nullable(text('IANA zone chosen from the city and country.')),
    time_zone_exact: boolean('False when the zone is a best guess for display.'),
    currencies: CODE_LIST("ISO 4217 codes of the venue's country."),
  }),
  'By mic, whatever the status.',
);

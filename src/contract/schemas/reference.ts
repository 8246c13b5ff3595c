import { GEO_FILTERS } from './catalog.ts';
import { SOURCE_TERMS_LIST } from './envelope.ts';
import * as js from './json-schema.ts';

const CODE_LIST = (description: string) =>
  js.arrayOf(js.text(undefined, { pattern: '^[A-Z]{3}$' }), description);

/** Named schemas of the reference lists. */
export const REFERENCE_COMPONENTS: Record<string, js.JsonSchema> = {
  Area: js.object(
    {
      code: js.text('Three-digit UN M49 code.', { pattern: '^\\d{3}$' }),
      name: js.nullable(js.text('English name.')),
      slug: js.nullable(js.text('Kebab-case name, accepted by the region filter.')),
    },
    'A UN M49 area.',
  ),
};

/** Endpoint 12: countries with M49 areas, currencies, time zones and coverage. */
export const COUNTRIES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    iso2: js.text('ISO 3166-1 alpha-2.', { pattern: '^[A-Z]{2}$' }),
    iso3: js.text('ISO 3166-1 alpha-3.'),
    numeric: js.text('ISO 3166-1 numeric (= M49 code), three digits.'),
    name: js.text(),
    region: js.nullable(js.ref('Area')),
    sub_region: js.nullable(js.ref('Area')),
    intermediate_region: js.nullable(js.ref('Area')),
    currencies: CODE_LIST('ISO 4217 codes the country uses.'),
    time_zones: js.arrayOf(js.text(), 'IANA zones overlapping the country, by name.'),
    coverage: js.object({
      series: js.integer('Catalog series of redistributable sources about the country.', { minimum: 0 }),
      venues: js.integer('ISO 10383 venues in the country still in service.', { minimum: 0 }),
    }),
  }),
  'By iso2.',
);

/** Endpoints 12 and 14 meta. */
export const FILTERED_LIST_META: Record<string, js.JsonSchema> = {
  filters: GEO_FILTERS,
  attribution: SOURCE_TERMS_LIST,
};

/** Endpoint 13: ISO 4217 currencies and funds, current and withdrawn. */
export const CURRENCIES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    code: js.text(undefined, { pattern: '^[A-Z]{3}$' }),
    numeric: js.nullable(js.text('Three digits.')),
    name: js.text(),
    minor_units: js.nullable(
      js.integer('Digits after the decimal point; null where ISO says N.A.', { minimum: 0 }),
    ),
    is_fund: js.boolean(),
    current: js.boolean('True while withdrawn is null.'),
    withdrawn: js.nullable(
      js.text('When withdrawn, as ISO writes it (`YYYY-MM`, `YYYY` or a range): the latest of withdrawals.'),
    ),
    withdrawals: js.arrayOf(
      js.object({
        entity: js.nullable(js.text('Country or area that stopped using the code, as ISO writes it.')),
        name: js.text('Name of the currency for that entity at the time.'),
        withdrawn: js.text('When, as ISO writes it (`YYYY-MM`, `YYYY` or a range).'),
      }),
      'Every ISO 4217 list-three (historic) entry of the code, oldest first; [] for a code never withdrawn anywhere.',
    ),
    entities: js.arrayOf(
      js.text(),
      'Countries or areas using it (all that used it, for a withdrawn code), as ISO writes them.',
    ),
  }),
  'By code.',
);

/** Endpoint 13 meta. */
export const CURRENCIES_META: Record<string, js.JsonSchema> = { attribution: SOURCE_TERMS_LIST };

/** Endpoint 14: ISO 10383 venues with time zone and currencies. */
export const VENUES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    mic: js.text('ISO 10383 MIC.'),
    operating_mic: js.text(),
    kind: js.text('`OPRT` operating or `SGMT` segment.'),
    name: js.text(),
    legal_name: js.nullable(js.text()),
    lei: js.nullable(js.text()),
    acronym: js.nullable(js.text()),
    category: js.nullable(js.text('Market category code.')),
    country: js.text('ISO 3166-1 alpha-2 (or `ZZ`).'),
    city: js.nullable(js.text()),
    status: js.text('`ACTIVE`, `UPDATED` or `EXPIRED`.'),
    website: js.nullable(js.text()),
    time_zone: js.nullable(js.text('IANA zone chosen from the city and country.')),
    time_zone_exact: js.boolean('False when the zone is a best guess for display.'),
    currencies: CODE_LIST("ISO 4217 codes of the venue's country."),
  }),
  'By mic, whatever the status.',
);

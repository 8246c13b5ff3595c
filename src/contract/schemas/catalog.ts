import { FREQUENCIES, RIGHTS } from '../../model/records.ts';
import { SOURCE_TERMS_LIST } from './envelope.ts';
import {
  arrayOf,
  boolean,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  oneOfText,
  partialObject,
  period,
  text,
  timestamp,
} from './json-schema.ts';

const COUNT = { minimum: 0 };

/** Links to a series' public history (endpoint 15), on endpoints 4 and 9. */
export const HISTORY_LINKS: Record<string, JsonSchema> = {
  history_url: nullable(
    text('Path of the public history (values in force, JSON): /api/v1/series/{slug}; null without data.'),
  ),
  history_csv_url: nullable(text('The same history as CSV: /api/v1/series/{slug}.csv; null without data.')),
};

/** Endpoint 6: research findings, newest first. */
export const RESEARCH_DATA: JsonSchema = arrayOf(
  object({
    id: text(),
    slug: text('Stable identifier.'),
    title: text(),
    published_at: timestamp(),
    authors: arrayOf(text()),
    tags: arrayOf(text()),
    summary: text(),
    series: arrayOf(text(), 'Series keys the finding is about, only those of redistributable sources.'),
    body_markdown: text('The full note as Markdown.'),
  }),
  'Newest published_at first, ties by id.',
);

/** Endpoint 7: the source catalog (metadata only, for every source whatever its rights). */
export const SOURCES_DATA: JsonSchema = arrayOf(
  object({
    id: text(),
    name: text(),
    publisher: text(),
    url: text(undefined, { format: 'uri' }),
    licence: text(),
    licence_url: nullable(text(undefined, { format: 'uri' })),
    rights: oneOfText(RIGHTS, 'Rights class; the first two are redistributable.'),
    redistributable: boolean('True for public_domain and open_licence: only their data is published.'),
    attribution: text('Text to show next to the data.'),
    cadence: oneOfText(FREQUENCIES),
    sample: boolean('True for invented demo sources.'),
    series_count: integer('Entries in the series catalog, whatever their rights or data.', COUNT),
  }),
  'By id.',
);

/** Endpoint 9: the series catalogue of redistributable sources with latest values. */
export const SERIES_DATA: JsonSchema = arrayOf(
  object({
    key: text('Series key `<source>.<native id>`.'),
    slug: text(),
    name: text(),
    source: text('Catalog source id.'),
    frequency: oneOfText(FREQUENCIES),
    unit: text(),
    country: nullable(text('ISO 3166-1 alpha-2 the series is about.')),
    region: nullable(text('UN M49 code the series is about.')),
    currency: nullable(text('ISO 4217 code the series is quoted in or about.')),
    sector: nullable(text('Sector id.')),
    seasonal_adjustment: nullable(text()),
    latest: nullable(
      object(
        {
          period: period(),
          value: number(),
          observed_at: timestamp(),
          revision_number: integer(undefined, { minimum: 1 }),
        },
        'The newest period (its revision in force); null while the snapshot holds no value.',
      ),
    ),
    ...HISTORY_LINKS,
  }),
  'By key.',
);

/** The geography filters a payload applied; only those asked for are present. */
export const GEO_FILTERS: JsonSchema = partialObject(
  {
    country: text(undefined, { pattern: '^[A-Z]{2}$' }),
    region: text('Always the three-digit M49 code, whichever spelling was asked for.', {
      pattern: '^\\d{3}$',
    }),
    currency: text(undefined, { pattern: '^[A-Z]{3}$' }),
  },
  'The filters applied.',
);

/** Endpoint 9 meta. */
export const SERIES_META: Record<string, JsonSchema> = {
  filters: GEO_FILTERS,
  attribution: SOURCE_TERMS_LIST,
};

/** Endpoint 10: sectors with measured coverage. */
export const SECTORS_DATA: JsonSchema = arrayOf(
  object({
    id: text(),
    name: text(),
    description: text(),
    series_count: integer('Catalog series of the sector whose source is redistributable.', COUNT),
    markets_count: integer('Tracked COT markets of the sector.', COUNT),
    fresh_series: integer(undefined, COUNT),
    stale_series: integer(undefined, COUNT),
    series_without_data: integer(undefined, COUNT),
    fresh_markets: integer(undefined, COUNT),
    stale_markets: integer(undefined, COUNT),
    markets_without_data: integer(undefined, COUNT),
    last_observed_at: nullable(timestamp('Newest knowledge time over its series and markets.')),
    coverage: oneOfText(
      ['full', 'partial', 'stale', 'none'],
      '`none` no data; `full` all data and all fresh; `partial` some fresh; `stale` data but none fresh.',
    ),
  }),
  'By id.',
);

/** Endpoint 10 meta. */
export const SECTORS_META: Record<string, JsonSchema> = {
  checked_at: timestamp('The instant freshness was measured at (pre-rendered: the build time).'),
};

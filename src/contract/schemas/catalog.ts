import { FREQUENCIES, RIGHTS } from '../../model/records.ts';
import { SOURCE_TERMS_LIST } from './envelope.ts';
import * as js from './json-schema.ts';

const COUNT = { minimum: 0 };

/** Links to a series' public history (endpoint 15), on endpoints 4 and 9. */
export const HISTORY_LINKS: Record<string, js.JsonSchema> = {
  history_url: js.nullable(
    js.text('Path of the public history (values in force, JSON): /api/v1/series/{slug}; null without data.'),
  ),
  history_csv_url: js.nullable(
    js.text('The same history as CSV: /api/v1/series/{slug}.csv; null without data.'),
  ),
};

/** Endpoint 6: research findings, newest first. */
export const RESEARCH_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    id: js.text(),
    slug: js.text('Stable identifier.'),
    title: js.text(),
    published_at: js.timestamp(),
    authors: js.arrayOf(js.text()),
    tags: js.arrayOf(js.text()),
    summary: js.text(),
    series: js.arrayOf(js.text(), 'Series keys the finding is about, only those of redistributable sources.'),
    body_markdown: js.text('The full note as Markdown.'),
  }),
  'Newest published_at first, ties by id.',
);

/** Endpoint 7: the source catalog (metadata only, for every source whatever its rights). */
export const SOURCES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    id: js.text(),
    name: js.text(),
    publisher: js.text(),
    url: js.text(undefined, { format: 'uri' }),
    licence: js.text(),
    licence_url: js.nullable(js.text(undefined, { format: 'uri' })),
    rights: js.oneOfText(RIGHTS, 'Rights class; the first two are redistributable.'),
    redistributable: js.boolean('True for public_domain and open_licence: only their data is published.'),
    attribution: js.text('Text to show next to the data.'),
    cadence: js.oneOfText(FREQUENCIES),
    sample: js.boolean('True for invented demo sources.'),
    series_count: js.integer('Entries in the series catalog, whatever their rights or data.', COUNT),
  }),
  'By id.',
);

/** Endpoint 9: the series catalogue of redistributable sources with latest values. */
export const SERIES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    key: js.text('Series key `<source>.<native id>`.'),
    slug: js.text(),
    name: js.text(),
    source: js.text('Catalog source id.'),
    frequency: js.oneOfText(FREQUENCIES),
    unit: js.text(),
    country: js.nullable(js.text('ISO 3166-1 alpha-2 the series is about.')),
    region: js.nullable(js.text('UN M49 code the series is about.')),
    currency: js.nullable(js.text('ISO 4217 code the series is quoted in or about.')),
    sector: js.nullable(js.text('Sector id.')),
    seasonal_adjustment: js.nullable(js.text()),
    latest: js.nullable(
      js.object(
        {
          period: js.period(),
          value: js.number(),
          observed_at: js.timestamp(),
          revision_number: js.integer(undefined, { minimum: 1 }),
        },
        'The newest period (its revision in force); null while the snapshot holds no value.',
      ),
    ),
    ...HISTORY_LINKS,
  }),
  'By key.',
);

/** The geography filters a payload applied; only those asked for are present. */
export const GEO_FILTERS: js.JsonSchema = js.partialObject(
  {
    country: js.text(undefined, { pattern: '^[A-Z]{2}$' }),
    region: js.text('Always the three-digit M49 code, whichever spelling was asked for.', {
      pattern: '^\\d{3}$',
    }),
    currency: js.text(undefined, { pattern: '^[A-Z]{3}$' }),
  },
  'The filters applied.',
);

/** Endpoint 9 meta. */
export const SERIES_META: Record<string, js.JsonSchema> = {
  filters: GEO_FILTERS,
  attribution: SOURCE_TERMS_LIST,
};

/** Endpoint 10: sectors with measured coverage. */
export const SECTORS_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    id: js.text(),
    name: js.text(),
    description: js.text(),
    series_count: js.integer('Catalog series of the sector whose source is redistributable.', COUNT),
    markets_count: js.integer('Tracked COT markets of the sector.', COUNT),
    fresh_series: js.integer(undefined, COUNT),
    stale_series: js.integer(undefined, COUNT),
    series_without_data: js.integer(undefined, COUNT),
    fresh_markets: js.integer(undefined, COUNT),
    stale_markets: js.integer(undefined, COUNT),
    markets_without_data: js.integer(undefined, COUNT),
    last_observed_at: js.nullable(js.timestamp('Newest knowledge time over its series and markets.')),
    coverage: js.oneOfText(
      ['full', 'partial', 'stale', 'none'],
      '`none` no data; `full` all data and all fresh; `partial` some fresh; `stale` data but none fresh.',
    ),
  }),
  'By id.',
);

/** Endpoint 10 meta. */
export const SECTORS_META: Record<string, js.JsonSchema> = {
  checked_at: js.timestamp('The instant freshness was measured at (pre-rendered: the build time).'),
};

import { FREQUENCIES } from '../../model/records.ts';
import { createEnvelope } from './envelope.ts';
import {
  arrayOf,
  integer,
  nullable,
  number,
  object,
  oneOfText,
  period,
  text,
  timestamp,
} from './json-schema.ts';

/** Endpoint 26: the ranked matches of a series search. */
export const SERIES_SEARCH_BODY = createEnvelope(
  arrayOf(
    object({
      key: text('Series key `<source>.<native id>`.'),
      slug: text('Series slug (/api/v1/series/{slug}).'),
      name: text('Title of the series.'),
      source: text('Catalog source id.'),
      frequency: oneOfText(FREQUENCIES),
      unit: text(),
      country: nullable(text('ISO 3166-1 alpha-2 code.')),
      region: nullable(text('UN M49 code.')),
      seasonal_adjustment: nullable(text()),
      fred_id: nullable(text('The FRED series id of the same data, where the catalog names one.')),
      notes: nullable(text("The catalog's description of the series.")),
      score: integer('Rank score: per word the weight of the best field it matches, summed (higher first).', {
        minimum: 1,
      }),
      latest: nullable(
        object({
          period: period(),
          value: number('Latest value in force.'),
          observed_at: timestamp('When it became known.'),
        }),
      ),
      history_url: nullable(text('Public history, JSON (/api/v1/series/{slug}).')),
      history_csv_url: nullable(text('Public history, CSV.')),
    }),
    'Matches, best first (score, then name, then key), offset and limit applied.',
  ),
  {
    search_text: text('The search text as asked.'),
    matches: integer('How many series match, before offset and limit.', { minimum: 0 }),
    offset: integer('Matches skipped before the first row.', { minimum: 0 }),
    limit: integer('Rows per page.', { minimum: 1 }),
    next_offset: nullable(integer('The offset of the next page; null on the last.', { minimum: 0 })),
  },
);

import { FREQUENCIES } from '../../model/records.ts';
import { createEnvelope } from './envelope.ts';
import * as js from './json-schema.ts';

/** Endpoint 26: the ranked matches of a series search. */
export const SERIES_SEARCH_BODY = createEnvelope(
  js.arrayOf(
    js.object({
      key: js.text('Series key `<source>.<native id>`.'),
      slug: js.text('Series slug (/api/v1/series/{slug}).'),
      name: js.text('Title of the series.'),
      source: js.text('Catalog source id.'),
      frequency: js.oneOfText(FREQUENCIES),
      unit: js.text(),
      country: js.nullable(js.text('ISO 3166-1 alpha-2 code.')),
      region: js.nullable(js.text('UN M49 code.')),
      seasonal_adjustment: js.nullable(js.text()),
      fred_id: js.nullable(js.text('The FRED series id of the same data, where the catalog names one.')),
      notes: js.nullable(js.text("The catalog's description of the series.")),
      score: js.integer(
        'Rank score: per word the weight of the best field it matches, summed (higher first).',
        {
          minimum: 1,
        },
      ),
      latest: js.nullable(
        js.object({
          period: js.period(),
          value: js.number('Latest value in force.'),
          observed_at: js.timestamp('When it became known.'),
        }),
      ),
      history_url: js.nullable(js.text('Public history, JSON (/api/v1/series/{slug}).')),
      history_csv_url: js.nullable(js.text('Public history, CSV.')),
    }),
    'Matches, best first (score, then name, then key), offset and limit applied.',
  ),
  {
    search_text: js.text('The search text as asked.'),
    matches: js.integer('How many series match, before offset and limit.', { minimum: 0 }),
    offset: js.integer('Matches skipped before the first row.', { minimum: 0 }),
    limit: js.integer('Rows per page.', { minimum: 1 }),
    next_offset: js.nullable(js.integer('The offset of the next page; null on the last.', { minimum: 0 })),
  },
);

import { FREQUENCIES } from '../../model/records.ts';
import { HISTORY_LINKS } from './catalog.ts';
import * as js from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';
import { NEXT_RELEASE } from './releases.ts';

/** Endpoint 4: per tracked macro series its latest value. */
export const MACRO_LATEST_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    key: js.text('Series key.'),
    slug: js.text('Slug for /api/v1/macro/{slug}.'),
    name: js.text(),
    source: js.text('Catalog source id.'),
    frequency: js.oneOfText(FREQUENCIES),
    unit: js.text(),
    seasonal_adjustment: js.nullable(js.text('`SA`, `NSA`, ...')),
    country: js.nullable(js.text('ISO 3166-1 alpha-2.')),
    latest: js.nullable(
      js.object(
        {
          period: js.period(),
          value: js.number(),
          published_at: js.timestamp('When this value became known.'),
          published_at_method: knowledgeMethod('published_at'),
          revision_number: js.integer(undefined, { minimum: 1 }),
        },
        'The newest period and its revision in force; null while the snapshot holds no value.',
      ),
    ),
    first_period: js.nullable(js.period('Oldest period held.')),
    periods: js.nullable(js.integer('Number of periods held.', { minimum: 0 })),
    next_release: js.nullable(NEXT_RELEASE),
    ...HISTORY_LINKS,
  }),
  'Tracked series of redistributable sources, by slug.',
);

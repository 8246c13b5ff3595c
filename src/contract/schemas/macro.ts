import { FREQUENCIES } from '../../model/records.ts';
import { HISTORY_LINKS } from './catalog.ts';
import {
  arrayOf,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  oneOfText,
  period,
  text,
  timestamp,
} from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';
import { NEXT_RELEASE } from './releases.ts';

/** Endpoint 4: per tracked macro series its latest value. */
export const MACRO_LATEST_DATA: JsonSchema = arrayOf(
  object({
    key: text('Series key.'),
    slug: text('Slug for /api/v1/macro/{slug}.'),
    name: text(),
    source: text('Catalog source id.'),
    frequency: oneOfText(FREQUENCIES),
    unit: text(),
    seasonal_adjustment: nullable(text('`SA`, `NSA`, ...')),
    country: nullable(text('ISO 3166-1 alpha-2.')),
    latest: nullable(
      object(
        {
          period: period(),
          value: number(),
          published_at: timestamp('When this value became known.'),
          published_at_method: knowledgeMethod('published_at'),
          revision_number: integer(undefined, { minimum: 1 }),
        },
        'The newest period and its revision in force; null while the snapshot holds no value.',
      ),
    ),
    first_period: nullable(period('Oldest period held.')),
    periods: nullable(integer('Number of periods held.', { minimum: 0 })),
    next_release: nullable(NEXT_RELEASE),
    ...HISTORY_LINKS,
  }),
  'Tracked series of redistributable sources, by slug.',
);

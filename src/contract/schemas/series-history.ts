import { FREQUENCIES, REDISTRIBUTABLE_RIGHTS } from '../../model/records.ts';
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

/** Endpoint 15: per period the value in force in the snapshot. */
export const SERIES_HISTORY_DATA: JsonSchema = arrayOf(
  object({
    period: period(),
    value: number('The value in force: the latest revision of the period in the snapshot.'),
    revision_number: integer('Revision of the value in force (1 = first release).', { minimum: 1 }),
    observed_at: timestamp('When this revision became known.'),
  }),
  'One row per period, oldest period first (newest first with sort_order=desc), within from/to, limit rows ' +
    'a page. Earlier revisions are not listed (keyed: /api/v1/observations).',
);

/** Endpoint 15 meta. */
export const SERIES_HISTORY_META: Record<string, JsonSchema> = {
  series: object(
    {
      key: text('Series key `<source>.<native id>`.'),
      slug: text(),
      name: text(),
      unit: text(),
      frequency: oneOfText(FREQUENCIES),
      source: text('Catalog source id.'),
      seasonal_adjustment: nullable(text()),
    },
    'The series from the catalog.',
  ),
  first_period: nullable(period('First period listed (the oldest, or the newest with sort_order=desc).')),
  last_period: nullable(period('Last period listed.')),
  filters: object(
    { from: nullable(text('from as asked.')), to: nullable(text('to as asked.')) },
    'The period range asked for (null: open).',
  ),
  sort_order: oneOfText(['asc', 'desc'], 'Row order.'),
  next_cursor: nullable(text('Cursor of the next page (limit given and more rows), else null.')),
  rights: oneOfText(REDISTRIBUTABLE_RIGHTS, "The source's rights class: always a redistributable one."),
  licence: text('Licence of the data.'),
  licence_url: nullable(text(undefined, { format: 'uri' })),
  attribution: text('Attribution to show next to the data.'),
  csv_url: text('The same rows as RFC 4180 CSV: /api/v1/series/{slug}.csv.'),
};

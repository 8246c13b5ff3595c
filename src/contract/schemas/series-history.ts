import { FREQUENCIES, REDISTRIBUTABLE_RIGHTS } from '../../model/records.ts';
import * as js from './json-schema.ts';

/** Endpoint 15: per period the value in force in the snapshot. */
export const SERIES_HISTORY_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    period: js.period(),
    value: js.number('The value in force: the latest revision of the period in the snapshot.'),
    revision_number: js.integer('Revision of the value in force (1 = first release).', { minimum: 1 }),
    observed_at: js.timestamp('When this revision became known.'),
  }),
  'One row per period, oldest period first (newest first with sort_order=desc), within from/to, limit rows ' +
    'a page. Earlier revisions are not listed (keyed: /api/v1/observations).',
);

/** Endpoint 15 meta. */
export const SERIES_HISTORY_META: Record<string, js.JsonSchema> = {
  series: js.object(
    {
      key: js.text('Series key `<source>.<native id>`.'),
      slug: js.text(),
      name: js.text(),
      unit: js.text(),
      frequency: js.oneOfText(FREQUENCIES),
      source: js.text('Catalog source id.'),
      seasonal_adjustment: js.nullable(js.text()),
    },
    'The series from the catalog.',
  ),
  first_period: js.nullable(
    js.period('First period listed (the oldest, or the newest with sort_order=desc).'),
  ),
  last_period: js.nullable(js.period('Last period listed.')),
  filters: js.object(
    { from: js.nullable(js.text('from as asked.')), to: js.nullable(js.text('to as asked.')) },
    'The period range asked for (null: open).',
  ),
  sort_order: js.oneOfText(['asc', 'desc'], 'Row order.'),
  next_cursor: js.nullable(js.text('Cursor of the next page (limit given and more rows), else null.')),
  rights: js.oneOfText(REDISTRIBUTABLE_RIGHTS, "The source's rights class: always a redistributable one."),
  licence: js.text('Licence of the data.'),
  licence_url: js.nullable(js.text(undefined, { format: 'uri' })),
  attribution: js.text('Attribution to show next to the data.'),
  csv_url: js.text('The same rows as RFC 4180 CSV: /api/v1/series/{slug}.csv.'),
};

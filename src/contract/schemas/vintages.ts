import { REALTIME_ZONE } from '../vintage-params.ts';
import { createEnvelope, createMeta, SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';
import { SERIES_HISTORY } from './observations.ts';

/** ALFRED's real-time view of endpoints 5 and 8 (meta.view `vintages`; docs/api/vintages.md). */
export const VINTAGE_COMPONENTS: Record<string, js.JsonSchema> = {
  VintageValue: js.object(
    {
      period: js.period(),
      value: js.nullable(
        js.number(
          'The value; null (ALFRED writes `.`) where output_type 2 shows a period not yet known at the vintage date.',
        ),
      ),
      realtime_start: js.date(
        `First day (${REALTIME_ZONE}) the value was in force, clipped to realtime_start; output_types 2 and 3: the vintage date.`,
      ),
      realtime_end: js.date(
        'Last day it was in force (9999-12-31: still is), clipped to realtime_end; output_types 2 and 3: the vintage date.',
      ),
    },
    'One value with its real-time period, as ALFRED gives it.',
  ),
  SeriesHistoryVintagesMeta: createMeta(
    true,
    {
      view: { type: 'string', const: 'vintages', description: 'The ALFRED real-time view.' },
      series: SERIES_HISTORY.meta.series,
      output_type: js.integer("ALFRED's output_type of the rows: 1, 2, 3 or 4.", { minimum: 1, maximum: 4 }),
      realtime_start: js.date('Start of the real-time period (the first vintage date with vintage_dates).'),
      realtime_end: js.date('End of the real-time period (the last vintage date with vintage_dates).'),
      realtime_zone: js.text('The zone of the days: America/Chicago (St. Louis, as ALFRED).'),
      vintage_dates: js.nullable(
        js.arrayOf(
          js.date(),
          'The vintage dates of the rows (output_types 2 and 3, or vintage_dates); else null.',
        ),
      ),
      as_of: js.nullable(js.timestamp('Always null: the real-time parameters replace as_of.')),
      filters: SERIES_HISTORY.meta.filters,
      sort_order: SERIES_HISTORY.meta.sort_order,
      next_cursor: js.nullable(js.text('Always null: the vintages view is one page.')),
      ...SINGLE_SOURCE_TERMS,
    },
    'Meta of the vintages view.',
  ),
  SeriesHistoryVintages: js.object(
    {
      data: js.arrayOf(
        js.ref('VintageValue'),
        'By period, then real time (reversed with sort_order=desc); one page.',
      ),
      meta: { allOf: [js.ref('SeriesHistoryVintagesMeta')], description: 'meta.view is `vintages`.' },
    },
    'The ALFRED view of endpoints 5 and 8 (meta.view `vintages`: realtime_start/realtime_end, output_type or vintage_dates given).',
  ),
};

/** Endpoint 27: the vintage dates of a series. */
export const VINTAGE_DATES_BODY = createEnvelope(
  js.arrayOf(
    js.object({
      vintage_date: js.date(
        `A day (${REALTIME_ZONE}) on which a value of the series was released or revised.`,
      ),
      observed_at: js.timestamp(
        'The knowledge time of the last record of that day: as_of from it sees the vintage.',
      ),
    }),
    'Oldest first (newest first with sort_order=desc).',
  ),
  {
    series: js.object({
      key: js.text(),
      slug: js.nullable(js.text()),
      name: js.nullable(js.text()),
      source: js.nullable(js.text()),
    }),
    realtime_start: js.date(),
    realtime_end: js.date(),
    realtime_zone: js.text(),
    sort_order: js.oneOfText(['asc', 'desc']),
    ...SINGLE_SOURCE_TERMS,
  },
);

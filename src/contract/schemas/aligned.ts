import { z } from 'zod';
import { FREQUENCIES } from '../../model/records.ts';
import { INSTANT_PATTERN } from '../instant.ts';
import { PARAMS, type ParamSpec } from '../params.ts';
import { createEnvelope, SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';
import { SERIES_HISTORY } from './observations.ts';

/**
 * The contract of /api/v1/observations/aligned (docs/api/aligned.md): the bound on series, the
 * route's own `series` and `frequency`, and the 200 body.
 */

/** Most series one aligned request may name. */
export const ALIGNED_MAX_SERIES = 50;

/** One series key of an aligned request (an observation key, or a COT key with an optional field). */
const KEY = '[a-z0-9-]{1,32}\\.[A-Za-z0-9_.-]{1,64}';
const KEY_LIST = new RegExp(`^${KEY}(,${KEY})*$`);

/** The columns a COT series key can give (docs/api/aligned.md): open interest, or a category's net. */
export const ALIGNED_COT_FIELDS = 'open_interest (the bare key) or net.<category> (long - short)';

/**
 * `series` on /observations/aligned (a per-route override): 1 to ALIGNED_MAX_SERIES keys
 * separated by commas, without repeats; the columns follow their order.
 */
export const ALIGNED_SERIES_PARAM: ParamSpec = {
  description:
    `Series keys to align, 1 to ${ALIGNED_MAX_SERIES} separated by commas, without repeats; one column per key, ` +
    'in this order (meta.series). Observation keys as on /api/v1/observations (bls.CES0000000001, ecb.USD); a ' +
    'COT series key (cftc.<market code>.<report type>) gives the open interest of its reports, and ' +
    '<COT key>.net.<category> (cftc.088691.legacy.net.noncommercial) the net position (long - short) of one ' +
    'trader category. An unknown key is a 400 naming it.',
  schema: z
    .string()
    .max(ALIGNED_MAX_SERIES * 120)
    .regex(KEY_LIST)
    .refine((text) => {
      const keys = text.split(',');
      return keys.length <= ALIGNED_MAX_SERIES && new Set(keys).size === keys.length;
    }),
  expected:
    `1 to ${ALIGNED_MAX_SERIES} series keys separated by commas, without repeats, such as ` +
    'bls.CES0000000001,ecb.USD (COT: cftc.088691.legacy or cftc.088691.legacy.net.noncommercial)',
  openapi: { type: 'string', pattern: KEY_LIST.source },
  required: true,
};

/** The `as_of` value of the point-in-time panel: each row as known at the end of its own date. */
export const ALIGNED_ROW_AS_OF = 'row';

/** What "the end of a row's date" is, said once for the parameter, the row field and the docs. */
export const ALIGNED_ROW_INSTANT =
  "the end of the row's last day in UTC (23:59:59Z of the week's Friday, of the month's last day), or the " +
  'time of the request when that is still ahead (the current week or month)';

/**
 * `as_of` on /observations/aligned (a per-route override): an instant as everywhere, or `row` for
 * the point-in-time panel (docs/api/aligned.md).
 */
export const ALIGNED_AS_OF_PARAM: ParamSpec = {
  ...PARAMS.as_of,
  description:
    `${PARAMS.as_of.description} Or \`${ALIGNED_ROW_AS_OF}\`: a point-in-time panel, each row with every series as ` +
    `known at ${ALIGNED_ROW_INSTANT}, stated in the row's as_of; whatever the series' frequencies, each ` +
    'cell is what a request with that as_of gives for the row. The rows are those of the request without as_of.',
  schema: z.union([z.literal(ALIGNED_ROW_AS_OF), PARAMS.as_of.schema]),
  expected: `${PARAMS.as_of.expected}; or ${ALIGNED_ROW_AS_OF} (each row as known at the end of its own date)`,
  // One string schema (no union): the instant forms' pattern, or `row`.
  openapi: {
    type: 'string',
    pattern: `^(?:${ALIGNED_ROW_AS_OF}|${INSTANT_PATTERN.slice(1, -1)})$`,
    examples: [ALIGNED_ROW_AS_OF, '2025-12-31T12:00:00Z', '2025-12-31'],
  },
};

/** `frequency` on /observations/aligned (a per-route override): the calendar, required. */
export const ALIGNED_FREQUENCY_PARAM: ParamSpec = {
  ...PARAMS.frequency,
  description:
    'The calendar of the rows: w (weeks ending Friday, labelled by the Friday, as the transforms) or m ' +
    '(months, YYYY-MM). Any series frequency may be aligned to either: a finer or equal series gives its ' +
    'last value in the period, a coarser one the value of its period that holds the row (docs/api/aligned.md).',
  schema: z.enum(['w', 'm']),
  expected: 'w or m',
  openapi: { type: 'string', enum: ['w', 'm'] },
  required: true,
};

const alignedSeries = js.object(
  {
    key: js.text('The key as requested (a COT key with its field, if any).'),
    series_key: js.text('The stored series the column is read from.'),
    field: js.nullable(
      js.text(`What a COT column holds: ${ALIGNED_COT_FIELDS}; null for an observation series (its value).`),
    ),
    name: js.nullable(js.text('Catalog name (COT: the market name), null when not catalogued.')),
    unit: js.nullable(js.text('Unit of the values (COT: contracts).')),
    source: js.nullable(js.text('Catalog source id.')),
    source_frequency: js.oneOfText(
      FREQUENCIES,
      "The series' own frequency (catalog, else implied by its periods).",
    ),
    mapping: js.oneOfText(
      ['end_of_period', 'containing_period'],
      '`end_of_period`: the series is as fine as the rows or finer, each row has the value of its last period ' +
        'in the row (daily on w or m, weekly on w or m, monthly on m); `containing_period`: the series is ' +
        'coarser, each row has the value of the latest of its periods holding a day of the row (monthly on w).',
    ),
    ...SINGLE_SOURCE_TERMS,
  },
  'One column of the aligned rows.',
);

const rowFields = js.object(
  {
    period: js.period('The row: a week by its Friday (YYYY-MM-DD) or a month (YYYY-MM).'),
    values: js.arrayOf(
      js.nullable(js.number()),
      "One value per series of meta.series, in that order, as known at as_of (as_of=row: at the row's as_of); " +
        'null when the series has none for the row (after fill).',
    ),
    filled: js.arrayOf(
      js.boolean(),
      'One flag per series of meta.series: true when the value was carried forward from the previous row (fill=ffill).',
    ),
  },
  'One period of the common calendar.',
);
/** The row; with as_of=row also its own knowledge time (present only then, after period). */
const alignedRow: js.JsonSchema = {
  ...rowFields,
  properties: {
    ...(rowFields.properties as Record<string, js.JsonSchema>),
    as_of: js.timestamp(`Only with as_of=row: the instant the row is as known at, ${ALIGNED_ROW_INSTANT}.`),
  },
};

/** The 200 body of /api/v1/observations/aligned. */
export const ALIGNED_BODY: js.JsonSchema = createEnvelope(
  js.arrayOf(alignedRow, 'One row per period of the calendar, oldest first.'),
  {
    series: js.arrayOf(alignedSeries, 'The columns, in the order of `series`.'),
    frequency: js.oneOfText(['w', 'm'], 'The calendar of the rows.'),
    fill: js.oneOfText(['ffill', 'none'], 'How periods without a value of their own were filled.'),
    as_of: js.nullable(
      js.text(
        "The as_of asked for: an instant, null (everything the snapshot knows), or row (each row's own as_of).",
        {
          pattern: `^(?:${ALIGNED_ROW_AS_OF}|\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z)$`,
        },
      ),
    ),
    filters: SERIES_HISTORY.meta.filters,
    sort_order: SERIES_HISTORY.meta.sort_order,
    next_cursor: SERIES_HISTORY.meta.next_cursor,
    max_series: js.integer(`The bound on series per request (${ALIGNED_MAX_SERIES}).`, { minimum: 1 }),
  },
  {
    description:
      'One row per week (ending Friday) or month, one value per series as known at as_of (docs/api/aligned.md).',
  },
);

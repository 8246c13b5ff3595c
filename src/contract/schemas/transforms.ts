import { FREQUENCIES } from '../../model/records.ts';
import {
  TRANSFORM_AGGREGATIONS,
  TRANSFORM_FREQUENCIES,
  TRANSFORM_NOTES,
  TRANSFORM_ORDER,
  TRANSFORM_UNITS,
} from '../transforms.ts';
import { createMeta } from './envelope.ts';
import {
  arrayOf,
  boolean,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  oneOfText,
  period,
  ref,
  timestamp,
} from './json-schema.ts';
import { SERIES_HISTORY } from './observations.ts';

const NOTE_CODES = Object.keys(TRANSFORM_NOTES);
const NOTE_TEXT = Object.entries(TRANSFORM_NOTES)
  .map(([code, text]) => `\`${code}\`: ${text}`)
  .join('; ');

/** The two views of endpoints 5 and 8, tagged by meta.view, and the schema of each view's meta. */
const HISTORY_VIEWS = {
  revisions: 'SeriesHistoryRevisionsMeta',
  transformed: 'SeriesHistoryTransformedMeta',
} as const;

const view = (value: string, description: string): JsonSchema => ({
  type: 'string',
  const: value,
  description,
});

/** Named schemas of the transformed view (docs/api/transforms.md). */
export const TRANSFORM_COMPONENTS: Record<string, JsonSchema> = {
  TransformedValue: object(
    {
      period: period(
        'The period: of the series, or of the frequency asked for (a week ending Friday is labelled by its Friday).',
      ),
      value: nullable(
        number('The value after aggregation and units; null when it cannot be computed (see note).'),
      ),
      level: nullable(
        number(
          'The value in force at as_of after aggregation, before units (lin); null for sum and eop of an incomplete period.',
        ),
      ),
      source_values: integer(
        'How many values in force were aggregated into the period (1 without frequency).',
        {
          minimum: 1,
        },
      ),
      complete: boolean(
        'Whether the values known at as_of cover the whole period (every month of a quarter; for daily and weekly series, values on or before its first day and on or after its last). Always true without frequency.',
      ),
      observed_at: timestamp(
        'The latest knowledge time of the values the row was computed from (the lag included): never after as_of.',
      ),
      note: nullable(oneOfText(NOTE_CODES, `Why value is null: ${NOTE_TEXT}.`)),
    },
    'One period of a transformed series: the values in force at as_of, aggregated, then transformed.',
  ),
  [HISTORY_VIEWS.revisions]: createMeta(
    true,
    {
      view: view('revisions', 'Every revision record (no units, frequency or aggregation asked for).'),
      ...SERIES_HISTORY.meta,
    },
    'Meta of the revision listing.',
  ),
  [HISTORY_VIEWS.transformed]: createMeta(
    true,
    {
      view: view(
        'transformed',
        'One row per period, transformed (units, frequency or aggregation asked for).',
      ),
      ...SERIES_HISTORY.meta,
      transform: object(
        {
          order: {
            type: 'array',
            items: { type: 'string', enum: [...TRANSFORM_ORDER] },
            description: 'The steps in the order applied: as_of selection, then aggregation, then units.',
          },
          as_of: nullable(timestamp('The knowledge time of step 1 (null: everything the snapshot knows).')),
          source_frequency: oneOfText(
            FREQUENCIES,
            'Frequency of the stored series (the catalog, else implied by its periods).',
          ),
          frequency: nullable(
            oneOfText(TRANSFORM_FREQUENCIES, 'The frequency asked for; null: not aggregated.'),
          ),
          output_frequency: oneOfText(FREQUENCIES, 'Frequency of the rows.'),
          aggregation: nullable(
            oneOfText(TRANSFORM_AGGREGATIONS, 'How periods were aggregated; null without frequency.'),
          ),
          units: oneOfText(TRANSFORM_UNITS, 'The units transformation applied (lin: none).'),
          periods_per_year: integer("n of FRED's formulas (n_obs_per_yr) for the output frequency.", {
            minimum: 1,
          }),
          incomplete_periods: nullable(
            oneOfText(
              ['kept', 'null'],
              '`kept`: avg of a period the values do not fully cover is given (complete=false); `null`: sum and eop of such a period are null. Null without frequency.',
            ),
          ),
          notes: arrayOf(
            object({
              note: oneOfText(NOTE_CODES),
              periods: integer('Rows of this page with the note.', { minimum: 1 }),
              first_period: period('The first of them.'),
            }),
            'Why values of this page are null, one entry per reason; empty when every value was computed.',
          ),
        },
        'What was applied, in which order (docs/api/transforms.md).',
      ),
    },
    'Meta of the transformed view.',
  ),
};

/**
 * The 200 body of endpoints 5 and 8: `meta` is a tagged union on meta.view (revisions or
 * transformed); a `data` row is an Observation (it has in_force) in the revisions view and a
 * TransformedValue in the transformed one, told apart by if/then/else on the `level` field (a oneOf of rows would need
 * a tag in every Observation row).
 */
export const SERIES_HISTORY_BODY: JsonSchema = {
  description:
    'meta.view `revisions`: every revision record (Observation rows). meta.view `transformed` (units, frequency or aggregation given): one TransformedValue row per period.',
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: arrayOf(
      {
        // A row without a `level` field is a revision record (no `required`, which strict validators
        // refuse without `properties`, and no `properties`, so that closing objects keeps it true).
        if: { propertyNames: { not: { const: 'level' } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, not a thenable
        then: ref('Observation'),
        else: ref('TransformedValue'),
      },
      'Observation rows (meta.view revisions) or TransformedValue rows (meta.view transformed), oldest period first.',
    ),
    meta: {
      oneOf: Object.values(HISTORY_VIEWS).map((name) => ({ $ref: `#/components/schemas/${name}` })),
      discriminator: {
        propertyName: 'view',
        mapping: Object.fromEntries(
          Object.entries(HISTORY_VIEWS).map(([value, name]) => [value, `#/components/schemas/${name}`]),
        ),
      },
    },
  },
};

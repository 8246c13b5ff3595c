import { FREQUENCIES } from '../../model/records.ts';
import {
  TRANSFORM_AGGREGATIONS,
  TRANSFORM_FREQUENCIES,
  TRANSFORM_NOTES,
  TRANSFORM_ORDER,
  TRANSFORM_ROUNDING,
  TRANSFORM_UNITS,
} from '../../model/transforms.ts';
import { createMeta } from './envelope.ts';
import * as js from './json-schema.ts';
import { SERIES_HISTORY } from './observations.ts';

const NOTE_CODES = Object.keys(TRANSFORM_NOTES);
const NOTE_TEXT = Object.entries(TRANSFORM_NOTES)
  .map(([code, text]) => `\`${code}\`: ${text}`)
  .join('; ');

/**
 * The two views of endpoints 5 and 8, tagged by meta.view: per view the schema of its whole body,
 * of its meta and of its rows.
 */
const HISTORY_VIEWS = {
  revisions: { body: 'SeriesHistoryRevisions', meta: 'SeriesHistoryRevisionsMeta', row: 'Observation' },
  transformed: {
    body: 'SeriesHistoryTransformed',
    meta: 'SeriesHistoryTransformedMeta',
    row: 'TransformedValue',
  },
} as const;

/**
 * The annotation naming the tag of a union whose tag is nested (`meta.view`, a dotted path): an
 * OpenAPI discriminator names a top-level property only. Tools ignore it (an `x-` keyword); the
 * OpenAPI test checks that every branch requires the path and has its own const there.
 */
export const TAGGED_BY = 'x-tagged-by';

const view = (value: string, description: string): js.JsonSchema => ({
  type: 'string',
  const: value,
  description,
});

/**
 * `meta` of one view's body: its named meta, wrapped in a one-member allOf with a description (the
 * OpenAPI 3.0 idiom for a described $ref; generators type it as the named schema). Redocly's
 * no-illogical-composition-keywords compares oneOf branches one level deep: with a bare $ref it would
 * see two object-typed `meta` and report the views as overlapping, blind to meta.view one level
 * down; it leaves an allOf to other checks, and the OpenAPI test checks the tag (x-tagged-by).
 */
const viewMeta = (name: string, description: string): js.JsonSchema => ({
  allOf: [js.ref(name)],
  description,
});

/** Named schemas of the transformed view (docs/api/transforms.md). */
export const TRANSFORM_COMPONENTS: Record<string, js.JsonSchema> = {
  TransformedValue: js.object(
    {
      period: js.period(
        'The period: of the series, or of the frequency asked for (a week ending Friday is labelled by its Friday).',
      ),
      value: js.nullable(
        js.number('The value after aggregation and units; null when it cannot be computed (see note).'),
      ),
      level: js.nullable(
        js.number(
          'The value in force at as_of after aggregation, before units (lin); null for sum and eop of an incomplete period.',
        ),
      ),
      source_values: js.integer(
        'How many values in force were aggregated into the period (1 without frequency).',
        {
          minimum: 1,
        },
      ),
      complete: js.boolean(
        'Whether the values known at as_of cover the whole period (every month of a quarter; for daily and weekly series, values on or before its first day and on or after its last). Always true without frequency.',
      ),
      observed_at: js.timestamp(
        'The latest knowledge time of the values the row was computed from (the lag included): never after as_of.',
      ),
      note: js.nullable(js.oneOfText(NOTE_CODES, `Why value is null: ${NOTE_TEXT}.`)),
    },
    'One period of a transformed series: the values in force at as_of, aggregated, then transformed.',
  ),
  [HISTORY_VIEWS.revisions.meta]: createMeta(
    true,
    {
      view: view('revisions', 'Every revision record (no units, frequency or aggregation asked for).'),
      ...SERIES_HISTORY.meta,
    },
    'Meta of the revision listing.',
  ),
  [HISTORY_VIEWS.transformed.meta]: createMeta(
    true,
    {
      view: view(
        'transformed',
        'One row per period, transformed (units, frequency or aggregation asked for).',
      ),
      ...SERIES_HISTORY.meta,
      transform: js.object(
        {
          order: {
            type: 'array',
            items: { type: 'string', enum: [...TRANSFORM_ORDER] },
            description: 'The steps in the order applied: as_of selection, then aggregation, then units.',
          },
          as_of: js.nullable(
            js.timestamp('The knowledge time of step 1 (null: everything the snapshot knows).'),
          ),
          source_frequency: js.oneOfText(
            FREQUENCIES,
            'Frequency of the stored series (the catalog, else implied by its periods).',
          ),
          frequency: js.nullable(
            js.oneOfText(TRANSFORM_FREQUENCIES, 'The frequency asked for; null: not aggregated.'),
          ),
          output_frequency: js.oneOfText(FREQUENCIES, 'Frequency of the rows.'),
          aggregation: js.nullable(
            js.oneOfText(TRANSFORM_AGGREGATIONS, 'How periods were aggregated; null without frequency.'),
          ),
          units: js.oneOfText(TRANSFORM_UNITS, 'The units transformation applied (lin: none).'),
          periods_per_year: js.integer("n of FRED's formulas (n_obs_per_yr) for the output frequency.", {
            minimum: 1,
          }),
          incomplete_periods: js.nullable(
            js.oneOfText(
              ['kept', 'null'],
              '`kept`: avg of a period the values do not fully cover is given (complete=false); `null`: sum and eop of such a period are null. Null without frequency.',
            ),
          ),
          rounding: js.text(TRANSFORM_ROUNDING),
          notes: js.arrayOf(
            js.object({
              note: js.oneOfText(NOTE_CODES),
              periods: js.integer('Rows of this page with the note.', { minimum: 1 }),
              first_period: js.period('The first of them.'),
            }),
            'Why values of this page are null, one entry per reason; empty when every value was computed.',
          ),
        },
        'What was applied, in which order (docs/api/transforms.md).',
      ),
    },
    'Meta of the transformed view.',
  ),
  [HISTORY_VIEWS.revisions.body]: js.object(
    {
      data: js.arrayOf(js.ref(HISTORY_VIEWS.revisions.row), 'Every revision record, oldest period first.'),
      meta: viewMeta(
        HISTORY_VIEWS.revisions.meta,
        'The meta of the revisions view: meta.view is `revisions`.',
      ),
    },
    'The revisions view of endpoints 5 and 8 (meta.view `revisions`: no units, frequency or aggregation asked for).',
  ),
  [HISTORY_VIEWS.transformed.body]: js.object(
    {
      data: js.arrayOf(js.ref(HISTORY_VIEWS.transformed.row), 'One row per period, oldest first.'),
      meta: viewMeta(
        HISTORY_VIEWS.transformed.meta,
        'The meta of the transformed view: meta.view is `transformed`.',
      ),
    },
    'The transformed view of endpoints 5 and 8 (meta.view `transformed`: units, frequency or aggregation asked for).',
  ),
};

/**
 * The 200 body of endpoints 5 and 8: a oneOf of two whole bodies, tagged by meta.view (revisions:
 * Observation rows; transformed: TransformedValue rows), so that generated clients type `data` of
 * each view (a oneOf of rows would need a tag in every Observation row). The tag is one level down,
 * which an OpenAPI discriminator cannot name: `x-tagged-by` does.
 */
export const SERIES_HISTORY_BODY: js.JsonSchema = {
  description:
    'A oneOf of two bodies told apart by meta.view. meta.view `revisions`: every revision record (SeriesHistoryRevisions, Observation rows). meta.view `transformed` (units, frequency or aggregation given): one row per period (SeriesHistoryTransformed, TransformedValue rows). meta.view `vintages` (ALFRED real-time parameters given): values with their real-time periods (SeriesHistoryVintages, VintageValue rows).',
  oneOf: [...Object.values(HISTORY_VIEWS).map(({ body }) => js.ref(body)), js.ref('SeriesHistoryVintages')],
  [TAGGED_BY]: 'meta.view',
};

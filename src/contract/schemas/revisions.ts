import { createMeta } from './envelope.ts';
import * as js from './json-schema.ts';
import { knowledgeMethod, SERIES_HISTORY } from './observations.ts';

/** Most vintages a triangle may have (docs/api/revisions.md): more is a 400. */
export const REVISIONS_MAX_VINTAGES = 500;

/** The shapes of the revisions endpoints (`shape`), the first the default. */
export const REVISIONS_SHAPE_VALUES = ['list', 'triangle'] as const;

/** Why a percent change is null. */
export const REVISION_NOTES = {
  previous_zero: 'the value it is compared with is 0, so no percent change is defined',
} as const;

const NOTE_CODES = Object.keys(REVISION_NOTES);
const NOTE_TEXT = Object.entries(REVISION_NOTES)
  .map(([code, text]) => `\`${code}\`: ${text}`)
  .join('; ');

/** The two shapes of endpoints 20 and 21, tagged by meta.shape, and the schema of each shape's meta. */
const REVISIONS_SHAPES = {
  list: 'RevisionsListMeta',
  triangle: 'RevisionsTriangleMeta',
} as const;

const shape = (value: string, description: string): js.JsonSchema => ({
  type: 'string',
  const: value,
  description,
});

const release = {
  revision_number: js.integer('1 for the first release, +1 per revision.', { minimum: 1 }),
  value: js.number(),
  observed_at: js.timestamp('Knowledge time: when this value became known (what as_of filters on).'),
  observed_at_method: knowledgeMethod('observed_at'),
};

/** Named schemas of the revisions endpoints (docs/api/revisions.md). */
export const REVISIONS_COMPONENTS: Record<string, js.JsonSchema> = {
  RevisionRelease: js.object(release, 'One release of a period: its value and when it became known.'),
  RevisionChange: js.object(
    {
      ...release,
      change: js.number('This value minus the previous revision of the period.'),
      change_percent: js.nullable(
        js.number('change / previous value x 100; null when the previous value is 0 (see note).'),
      ),
      note: js.nullable(js.oneOfText(NOTE_CODES, `Why change_percent is null: ${NOTE_TEXT}.`)),
    },
    'A revision after the first release, with its change from the previous revision.',
  ),
  RevisionPeriod: js.object(
    {
      shape: shape('list', 'The shape this row belongs to (the discriminator of the rows): always `list`.'),
      period: js.period('Reference period.'),
      first_release: js.ref('RevisionRelease', 'Revision 1 of the period.'),
      revisions: js.arrayOf(
        js.ref('RevisionChange'),
        'Every later revision known at as_of, in order; empty when the first release still stands.',
      ),
      latest: js.ref(
        'RevisionRelease',
        'The revision in force at as_of (without as_of: the latest); the first release when never revised.',
      ),
      revision_count: js.integer('Number of revisions after the first release (the length of revisions).', {
        minimum: 0,
      }),
      total_revision: js.number('latest.value - first_release.value.'),
      total_revision_percent: js.nullable(
        js.number('total_revision / first_release.value x 100; null when the first release is 0 (see note).'),
      ),
      total_revision_note: js.nullable(
        js.oneOfText(NOTE_CODES, `Why total_revision_percent is null: ${NOTE_TEXT}.`),
      ),
    },
    'One period: its first release, each revision and its size, and the latest (shape=list).',
  ),
  RevisionTriangleRow: js.object(
    {
      shape: shape(
        'triangle',
        'The shape this row belongs to (the discriminator of the rows): always `triangle`.',
      ),
      period: js.period('Reference period.'),
      values: js.arrayOf(
        js.nullable(js.number()),
        'One value per vintage of meta.vintages, in that order: the value in force for the period at that vintage; null before its first release.',
      ),
    },
    'One period of the revision triangle (shape=triangle).',
  ),
  [REVISIONS_SHAPES.list]: createMeta(
    true,
    {
      shape: shape(
        'list',
        'Which shape this is (the discriminator of `meta`): one RevisionPeriod per period.',
      ),
      ...SERIES_HISTORY.meta,
    },
    '`meta` of the revisions endpoints with shape=list (the default).',
  ),
  [REVISIONS_SHAPES.triangle]: createMeta(
    true,
    {
      shape: shape(
        'triangle',
        'Which shape this is (the discriminator of `meta`): one RevisionTriangleRow per period.',
      ),
      ...SERIES_HISTORY.meta,
      vintages: js.arrayOf(
        js.timestamp(),
        'The vintages, oldest first: every distinct knowledge time (known at as_of) at which a period of the from/to range got a first release or a revision. The same on every page.',
      ),
      max_vintages: js.integer(
        `The bound on vintages: a request whose range has more is a 400 (${REVISIONS_MAX_VINTAGES}).`,
        { minimum: 1 },
      ),
    },
    '`meta` of the revisions endpoints with shape=triangle.',
  ),
};

const ROW_SHAPES = { list: 'RevisionPeriod', triangle: 'RevisionTriangleRow' } as const;

/** A oneOf of named schemas with an OpenAPI discriminator on `shape`: a tagged union for generated clients. */
function taggedByShape(names: Readonly<Record<string, string>>): js.JsonSchema {
  return {
    oneOf: Object.values(names).map((name) => ({ $ref: `#/components/schemas/${name}` })),
    discriminator: {
      propertyName: 'shape',
      mapping: Object.fromEntries(
        Object.entries(names).map(([value, name]) => [value, `#/components/schemas/${name}`]),
      ),
    },
  };
}

/**
 * The 200 body of endpoints 20 and 21: `meta` is a tagged union on meta.shape (list or triangle), and so
 * is each `data` row (row.shape, the same value): a RevisionPeriod in the list shape, a
 * RevisionTriangleRow in the triangle. Generated clients type both as discriminated unions.
 */
export const REVISIONS_BODY: js.JsonSchema = {
  description:
    'meta.shape `list` (default): one RevisionPeriod per period. meta.shape `triangle`: one RevisionTriangleRow per period, its values aligned with meta.vintages.',
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: js.arrayOf(
      taggedByShape(ROW_SHAPES),
      'RevisionPeriod rows (shape list) or RevisionTriangleRow rows (shape triangle), oldest period first; every row has the shape of meta.',
    ),
    meta: taggedByShape(REVISIONS_SHAPES),
  },
};

import { ERROR_STATUS } from '../errors.ts';
import * as js from './json-schema.ts';

/** The meta fields of every success (CONTRACT section 1); `count` only when `data` is an array. */
function commonMeta(arrayData: boolean): Record<string, js.JsonSchema> {
  return {
    api_version: { type: 'string', const: 'v1', description: 'Always `v1`.' },
    snapshot: js.text('Id of the published snapshot the payload was computed from.'),
    generated_at: js.timestamp(
      'When the payload was rendered (for pre-rendered files: the build time). Not part of the ETag.',
    ),
    ...(arrayData ? { count: js.integer('Number of items in `data`.', { minimum: 0 }) } : {}),
  };
}

/** The `meta` of a success: the common fields, then the endpoint's own. */
export function createMeta(
  arrayData: boolean,
  meta: Record<string, js.JsonSchema>,
  description?: string,
): js.JsonSchema {
  return js.object({ ...commonMeta(arrayData), ...meta }, description);
}

/**
 * A success body whose `meta` takes one of several shapes (a different view of the same data):
 * each shape is a named schema (`createMeta`) with a `const` string property `propertyName`, and
 * the union carries an OpenAPI discriminator mapping each value to its schema, so that generated
 * clients get a tagged union instead of an untagged `anyOf`.
 */
export function createTaggedEnvelope(
  data: js.JsonSchema,
  propertyName: string,
  metas: Readonly<Record<string, string>>,
  options: { description?: string } = {},
): js.JsonSchema {
  const mapping = Object.fromEntries(
    Object.entries(metas).map(([value, name]) => [value, `#/components/schemas/${name}`]),
  );
  return {
    ...(options.description ? { description: options.description } : {}),
    type: 'object',
    required: ['data', 'meta'],
    properties: {
      data,
      meta: {
        oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
        discriminator: { propertyName, mapping },
      },
    },
  };
}

/** A success body: `data` and `meta` with the common fields plus the endpoint's own. */
export function createEnvelope(
  data: js.JsonSchema,
  meta: Record<string, js.JsonSchema>,
  options: { title?: string; description?: string } = {},
): js.JsonSchema {
  const arrayData = data.type === 'array';
  return {
    ...(options.title ? { title: options.title } : {}),
    ...(options.description ? { description: options.description } : {}),
    type: 'object',
    required: ['data', 'meta'],
    properties: { data, meta: js.object({ ...commonMeta(arrayData), ...meta }) },
  };
}

/** Named schemas shared by several endpoints. */
export const ENVELOPE_COMPONENTS: Record<string, js.JsonSchema> = {
  Error: js.object(
    {
      error: js.object({
        code: js.oneOfText(
          Object.keys(ERROR_STATUS),
          'Machine-readable error code; each has one HTTP status.',
        ),
        message: js.text(
          'What went wrong, safe to show; for invalid_parameter it names the parameter and the expected format.',
        ),
        request_id: js.text('The same id as the X-Request-Id header; quote it when reporting a problem.'),
      }),
    },
    'Every error response (CONTRACT section 1).',
  ),
  SourceTerms: js.object(
    {
      source: js.text('Catalog source id.'),
      attribution: js.text('Text to show next to the data.'),
      licence: js.text('Licence name.'),
      licence_url: js.nullable(js.text('Licence address.')),
    },
    'Licence and attribution of one source the payload draws on.',
  ),
};

/** `licence` and `attribution` of the one source a payload comes from (nullable when the catalog lacks it). */
export const SINGLE_SOURCE_TERMS: Record<string, js.JsonSchema> = {
  attribution: js.nullable(js.text('Attribution to show next to the data.')),
  licence: js.nullable(js.text('Licence of the data.')),
};

/** `meta.attribution` as a list, for payloads drawn from several sources. */
export const SOURCE_TERMS_LIST: js.JsonSchema = {
  type: 'array',
  items: js.ref('SourceTerms'),
  description: 'Licence and attribution of each source the payload draws on.',
};

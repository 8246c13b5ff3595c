/**
 * Small builders for the JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the payloads. They
 * keep the schema files short and alike: every property an object lists is required, because
 * a payload field is always present (a missing value is `null`, never a missing field).
 */

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

const RFC3339_UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';

/** A string, optionally described. */
export function text(description?: string, extra: JsonSchema = {}): JsonSchema {
  return describe({ type: 'string', ...extra }, description);
}

/** A whole number. */
export function integer(description?: string, extra: JsonSchema = {}): JsonSchema {
  return describe({ type: 'integer', ...extra }, description);
}

/** Any number. */
export function number(description?: string, extra: JsonSchema = {}): JsonSchema {
  return describe({ type: 'number', ...extra }, description);
}

/** true or false. */
export function boolean(description?: string): JsonSchema {
  return describe({ type: 'boolean' }, description);
}

/** One of a fixed list of strings. */
export function oneOfText(values: readonly string[], description?: string): JsonSchema {
  return describe({ type: 'string', enum: [...values] }, description);
}

/** An RFC 3339 UTC timestamp with `Z`, to the second (CONTRACT section 5). */
export function timestamp(description?: string): JsonSchema {
  return describe({ type: 'string', format: 'date-time', pattern: RFC3339_UTC }, description);
}

/** A calendar date `YYYY-MM-DD`. */
export function date(description?: string): JsonSchema {
  return describe({ type: 'string', format: 'date' }, description);
}

/** A reference period: `YYYY-MM-DD`, `YYYY-MM`, `YYYY-Qn` or `YYYY`. */
export function period(description?: string): JsonSchema {
  return describe(
    { type: 'string', pattern: '^\\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\\d|3[01]))?|-Q[1-4])?$' },
    description,
  );
}

/** The same schema, or `null`. */
export function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema;
  if (typeof rest.type === 'string' && rest.enum === undefined && rest.$ref === undefined)
    return describe({ ...rest, type: [rest.type, 'null'] }, description as string | undefined);
  if (typeof rest.type === 'string' && Array.isArray(rest.enum))
    return describe(
      { ...rest, type: [rest.type, 'null'], enum: [...rest.enum, null] },
      description as string | undefined,
    );
  return describe({ anyOf: [rest, { type: 'null' }] }, description as string | undefined);
}

/** An array of items. */
export function arrayOf(items: JsonSchema, description?: string): JsonSchema {
  return describe({ type: 'array', items }, description);
}

/** An object whose listed properties are all present. */
export function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return describe({ type: 'object', required: Object.keys(properties), properties }, description);
}

/** An object whose properties are each present only when they apply (e.g. the filters asked for). */
export function partialObject(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return describe({ type: 'object', properties }, description);
}

/** A reference to a named schema of `components.schemas`. */
export function ref(name: string, description?: string): JsonSchema {
  return describe({ $ref: `#/components/schemas/${name}` }, description);
}

function describe(schema: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? schema : { ...schema, description };
}

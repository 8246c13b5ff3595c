import type { RouteId } from '../../contract/routes.ts';
import type { JsonSchema } from '../../contract/schemas/json-schema.ts';
import { ROUTE_BODIES, SCHEMA_COMPONENTS } from '../../contract/schemas/route-schemas.ts';
import { REVISION_CSV_COLUMNS } from '../../query/revisions-compute.ts';
import { listCotCsvColumns } from './cot-csv-columns.ts';

/**
 * The CSV columns of a route's rows as its OpenAPI body describes them, for an answer without
 * rows: its header row is still written (`header=present`; a reader such as pandas needs it).
 * Nested objects give dotted names as renderCsv flattens them; a body of several views (tagged by
 * meta.view) uses the view of the answer. Rows with free-form fields (the revision triangle's
 * vintages, aligned series) give only the fields the schema declares; fields whose columns only the
 * rows can name (a map, an object that may be null) give none.
 */
export function csvColumnsOf(routeId: RouteId, meta: Record<string, unknown>): string[] {
  // Aligned CSV lines: the period (as_of=row: and the row's as_of), then one column per requested key (aligned.ts).
  if (routeId === 'observations-aligned')
    return [
      'period',
      ...(meta.as_of === 'row' ? ['as_of'] : []),
      ...((meta.series as Array<{ key: string }> | undefined) ?? []).map((column) => column.key),
    ];
  // A COT report's columns depend on its report type (its trader categories, crop years): the
  // type's, as the rows of that type have them.
  if (routeId === 'cot-market')
    return listCotCsvColumns(String(meta.report_type ?? ''), meta.view === 'history' ? 'history' : 'latest');
  // The revisions' CSV lines are not their JSON rows (revisions-compute.ts): one per record, or
  // the triangle's period and vintages.
  if (routeId === 'macro-revisions' || routeId === 'observations-revisions') {
    return meta.shape === 'triangle'
      ? ['period', ...((meta.vintages as string[] | undefined) ?? [])]
      : [...REVISION_CSV_COLUMNS];
  }
  const items = rowSchemaOf(routeId, meta);
  return items ? columnsOf(items, '') : [];
}

/**
 * The names of the fields of a route's JSON rows as its OpenAPI body declares them, in their
 * order, for the view and shape of the answer (meta.view, meta.shape); empty when `data` is not
 * a list of objects.
 */
export function listRowFields(routeId: RouteId, meta: Record<string, unknown>): string[] {
  const items = rowSchemaOf(routeId, meta);
  return items ? Object.keys(properties(resolve(items))) : [];
}

/** The schema of one row of a route's `data` for the answer's view and shape, or null (not a list). */
function rowSchemaOf(routeId: RouteId, meta: Record<string, unknown>): JsonSchema | null {
  const body = pickView(resolve(ROUTE_BODIES[routeId][0]!), meta.view);
  const data = resolve(properties(body).data ?? {});
  if (data.type !== 'array' || !data.items) return null;
  return pickShape(resolve(data.items as JsonSchema), meta);
}

/** A `$ref` to its component, a described one-member allOf to its member. */
function resolve(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string')
    return resolve(SCHEMA_COMPONENTS[schema.$ref.split('/').at(-1)!] ?? {});
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return resolve(schema.allOf[0] as JsonSchema);
  return schema;
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
}

/** The member of a oneOf of bodies whose meta.view is `view` (else the first). */
function pickView(body: JsonSchema, view: unknown): JsonSchema {
  if (!Array.isArray(body.oneOf)) return body;
  const bodies = (body.oneOf as JsonSchema[]).map(resolve);
  const tagged = bodies.find((member) => {
    const meta = resolve(properties(member).meta ?? {});
    return resolve(properties(meta).view ?? {}).const === view;
  });
  return tagged ?? bodies[0]!;
}

/** Rows of several shapes told apart by a field of meta (the revisions' meta.shape): the answer's. */
function pickShape(items: JsonSchema, meta: Record<string, unknown>): JsonSchema {
  const discriminator = items.discriminator as
    | { propertyName: string; mapping: Record<string, string> }
    | undefined;
  if (!Array.isArray(items.oneOf) || !discriminator) return items;
  const shape = meta[discriminator.propertyName];
  const target = typeof shape === 'string' ? discriminator.mapping[shape] : undefined;
  return target ? { $ref: target } : (items.oneOf[0] as JsonSchema);
}

function columnsOf(schema: JsonSchema, prefix: string): string[] {
  const resolved = resolve(schema);
  const members = Array.isArray(resolved.anyOf) ? (resolved.anyOf as JsonSchema[]).map(resolve) : [resolved];
  // A map (COT categories by name): its keys depend on the rows, so it has no column without rows.
  if (members.some((member) => member.type === 'object' && !member.properties && member.additionalProperties))
    return [];
  // An object or null (a COT report's net concentration and crop years, null for the report types
  // without them): dotted columns where the rows hold it, one empty column where none does; which,
  // only the rows tell, so no column without rows either.
  if (members.some((member) => Array.isArray(member.type) && member.type.includes('object'))) return [];
  const objects = members.filter((member) => member.type === 'object' && member.properties);
  if (objects.length !== 1) return [prefix.slice(0, -1)];
  return Object.entries(properties(objects[0]!)).flatMap(([name, child]) =>
    columnsOf(child, `${prefix}${name}.`),
  );
}

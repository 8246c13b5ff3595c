import type { Success } from '../../contract/envelope.ts';
import { invalidParameter } from '../../contract/errors.ts';
import { splitFields } from '../../contract/fields-param.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { RouteDefinition, RouteId } from '../../contract/routes.ts';
import { csvColumnsOf, listRowFields } from './csv-columns.ts';

/**
 * Field selection, `fields=` (issue 35 item 3; docs/api/fields.md): the one place where the rows of
 * a payload keep only the fields asked for, before they are serialised, for every endpoint that is
 * not put together from row bytes (the pages of endpoints 5 and 8 select from their bytes:
 * history-bytes.ts, with the names and the check of this module). A row keeps its fields' order
 * and values; rows keep their order; meta is the same as without fields.
 */

/** Routes whose CSV lines are not their JSON rows: their CSV names are their CSV header's. */
const OWN_CSV_ROWS: ReadonlySet<RouteId> = new Set<RouteId>([
  'observations-aligned',
  'macro-revisions',
  'observations-revisions',
]);

/** The names a request's `fields` gives (canonical order), or null when it gives none. */
export function requestedFields(params: RequestParams): readonly string[] | null {
  const value = params.query.fields;
  return typeof value === 'string' ? splitFields(value) : null;
}

/**
 * The field names of a route's rows in the representation asked for: JSON the keys of a row of
 * `data` (for the answer's view and shape), CSV the header's first names.
 */
export function listFieldNames(routeId: RouteId, meta: Record<string, unknown>, csv: boolean): string[] {
  return csv && OWN_CSV_ROWS.has(routeId) ? csvColumnsOf(routeId, meta) : listRowFields(routeId, meta);
}

/**
 * The fields a request selects, checked against the names its rows have (`invalid_parameter`
 * listing them for a name they do not have), or null when it selects none.
 */
export function checkFields(
  route: RouteDefinition,
  params: RequestParams,
  meta: Record<string, unknown>,
): ReadonlySet<string> | null {
  const fields = requestedFields(params);
  if (fields === null) return null;
  const names = listFieldNames(route.id, meta, params.query.format === 'csv');
  const known = new Set(names);
  const unknown = fields.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw invalidParameter(
      'fields',
      `field names of this answer's rows (${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one): ${names.join(', ')}`,
    );
  return new Set(fields);
}

/**
 * The envelope with each row of `data` holding only the selected fields (the same envelope
 * without `fields`), and the fields (renderDataCsv's header of an answer without rows).
 */
export function selectFields(
  route: RouteDefinition,
  params: RequestParams,
  envelope: Success,
): { envelope: Success; fields: ReadonlySet<string> | null } {
  const fields = checkFields(route, params, envelope.meta);
  if (fields === null || !Array.isArray(envelope.data)) return { envelope, fields };
  return {
    envelope: { data: envelope.data.map((row) => projectRow(row, fields)), meta: envelope.meta },
    fields,
  };
}

function projectRow(row: unknown, fields: ReadonlySet<string>): unknown {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return row;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) if (fields.has(name)) out[name] = value;
  return out;
}

/** Whether a CSV column stays with these fields: its name is one, or its first dotted name is (categories.x.long). */
export function keepsColumn(column: string, fields: ReadonlySet<string> | null): boolean {
  if (fields === null || fields.has(column)) return true;
  for (let dot = column.indexOf('.'); dot > 0; dot = column.indexOf('.', dot + 1))
    if (fields.has(column.slice(0, dot))) return true;
  return false;
}

import { PARAMS } from './params.ts';
import { CSV_PATH_SUFFIX, documentedPath, paramSpec, type RouteDefinition } from './routes.ts';
import { SNAPSHOT_PATH_PARAM, SNAPSHOT_PATTERN } from './schemas/bulk.ts';
import type { JsonSchema } from './schemas/json-schema.ts';
import { createSuccessHeaders } from './schemas/responses.ts';
import { ROUTE_BODIES } from './schemas/route-schemas.ts';

/** The name of the bearer-key security scheme. */
export const SECURITY_SCHEME = 'bearerAuth';

/** The conditional request header every GET accepts. */
export const IF_NONE_MATCH: JsonSchema = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier response: 304 Not Modified when it still matches.',
  schema: { type: 'string' },
};

/** Monotonic reads (src/server/monotonic-read.ts): the snapshot a client saw last, on every route. */
const SNAPSHOT_ID_HEADER: JsonSchema = {
  name: 'X-Snapshot-Id',
  in: 'header',
  required: false,
  description:
    'The X-Snapshot-Id of a response this client had before: the answer comes from that snapshot or a newer one, from whichever instance. An instance that is behind waits for it up to MMDS_SNAPSHOT_WAIT_MS (5 s by default), then answers 503 `unavailable` with Retry-After: 1. An id that is not a snapshot of this service, or malformed: 400.',
  schema: { type: 'string', pattern: SNAPSHOT_PATTERN },
};

/**
 * The path items of a route: its JSON operation, and for a route with `format` (the keyed history
 * endpoints) a CSV operation at the path plus `.csv`, so that each operation has one success media
 * type that generated clients can type.
 */
export function createPathItems(route: RouteDefinition): [string, Record<string, unknown>][] {
  const path = documentedPath(route);
  const items: [string, Record<string, unknown>][] = [[path, { get: createOperation(route, false) }]];
  if (route.query.includes('format'))
    items.push([`${path}${CSV_PATH_SUFFIX}`, { get: createOperation(route, true) }]);
  return items;
}

function createOperation(route: RouteDefinition, csv: boolean): Record<string, unknown> {
  const scope = route.access.kind === 'public' ? null : route.access.scope;
  // format is keyed-only where a key unlocks more: there the CSV operation always needs the key.
  // (The change feed's CSV is public: its format is not keyed-only.)
  const access =
    csv && route.access.kind === 'public-or-scope' && paramSpec(route, 'format').keyedOnly
      ? 'scope'
      : route.access.kind;
  const hasSlug = route.path.includes(':slug');
  const paged = route.query.includes('cursor');
  const bodies = ROUTE_BODIES[route.id];
  if (bodies.length !== 1)
    throw new Error(`route ${route.id}: one 200 body schema (tag the variants of meta instead)`);
  const content: Record<string, unknown> = csv
    ? {
        'text/csv': {
          schema: {
            type: 'string',
            description:
              'RFC 4180 with a header row, CRLF line ends: the rows of `data` only (no `meta`; the next page is in the Link header).',
          },
        },
      }
    : { [route.mediaType ?? 'application/json']: { schema: bodies[0] } };
  const responses: Record<string, unknown> = {
    '200': {
      description: csv
        ? 'The rows as `text/csv; charset=utf-8; header=present`.'
        : route.mediaType
          ? `The payload's rows as \`${route.mediaType}; charset=utf-8\`.`
          : 'The payload.',
      headers: createSuccessHeaders(paged),
      content,
      // Endpoint 24 answers the same request as a stream with Accept: text/event-stream
      // (src/server/event-streams.ts): described here, so that the operation keeps one media type.
      ...(route.id === 'events' && !csv ? { 'x-event-stream': EVENT_STREAM_SCHEMA } : {}),
    },
    '304': { $ref: '#/components/responses/304' },
    '400': { $ref: '#/components/responses/400' },
    '401': { $ref: '#/components/responses/401' },
  };
  // 403 where a key can lack the scope: a scope operation, or one with keyed-only parameters.
  const keyedParams = route.query.some((name) => paramSpec(route, name).keyedOnly === true);
  // COT reports older than the public window need cot:history wherever a route would show them (endpoint 25 by date).
  const cotWindow = route.access.kind === 'public-or-scope' && route.access.scope === 'cot:history';
  if (scope && (access === 'scope' || keyedParams || cotWindow))
    responses['403'] = { $ref: '#/components/responses/403' };
  // An unknown key of the aligned observations is a 400 naming it (docs/api/aligned.md), never a 404.
  if (hasSlug || (route.query.includes('series') && !['observations-aligned', 'events'].includes(route.id)))
    responses['404'] = { $ref: '#/components/responses/404' };
  if (route.id === 'events') responses['410'] = { $ref: '#/components/responses/410' };
  for (const status of ['429', '500', '503'])
    responses[status] = { $ref: `#/components/responses/${status}` };
  return {
    operationId: operationIdOf(route, csv),
    summary: csv ? `${route.summary} (CSV)` : route.summary,
    description: csv ? describeCsv(route) : describeAccess(route),
    tags: [tagOf(route)],
    parameters: createParameters(route, scope, csv),
    security:
      access === 'scope'
        ? [{ [SECURITY_SCHEME]: [scope] }]
        : [{}, { [SECURITY_SCHEME]: scope ? [scope] : [] }],
    ...(scope ? { 'x-required-scope': scope } : {}),
    'x-access': access,
    'x-cache-max-age': access === 'scope' ? 0 : route.maxAge,
    'x-endpoint-number': route.number,
    responses,
  };
}

function operationIdOf(route: RouteDefinition, csv: boolean): string {
  const name = route.id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  return `get${name}${csv ? 'Csv' : ''}`;
}

function describeCsv(route: RouteDefinition): string {
  const path = documentedPath(route);
  const access =
    route.access.kind === 'public' ||
    (route.access.kind === 'public-or-scope' && !paramSpec(route, 'format').keyedOnly)
      ? `Public: no key needed. Public responses may be cached for ${route.maxAge} s.`
      : `Needs a key with scope \`${route.access.scope}\`. Responses are never cached (\`private, no-store\`).`;
  return `${route.description}\n\nThe CSV form of ${operationIdOf(route, false)}: the same request as \`${path}?format=csv\` (the interface specification's form, which answers the same response), with the same parameters but \`format\` (400 here: the path asks for CSV). ${access} ${endpointOrigin(route)}`;
}

function describeAccess(route: RouteDefinition): string {
  const access =
    route.access.kind === 'public'
      ? 'Public: no key needed.'
      : route.access.kind === 'scope'
        ? `Needs a key with scope \`${route.access.scope}\`.`
        : `Public without a key; a key with scope \`${route.access.scope}\` unlocks the parameters marked x-keyed-only. The response varies with Authorization.`;
  const caching =
    route.maxAge > 0
      ? `Public responses may be cached for ${route.maxAge} s.`
      : 'Responses are never cached (`private, no-store`).';
  return `${route.description}\n\n${access} ${caching} ${endpointOrigin(route)}`;
}

/** The body of endpoint 24 with Accept: text/event-stream. */
const EVENT_STREAM_SCHEMA: JsonSchema = {
  type: 'string',
  description:
    'Server-Sent Events: per event `id: <event id>`, `event: <type>`, `data: <the event as one JSON line, the items of the JSON pages>`; a `retry:` field first, a comment line (`: heartbeat`) every 15 s. Reconnect with `Last-Event-ID` (EventSource clients do it by themselves), on any instance.',
};

/** `Last-Event-ID` of endpoint 24: where a reconnecting stream resumes (wins over `after`). */
const LAST_EVENT_ID: JsonSchema = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description: `The id of the last event received: the stream resumes after it (an EventSource client sends it when it reconnects). Expected: ${PARAMS.after.expected}. Older than the log or unknown: 410.`,
  schema: PARAMS.after.openapi,
};

function createParameters(route: RouteDefinition, scope: string | null, csv: boolean): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  if (route.id === 'events') parameters.push(LAST_EVENT_ID);
  if (route.pathParam === 'snapshot') parameters.push(SNAPSHOT_PATH_PARAM);
  else if (route.path.includes(':slug')) {
    // The path value is a slug, or what the route's `slug` override says (the days of /fx/ecb/{dates}).
    const spec = paramSpec(route, 'slug');
    parameters.push({
      name: route.pathParam ?? 'slug',
      in: 'path',
      required: true,
      description: `${spec.description} Expected: ${spec.expected}.`,
      schema: spec.openapi,
    });
  }
  for (const name of route.query) {
    if (csv && name === 'format') continue;
    const spec = paramSpec(route, name);
    const keyedOnly = 'keyedOnly' in spec && spec.keyedOnly && route.access.kind === 'public-or-scope';
    const notes = [
      spec.description,
      `Expected: ${spec.expected}.`,
      ...(keyedOnly
        ? [`Only with a key holding \`${scope}\` (without one: 401, with another key: 403).`]
        : []),
      ...(name === 'format'
        ? [
            `\`csv\` is the same request as GET \`${documentedPath(route)}${CSV_PATH_SUFFIX}\` (operation ${operationIdOf(route, true)}), where its \`text/csv\` response is described; this operation's 200 is described as \`application/json\` only, so that generated clients can type it.`,
          ]
        : []),
    ];
    parameters.push({
      name,
      in: 'query',
      required: 'required' in spec && spec.required === true,
      description: notes.join(' '),
      schema: spec.openapi,
      ...('keyedOnly' in spec && spec.keyedOnly ? { 'x-keyed-only': true } : {}),
    });
  }
  parameters.push(IF_NONE_MATCH, SNAPSHOT_ID_HEADER);
  return parameters;
}

/** The tag of a route: the first path segment after /api/v1/ (`markets`, `reference`, ...). */
export function tagOf(route: RouteDefinition): string {
  // `releases.ics` is tagged with `releases`: one tag per endpoint family, whatever the format.
  return route.path.split('/')[3]!.replace(/\.[a-z]+$/, '');
}

/** The fourteen endpoints of the interface specification, then the service's own additions. */
const SPEC_ENDPOINTS = 14;

function endpointOrigin(route: RouteDefinition): string {
  return route.number <= SPEC_ENDPOINTS
    ? `Endpoint ${route.number} of the interface specification.`
    : `Endpoint ${route.number}: an addition of this service to the interface specification's ${SPEC_ENDPOINTS}.`;
}

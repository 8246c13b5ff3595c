import { PIPELINE_VERSION } from '../version.ts';
import { ERROR_STATUS } from './errors.ts';
import { PARAMS } from './params.ts';
import { ROUTES, type RouteDefinition, SCOPES } from './routes.ts';
import type { JsonSchema } from './schemas/json-schema.ts';
import { createSuccessHeaders, HEADER_COMPONENTS, RESPONSE_COMPONENTS } from './schemas/responses.ts';
import { ROUTE_BODIES, SCHEMA_COMPONENTS } from './schemas/route-schemas.ts';

/** Where the server and the static build publish the document. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Seconds a cache may keep the document: it changes with a deploy of the code, not with a snapshot. */
export const OPENAPI_MAX_AGE = 3600;

const SECURITY_SCHEME = 'bearerAuth';

const INTRO = `A versioned, read-only REST API over market and macro data. This document is generated
from the route table (src/contract/routes.ts) and served at \`${OPENAPI_PATH}\`.

**Envelope.** Every success is \`{"data": ..., "meta": {...}}\`; \`meta\` always holds \`api_version\`,
\`snapshot\`, \`generated_at\`, and \`count\` when \`data\` is an array, plus the fields each endpoint
lists. A field described as nullable is always present and \`null\` when there is no value. Every
error is \`{"error": {"code", "message", "request_id"}}\`:

${Object.entries(ERROR_STATUS)
  .map(([code, status]) => `- ${status} \`${code}\``)
  .join('\n')}

**Requests.** GET (HEAD answers the same without a body; OPTIONS answers CORS preflight). Any
other method is 405 \`method_not_allowed\` with \`Allow: GET, HEAD, OPTIONS\` on every path
(\`#/components/responses/405\`). An unknown query parameter is 400 on every endpoint, so a typo
never silently returns everything. Parameters marked \`x-keyed-only\` need a key with the
operation's \`x-required-scope\`.

**Keys.** \`Authorization: Bearer <key>\` only, never in the query string. Keys are issued by
arrangement. A key sent to a public endpoint must be valid (else 401) and brings its own rate limit.

**Caching.** Public payloads carry a strong ETag (If-None-Match answers 304) and
\`Cache-Control: public, max-age=<x-cache-max-age>\`; requests with Authorization get
\`private, no-store\`; errors \`no-store\`. gzip and brotli on request.

**Rate limits.** 60 requests per rolling minute per client IP anonymously, the key's own limit
(default 60) with a key. Every response carries X-RateLimit-Limit, X-RateLimit-Remaining,
X-RateLimit-Reset, RateLimit-Policy and RateLimit (except 405 and 414, refused before counting,
and a 503 while the key store is unreachable); a 429 adds Retry-After.`;

/**
 * Builds the OpenAPI 3.1 description of v1 from the route table, the parameter specs and the
 * payload schemas: one source for the server, the static build and this document.
 */
export function createOpenApiDocument(): Record<string, unknown> {
  const tags = [...new Set(ROUTES.map(tagOf))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market and Macro Data Service API',
      version: `v1 (mmds ${PIPELINE_VERSION})`,
      description: INTRO,
    },
    tags: tags.map((name) => ({ name })),
    paths: Object.fromEntries(
      ROUTES.map((route) => [route.path.replace(':slug', '{slug}'), { get: createOperation(route) }]),
    ),
    components: {
      schemas: SCHEMA_COMPONENTS,
      headers: HEADER_COMPONENTS,
      responses: RESPONSE_COMPONENTS,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mmds_<key id>_<secret><checksum>',
          description: `An API key in \`Authorization: Bearer <key>\`. OpenAPI 3.1 has no scopes on http bearer schemes: the scope an operation needs is in its \`x-required-scope\` and in its security requirement. Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}. \`cot:history\` unlocks the full history of /api/v1/markets/cot/{slug}; \`macro:history\` /api/v1/macro/{slug}; \`observations:read\` /api/v1/observations.`,
        },
      },
    },
  };
}

function createOperation(route: RouteDefinition): Record<string, unknown> {
  const scope = route.access.kind === 'public' ? null : route.access.scope;
  const hasSlug = route.path.includes(':slug');
  const paged = route.query.includes('cursor');
  const bodies = ROUTE_BODIES[route.id];
  const content: Record<string, unknown> = {
    'application/json': { schema: bodies.length === 1 ? bodies[0] : { anyOf: bodies } },
  };
  if (route.query.includes('format'))
    content['text/csv'] = {
      schema: { type: 'string', description: 'RFC 4180 with a header row, CRLF line ends: `data` only.' },
    };
  const responses: Record<string, unknown> = {
    '200': {
      description: route.query.includes('format')
        ? 'The payload; `text/csv; charset=utf-8; header=present` with format=csv.'
        : 'The payload.',
      headers: createSuccessHeaders(paged),
      content,
    },
    '304': { $ref: '#/components/responses/304' },
    '400': { $ref: '#/components/responses/400' },
    '401': { $ref: '#/components/responses/401' },
  };
  if (scope) responses['403'] = { $ref: '#/components/responses/403' };
  if (hasSlug || route.query.includes('series')) responses['404'] = { $ref: '#/components/responses/404' };
  for (const status of ['429', '500', '503'])
    responses[status] = { $ref: `#/components/responses/${status}` };
  return {
    operationId: `get${route.id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`,
    summary: route.summary,
    description: describeAccess(route),
    tags: [tagOf(route)],
    parameters: createParameters(route, scope),
    security:
      route.access.kind === 'scope'
        ? [{ [SECURITY_SCHEME]: [route.access.scope] }]
        : [{}, { [SECURITY_SCHEME]: scope ? [scope] : [] }],
    ...(scope ? { 'x-required-scope': scope } : {}),
    'x-access': route.access.kind,
    'x-cache-max-age': route.maxAge,
    'x-spec-endpoint': route.number,
    responses,
  };
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
  return `${route.description}\n\n${access} ${caching} Endpoint ${route.number} of the interface specification.`;
}

function createParameters(route: RouteDefinition, scope: string | null): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  if (route.path.includes(':slug')) {
    parameters.push({
      name: 'slug',
      in: 'path',
      required: true,
      description: PARAMS.slug.description,
      schema: PARAMS.slug.openapi,
    });
  }
  for (const name of route.query) {
    const spec = PARAMS[name];
    const keyedOnly = 'keyedOnly' in spec && spec.keyedOnly && route.access.kind === 'public-or-scope';
    const notes = [
      spec.description,
      `Expected: ${spec.expected}.`,
      ...(keyedOnly
        ? [`Only with a key holding \`${scope}\` (without one: 401, with another key: 403).`]
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
  parameters.push({
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag of an earlier response: 304 Not Modified when it still matches.',
    schema: { type: 'string' },
  });
  return parameters;
}

/** The tag of a route: the first path segment after /api/v1/ (`markets`, `reference`, ...). */
function tagOf(route: RouteDefinition): string {
  return route.path.split('/')[3]!;
}

import type { JsonSchema } from './json-schema.ts';

/** A response header as OpenAPI describes it. */
interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

const TEXT = { type: 'string' };
const COUNT = { type: 'integer', minimum: 0 };

/** Every response header the server sends, described once (`#/components/headers/<name>`). */
export const HEADER_COMPONENTS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: 'Id of this request, on every response; equal to `error.request_id` on errors.',
    required: true,
    schema: TEXT,
  },
  'X-Snapshot-Id': {
    description: 'The snapshot the payload was computed from (`meta.snapshot`).',
    required: true,
    schema: TEXT,
  },
  ETag: {
    description: 'Strong ETag of the payload; send it back in If-None-Match for a 304.',
    required: true,
    schema: { type: 'string', pattern: '^"[^"]+"$' },
  },
  'Cache-Control': {
    description:
      '`public, max-age=<x-cache-max-age>` for a public payload, `private, no-store` for a request carrying Authorization, `no-store` on every error.',
    required: true,
    schema: TEXT,
  },
  'X-RateLimit-Limit': {
    description:
      'Requests per minute allowed to this caller (60 per client IP anonymously; the key’s own limit).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests that would be allowed right now after this one; never negative.',
    required: true,
    schema: COUNT,
  },
  'X-RateLimit-Reset': {
    description: 'Whole seconds until the quota is whole again.',
    required: true,
    schema: COUNT,
  },
  'RateLimit-Policy': {
    description: 'IETF draft-ietf-httpapi-ratelimit-headers-11: `"default";q=<limit>;w=60`.',
    required: true,
    schema: { type: 'string', pattern: '^"[^"]+";q=\\d+;w=\\d+$' },
  },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers-11: `"default";r=<remaining>;t=<seconds>` (t: the reset time; on a 429 the Retry-After value).',
    required: true,
    schema: { type: 'string', pattern: '^"[^"]+";r=\\d+;t=\\d+$' },
  },
  'Retry-After': {
    description: 'Whole seconds, at least 1, after which the request will be accepted.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: '`Bearer` on 401; `Bearer error="insufficient_scope", scope="<scope>"` on 403 (RFC 6750).',
    required: true,
    schema: { type: 'string', pattern: '^Bearer' },
  },
  Link: {
    description:
      '`<path?...&cursor=...>; rel="next"` when another page follows (also for CSV, which has no meta).',
    schema: TEXT,
  },
};

export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

export function headers(names: readonly string[]): Record<string, JsonSchema> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** The headers of a 200 (and, but for the body, a 304); Link only on paged endpoints. */
export function createSuccessHeaders(paged: boolean): Record<string, JsonSchema> {
  return headers([
    'X-Request-Id',
    'X-Snapshot-Id',
    'ETag',
    'Cache-Control',
    ...RATE_LIMIT_HEADERS,
    ...(paged ? ['Link'] : []),
  ]);
}

function errorResponse(description: string, names: readonly string[]): JsonSchema {
  return {
    description,
    headers: headers(['X-Request-Id', 'Cache-Control', ...names]),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/**
 * The error responses operations refer to, by HTTP status (`#/components/responses/<status>`).
 * 405 is not among them: no operation answers it (OpenAPI describes only the methods a path has),
 * so the document's introduction describes it, and Redocly's no-unused-components would flag it.
 */
export const RESPONSE_COMPONENTS: Record<string, JsonSchema> = {
  '400': errorResponse(
    '`invalid_parameter`: an unknown, repeated or malformed query parameter, or a filter code that is well-formed but not in the reference list. The message names the parameter and the expected format.',
    RATE_LIMIT_HEADERS,
  ),
  '401': errorResponse(
    '`unauthorized`: no API key where one is needed, or a key that is malformed, unknown, expired or revoked (on any endpoint: a bad key is never treated as anonymous). The message is the same whatever was wrong with the key (`the API key is not valid`), unless its secret is right: a revoked, expired or rotated-out key is told which (docs/keys.md), which tells nothing about key ids the caller does not hold.',
    [...RATE_LIMIT_HEADERS, 'WWW-Authenticate'],
  ),
  '403': errorResponse('`insufficient_scope`: the key is valid but lacks the scope this request needs.', [
    ...RATE_LIMIT_HEADERS,
    'WWW-Authenticate',
  ]),
  '404': errorResponse('`not_found`: unknown path, slug, series key or API version.', RATE_LIMIT_HEADERS),
  '410': errorResponse(
    '`gone`: the event id of `after` or `Last-Event-ID` is older than the event log (its snapshot was pruned) or not an id of it. Link names /api/v1/changes since the oldest snapshot kept: catch up there, then read the events again (docs/api/events.md).',
    [...RATE_LIMIT_HEADERS, 'Link'],
  ),
  '429': errorResponse(
    '`rate_limited`: the caller’s requests per minute are used up; a request sent after Retry-After seconds is accepted.',
    [...RATE_LIMIT_HEADERS, 'Retry-After'],
  ),
  '500': errorResponse(
    '`internal_error`: an unexpected failure; the body never holds a stack trace, SQL or a path. Quote request_id.',
    [],
  ),
  '503': errorResponse(
    '`unavailable`: no snapshot published yet, the store or key store unreadable, or a query over its time budget.',
    ['Retry-After'],
  ),
  '304': {
    description: 'Not modified: If-None-Match matched the ETag. No body.',
    headers: headers(['X-Request-Id', 'ETag', 'Cache-Control']),
  },
};

import { PIPELINE_VERSION } from '../version.ts';
import { ERROR_STATUS } from './errors.ts';
import { createPathItems, IF_NONE_MATCH, SECURITY_SCHEME, tagOf } from './openapi-operations.ts';
import { CSV_PATH_SUFFIX, ROUTES, type RouteId, SCOPES } from './routes.ts';
import { createBulkPublicPathItems } from './schemas/bulk.ts';
import { createBulkFullFilePathItems } from './schemas/bulk-full.ts';
import { createEnvelope } from './schemas/envelope.ts';
import { arrayOf, nullable, object, oneOfText, text } from './schemas/json-schema.ts';
import { createMcpPathItem, MCP_PATH } from './schemas/mcp.ts';
import { createSuccessHeaders, HEADER_COMPONENTS, RESPONSE_COMPONENTS } from './schemas/responses.ts';
import { SCHEMA_COMPONENTS } from './schemas/route-schemas.ts';
/** Where the server and the static build publish the document. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Seconds a cache may keep the document: it changes with a deploy of the code, not with a snapshot. */
export const OPENAPI_MAX_AGE = 3600;

/** The description of each tag (the first path segment after /api/v1/); a tag without one fails the lint. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  status: 'Service status: the snapshot in service and the freshness of each source.',
  markets:
    'CFTC Commitments of Traders: the latest positioning of every market, and one market’s reports (the full history with a key).',
  macro: 'BLS macro series: the latest value of each, and with a key every revision of one series.',
  research: 'Published research findings and the series they are about.',
  sources: 'The source catalog: licence, rights class, redistributability and attribution of each source.',
  observations: 'Raw observations of one series with provenance and every revision (keyed).',
  series: 'The catalogue of series from redistributable sources, with their latest values.',
  sectors: 'Sectors with their series and markets and a coverage status measured from the data.',
  fx: 'Euro foreign exchange reference rates of the ECB.',
  reference: 'Reference lists: countries, currencies and trading venues.',
  releases:
    'The release calendar: past releases from the data and scheduled ones from the BLS, CFTC and ECB calendars, as JSON and iCalendar.',
  changes:
    'The change feed: which series and markets changed since a snapshot you hold, for incremental sync.',
  events:
    'The release event log: what each publish released and revised, as Server-Sent Events (resume with Last-Event-ID) or JSON pages.',
  bulk: 'Whole datasets as files: the public bulk files, and with a bulk:read key the full store.',
  index: 'The list of endpoints of v1, with links into this document and the HTML reference.',
  mcp: 'The Model Context Protocol endpoint: the API as tools, resources and prompts for agents (docs/mcp.md).',
};

/** The endpoint list at `/api/v1` (also `/api/v1/`): not a route of the table, generated from it. */
export const API_INDEX_PATH = '/api/v1';

/** Seconds a cache may keep the endpoint list: it changes with the code, not with a snapshot. */
export const API_INDEX_MAX_AGE = 3600;

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
other method is 405 \`method_not_allowed\` on every path, in the error envelope with
\`Allow: GET, HEAD, OPTIONS\` (no operation lists it: OpenAPI describes the methods a path has).
An unknown query parameter is 400 on every endpoint, so a typo never silently returns everything. Parameters marked \`x-keyed-only\` need a key with the
operation's \`x-required-scope\`.

**Numbering.** Each operation's \`x-endpoint-number\` is the endpoint's number in the README, in
docs/api and on the API reference page (\`/docs/api/\`): the CSV operation of an endpoint, the
iCalendar form of the release calendar and the files of a bulk listing share their endpoint's number.

**CSV.** The endpoints with a \`format\` parameter (the history endpoints: observations,
macro/{slug}, markets/cot/{slug}, and the revisions endpoints macro/{slug}/revisions and
observations/revisions, the aligned observations observations/aligned, and the public change feed changes) answer CSV as an operation of their own at the same path with
\`${CSV_PATH_SUFFIX}\` appended (\`/api/v1/observations${CSV_PATH_SUFFIX}?series=...\`), whose only success is
\`text/csv\`; the interface specification's \`?format=csv\` on the JSON path is the same request
and answers the same response. The JSON operations describe only \`application/json\`, so that
generated clients type each operation's 200 as one media type.

**Licences.** The code of this service is MIT licensed (\`info.license\`); the data is not: each
source's licence and attribution are in \`/api/v1/sources\`, and every payload names its own in
\`meta\`.

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
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '/',
        description:
          'The origin that serves this document (`mmds serve`, or the host of the static build for the public endpoints).',
      },
    ],
    tags: [...tags, 'index', 'mcp'].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths: {
      [API_INDEX_PATH]: createIndexPathItem(),
      ...Object.fromEntries(ROUTES.flatMap(createPathItems)),
      ...Object.fromEntries(numberFileItems(createBulkFullFilePathItems(SECURITY_SCHEME), 'bulk-full')),
      ...Object.fromEntries(numberFileItems(createBulkPublicPathItems(), 'bulk-snapshot')),
      [MCP_PATH]: createMcpPathItem(SECURITY_SCHEME),
    },
    components: {
      schemas: SCHEMA_COMPONENTS,
      headers: HEADER_COMPONENTS,
      responses: RESPONSE_COMPONENTS,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mmds_<key id>_<secret><checksum>',
          description: `An API key in \`Authorization: Bearer <key>\`. OpenAPI 3.1 has no scopes on http bearer schemes: the scope an operation needs is in its \`x-required-scope\` and in its security requirement. Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}. \`cot:history\` unlocks the full history of /api/v1/markets/cot/{slug}; \`macro:history\` /api/v1/macro/{slug} and /api/v1/macro/{slug}/revisions; \`observations:read\` /api/v1/observations, /api/v1/observations/revisions and /api/v1/observations/aligned, and lists every source's series in /api/v1/changes; \`bulk:read\` the full store, /api/v1/bulk/full and its files.`,
        },
      },
    },
  };
}

/**
 * Gives the file paths outside the route table the number of the listing they belong to (the
 * files of /api/v1/bulk/{snapshot} are endpoint 17's, those of /api/v1/bulk/full endpoint 18's), as
 * README and docs/api/bulk.md count them: every operation but the endpoint list carries one.
 */
function numberFileItems(
  items: Array<[string, Record<string, unknown>]>,
  listing: RouteId,
): Array<[string, Record<string, unknown>]> {
  const number = ROUTES.find((route) => route.id === listing)!.number;
  return items.map(([path, item]) => [
    path,
    Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [
        method,
        { ...(operation as Record<string, unknown>), 'x-endpoint-number': number },
      ]),
    ),
  ]);
}

/** `GET /api/v1/`: the endpoints of the route table (src/api/v1/api-index.ts builds the body). */
function createIndexPathItem(): Record<string, unknown> {
  const entry = object({
    path: text('The path, `{slug}` or `{snapshot}` marking the path parameter as in this document.'),
    method: oneOfText(['GET'], 'The method (every endpoint is read-only).'),
    summary: text('What the endpoint answers.'),
    access: oneOfText(
      ['public', 'public-or-scope', 'scope'],
      '`public`; `public-or-scope`: public, and a key with `scope` unlocks more; `scope`: a key with `scope` is needed.',
    ),
    scope: nullable(
      oneOfText(SCOPES, 'The scope a key needs for the keyed view; null for public endpoints.'),
    ),
    query: arrayOf(text(), 'The query parameters it accepts.'),
    openapi: text('This endpoint in this document: its path and a JSON pointer to the operation.'),
    documentation: text('Its section of the HTML reference.'),
  });
  return {
    get: {
      operationId: 'listEndpoints',
      summary: 'The endpoints of v1',
      description: `Every endpoint of the route table, in its order, with its access rule, parameters and links. Public: no key needed. Public responses may be cached for ${API_INDEX_MAX_AGE} s. Also answered at \`/api/v1/\`.`,
      tags: ['index'],
      parameters: [IF_NONE_MATCH],
      security: [{}, { [SECURITY_SCHEME]: [] }],
      'x-access': 'public',
      'x-cache-max-age': API_INDEX_MAX_AGE,
      responses: {
        '200': {
          description: 'The endpoint list.',
          headers: createSuccessHeaders(false),
          content: {
            'application/json': {
              schema: createEnvelope(arrayOf(entry), {
                openapi: text('Where this document is.'),
                documentation: text('Where the HTML reference is.'),
              }),
            },
          },
        },
        '304': { $ref: '#/components/responses/304' },
        '401': { $ref: '#/components/responses/401' },
        ...Object.fromEntries(
          ['429', '500', '503'].map((status) => [status, { $ref: `#/components/responses/${status}` }]),
        ),
      },
    },
  };
}

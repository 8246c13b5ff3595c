import * as js from './json-schema.ts';
import { headers, RATE_LIMIT_HEADERS } from './responses.ts';

/** The path of the MCP endpoint (Streamable HTTP, stateless): src/server/serve-mcp.ts, docs/mcp.md. */
export const MCP_PATH = '/mcp';

const JSON_RPC_ID = {
  type: ['string', 'integer', 'null'],
  description: 'The id of the request answered; null when the request could not be read.',
};

/** A JSON-RPC error as the MCP transport answers it (the SDK's, and the server's own refusals). */
const JSON_RPC_ERROR = js.object({
  jsonrpc: { const: '2.0' },
  id: JSON_RPC_ID,
  error: js.partialObject({
    code: js.integer('The JSON-RPC error code: -32700 parse error, -32000 a refused request.'),
    message: js.text('What was refused.'),
    data: { description: 'More about the error, when there is more.' },
  }),
});

function jsonRpcRefusal(description: string): js.JsonSchema {
  return {
    description,
    headers: headers(['X-Request-Id', 'Cache-Control', ...RATE_LIMIT_HEADERS]),
    content: { 'application/json': { schema: JSON_RPC_ERROR } },
  };
}

/**
 * The path item of POST /mcp: the Model Context Protocol over Streamable HTTP (JSON responses, no
 * SSE stream, no session). Its messages are MCP's, described by the MCP specification rather than
 * here: the document gives the envelope (JSON-RPC 2.0) and the HTTP answers of this server.
 */
export function createMcpPathItem(securityScheme: string): Record<string, unknown> {
  return {
    post: {
      operationId: 'mcp',
      summary: 'MCP endpoint: the API as tools, resources and prompts for agents',
      description:
        'One JSON-RPC 2.0 message of the Model Context Protocol (https://modelcontextprotocol.io, Streamable HTTP transport) per POST: `initialize`, `tools/list`, `tools/call`, `resources/list`, `resources/read`, `prompts/list`, `prompts/get`, `ping`, `logging/setLevel`. Stateless: no `Mcp-Session-Id`, any instance answers any request, and `GET /mcp` (a server-to-client stream) is 405. Each tool answers as the REST endpoint it names, under the same key, scopes and rate limit: each POST counts as one request. Send `Accept: application/json, text/event-stream`. A browser page of another origin is refused (403), and so is a request that reached a loopback address under a Host that is not a loopback name (DNS rebinding). The tools, resources, prompts and the response budget: docs/mcp.md.',
      tags: ['mcp'],
      security: [{}, { [securityScheme]: [] }],
      'x-access': 'public',
      requestBody: {
        required: true,
        description: 'One JSON-RPC 2.0 request or notification of MCP, at most 65,536 bytes.',
        content: {
          'application/json': {
            schema: js.partialObject({
              jsonrpc: { const: '2.0' },
              id: { type: ['string', 'integer'], description: 'Absent in a notification.' },
              method: js.text('The MCP method, e.g. `tools/call`.'),
              params: { type: 'object', description: "The method's parameters (MCP specification)." },
            }),
          },
        },
      },
      responses: {
        '200': {
          description:
            'The JSON-RPC response: `result`, or `error` for a protocol error. A tool that is refused (401, 403, 400 of its REST endpoint) is a result with `isError: true` carrying the REST error envelope and its status.',
          headers: headers(['X-Request-Id', 'Cache-Control', ...RATE_LIMIT_HEADERS]),
          content: {
            'application/json': {
              schema: js.partialObject({
                jsonrpc: { const: '2.0' },
                id: JSON_RPC_ID,
                result: { type: 'object', description: 'The result of the method (MCP specification).' },
                error: { type: 'object', description: 'A JSON-RPC error of the method.' },
              }),
            },
          },
        },
        '202': {
          description: 'A notification (a message without id) was accepted; no body.',
          headers: headers(['X-Request-Id', ...RATE_LIMIT_HEADERS]),
        },
        '400': jsonRpcRefusal('The body is not JSON (-32700) or not a JSON-RPC message MCP accepts.'),
        '401': { $ref: '#/components/responses/401' },
        '403': jsonRpcRefusal(
          'The Origin names another site, or a loopback connection names another Host (DNS rebinding protection).',
        ),
        '413': {
          description: '`payload_too_large`: the body is over 65,536 bytes.',
          headers: headers(['X-Request-Id', 'Cache-Control', ...RATE_LIMIT_HEADERS]),
          content: { 'application/json': { schema: js.ref('Error') } },
        },
        '415': {
          description:
            '`unsupported_media_type`: the body was sent with a Content-Encoding other than identity (send it uncompressed); `Accept-Encoding: identity` says so.',
          headers: {
            ...headers(['X-Request-Id', 'Cache-Control', ...RATE_LIMIT_HEADERS]),
            'Accept-Encoding': {
              description: 'The content codings a request body may have: `identity` only.',
              required: true,
              schema: { type: 'string', const: 'identity' },
            },
          },
          content: { 'application/json': { schema: js.ref('Error') } },
        },
        '429': { $ref: '#/components/responses/429' },
        '500': { $ref: '#/components/responses/500' },
      },
    },
  };
}

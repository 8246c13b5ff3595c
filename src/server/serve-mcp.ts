import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ApiError } from '../contract/errors.ts';
import { createMcpServer } from '../mcp/server.ts';
import type { Caller, HandlerDeps } from './handler-deps.ts';
import { createResponse } from './http-response.ts';
import type { ResponseHeaders } from './response-headers.ts';

/** The path of the MCP endpoint (Streamable HTTP, stateless): docs/mcp.md. */
export const MCP_PATH = '/mcp';

/** Requests larger than this are refused before the JSON-RPC layer reads them. */
const MAX_MCP_BODY_BYTES = 65_536;

/**
 * Answers one POST /mcp, already authenticated and counted by the rate limiter like any API
 * request: a new MCP server and stateless transport for this request only (any instance answers
 * any request; nothing outlives the request), JSON responses rather than an SSE stream. A
 * browser page of another site is refused (DNS rebinding: the Origin must be this server's).
 */
export async function serveMcp(
  request: Request,
  headers: ResponseHeaders,
  deps: HandlerDeps,
  caller: Caller | null,
): Promise<Response> {
  if (request.method !== 'POST')
    throw new ApiError(
      'method_not_allowed',
      `method ${request.method.slice(0, 20)} is not allowed on ${MCP_PATH}; use POST`,
      {
        headers: { Allow: 'POST, OPTIONS' },
      },
    );
  if (!sameOrigin(request)) return jsonRpcRefusal(403, 'the Origin header names another site', headers);
  const length = Number(request.headers.get('content-length') ?? '0');
  if (length > MAX_MCP_BODY_BYTES)
    throw new ApiError('payload_too_large', `an MCP request body is at most ${MAX_MCP_BODY_BYTES} bytes`);
  const requestId = headers.get('x-request-id') ?? '';
  const server = createMcpServer({
    snapshot: deps.snapshots.current,
    caller: async () => caller,
    now: deps.now,
    requestId: () => requestId,
    log: deps.log,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    const body = Buffer.from(await response.arrayBuffer());
    headers.set('Cache-Control', 'no-store');
    for (const [name, value] of response.headers) headers.set(name, value);
    return createResponse(response.status, headers.toPairs(), body.length > 0 ? body : null);
  } finally {
    await server.close();
  }
}

/** Whether a request has no Origin (not a browser page) or one whose host is the request's Host. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  try {
    return new URL(origin).host === request.headers.get('host');
  } catch {
    return false;
  }
}

/** A refusal in the JSON-RPC error form MCP clients read, as the SDK's transport answers its own. */
function jsonRpcRefusal(status: number, message: string, headers: ResponseHeaders): Response {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  headers.set('Content-Type', 'application/json; charset=utf-8');
  headers.set('Cache-Control', 'no-store');
  return createResponse(status, headers.toPairs(), body);
}

import type { IncomingMessage } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Caller } from '../contract/authorise.ts';
import { ApiError } from '../contract/errors.ts';
import { NO_STORE } from '../contract/header-rules.ts';
import { renderRpcError } from '../contract/render-error.ts';
import { MCP_PATH } from '../contract/schemas/mcp.ts';
import { MmdsError } from '../lib/errors.ts';
import type { RepresentRequest } from '../mcp/context.ts';
import { refuseInvalidParams } from '../mcp/refuse-invalid-params.ts';
import { createMcpServer } from '../mcp/server.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { createResponse } from './http-response.ts';
import { namedSnapshots, snapshotForRequest } from './monotonic-read.ts';
import { type AnswerDeps, representRoute } from './represent-route.ts';
import type { ResponseHeaders } from './response-headers.ts';

export { MCP_PATH };

/** Request bodies larger than this are refused (413) before the JSON-RPC layer sees them. */
const MAX_MCP_BODY_BYTES = 65_536;

/**
 * Answers one POST /mcp, already authenticated and counted by the rate limiter like any API
 * request: a new MCP server and stateless transport for this request only (any instance answers
 * any request; nothing outlives the request), JSON responses rather than an SSE stream. A
 * browser page of another site is refused (DNS rebinding: the Origin must be this server's, and
 * a loopback connection's Host a loopback name).
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
  if (!sameOrigin(request))
    return jsonRpcRefusal('rpc_forbidden', 'the Origin header names another site', headers);
  if (!deps.behindProxy && rebound(request))
    return jsonRpcRefusal(
      'rpc_forbidden',
      'a connection to a loopback address must name localhost in its Host',
      headers,
    );
  refuseEncodedBody(request);
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(await readBody(request));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    return jsonRpcRefusal('rpc_parse_error', 'Parse error: the body is not JSON', headers);
  }
  const requestId = headers.get('x-request-id') ?? '';
  const server = createMcpServer({
    snapshot: deps.snapshots.current,
    caller: async () => caller,
    now: deps.now,
    requestId: () => requestId,
    log: deps.log,
    publicBaseUrl: requestOrigin(request, deps.behindProxy),
    ...(deps.replica ? { replica: deps.replica } : {}),
    represent: representFor(deps),
    // The request's X-Snapshot-Id holds for each of its calls, as for a REST request.
    snapshotFor: (route, params) =>
      snapshotForRequest(request, namedSnapshots(route.id, params, null), deps.snapshots, deps.snapshotWait),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    refuseInvalidParams(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    const body = Buffer.from(await response.arrayBuffer());
    headers.set('Cache-Control', NO_STORE);
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

/**
 * The origin the client called, for the download links of over-budget answers: the request's
 * Host, and behind a declared proxy the scheme it forwards (X-Forwarded-Proto), since the proxy
 * may end TLS.
 */
function requestOrigin(request: Request, behindProxy: boolean): string {
  const url = new URL(request.url);
  const forwarded = behindProxy ? request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() : undefined;
  if (forwarded === 'https' || forwarded === 'http') url.protocol = `${forwarded}:`;
  return url.origin;
}

/** Host names of the loopback interface, as a Host header carries them (no port). */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a request reached a loopback address under another name: DNS rebinding, where a page
 * of evil.example makes its name resolve to 127.0.0.1 and then calls the local server as its own
 * origin (the Origin check cannot see it; the Host can). Only a direct node:http connection is
 * judged: behind a declared proxy the Host is the public name, and app.fetch has no connection.
 */
function rebound(request: Request): boolean {
  const socket = (request as Request & { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
    ?.socket;
  const local = socket?.localAddress;
  if (local === undefined || !isLoopback(local)) return false;
  const host = request.headers.get('host') ?? '';
  return !LOOPBACK_NAMES.has(host.replace(/:\d+$/, '').toLowerCase());
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/**
 * Refuses a body sent compressed (any Content-Encoding but identity) with the contract's 415:
 * no MCP client compresses its requests, and a decoder would be one more thing a small body can
 * make large (RFC 9110 section 15.5.16: the answer's Accept-Encoding says what is taken).
 */
function refuseEncodedBody(request: Request): void {
  const encoding = request.headers.get('content-encoding');
  if (encoding === null) return;
  const codings = encoding.split(',').map((coding) => coding.trim().toLowerCase());
  if (codings.every((coding) => coding === '' || coding === 'identity')) return;
  throw new ApiError(
    'unsupported_media_type',
    `an MCP request body is sent uncompressed; Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted`,
    { headers: { 'Accept-Encoding': 'identity' } },
  );
}

/**
 * The request body as text, read here rather than by the SDK (which reads any length): a body
 * over MAX_MCP_BODY_BYTES, declared or streamed, is the contract's 413 once the limit is passed.
 */
async function readBody(request: Request): Promise<string> {
  const tooLarge = () =>
    new ApiError('payload_too_large', `an MCP request body is at most ${MAX_MCP_BODY_BYTES} bytes`);
  if (Number(request.headers.get('content-length') ?? '0') > MAX_MCP_BODY_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = request.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    // Not cancelled: node:http discards the rest of the body, so the client reads the 413
    // instead of a reset connection.
    if (bytes > MAX_MCP_BODY_BYTES) throw tooLarge();
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A refusal in the JSON-RPC error form MCP clients read (the one renderer's), its status and code the table's. */
function jsonRpcRefusal(
  code: 'rpc_forbidden' | 'rpc_parse_error',
  message: string,
  headers: ResponseHeaders,
): Response {
  const rendered = renderRpcError(new MmdsError(code, message));
  for (const [name, value] of rendered.headers) headers.set(name, value);
  return createResponse(rendered.status, headers.toPairs(), rendered.body);
}

/**
 * MCP's way to the REST answer path (McpContext.represent): representRoute with these deps, so a
 * tool call reads the built file and the response cache, and keeps what it renders there.
 */
export function representFor(deps: AnswerDeps): (request: RepresentRequest) => Promise<Buffer> {
  return async ({ route, params, url, db, keyed, cotHistory, authenticated }) =>
    (await representRoute(route, params, url, db, keyed, deps, cotHistory, authenticated)).representation
      .body;
}

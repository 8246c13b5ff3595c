import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { authorise, type Caller } from '../contract/authorise.ts';
import type { Success } from '../contract/envelope.ts';
import { toApiError, unavailable } from '../contract/errors.ts';
import { parseRequest, type RequestParams } from '../contract/parse-request.ts';
import { renderError, type ToolRefusal, toolRefusal } from '../contract/render-error.ts';
import { COT_HISTORY_SCOPE, type RouteDefinition } from '../contract/routes.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import { PIPELINE_VERSION } from '../version.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import { refuseSubscriptions } from './subscriptions.ts';
import { answer, downloadPath } from './tool-budget.ts';
import { describeTool, inputShape, OUTPUT_SCHEMA } from './tool-schema.ts';
import { MCP_TOOLS, type McpTool, pathArgument, toolParams } from './tools.ts';

/** What the tools of one MCP session read and who calls them. */
export interface McpContext {
  snapshot: () => SnapshotDb | null;
  /**
   * The caller of a tool call: null when anonymous. Throws the ApiError of a refused key (401),
   * so a key revoked during a long stdio session stops working from the next call.
   */
  caller: () => Promise<Caller | null>;
  now: () => Date;
  /** The id errors carry: the HTTP request's, or a new one per stdio call. */
  requestId: () => string;
  log: (entry: Record<string, unknown>) => void;
  /** Tokens (CHARS_PER_TOKEN rule) one answer may take; DEFAULT_TOKEN_BUDGET when absent. */
  budgetTokens?: number;
  /**
   * The origin download links of an over-budget answer start with (`https://host`): the HTTP
   * request's own, or `mmds mcp --public-url`; null when unknown (the answer then gives the path).
   */
  publicBaseUrl: string | null;
  /** An instance following a bucket: where it stands, for the status tool (HandlerDeps.replica). */
  replica?: (servedId: string | null, now: Date) => Promise<ReplicaStatus>;
  /**
   * The REST answer path (server/represent-route.ts, given by the composition root): the built
   * file, the response cache, or the body rendered and kept. POST /mcp passes the HTTP server's,
   * so a tool call and the same REST request are one answer computed one way.
   */
  represent: (request: RepresentRequest) => Promise<Buffer>;
  /**
   * The snapshot a call reads, never older than one it names (monotonic reads: the request's
   * X-Snapshot-Id, `since` of get_changes): POST /mcp waits as a REST request does. Absent (stdio),
   * the snapshot in service.
   */
  snapshotFor?: (route: RouteDefinition, params: RequestParams) => Promise<SnapshotDb>;
}

/** One request to the REST answer path: what a REST request of the same URL and caller would ask. */
export interface RepresentRequest {
  route: RouteDefinition;
  params: RequestParams;
  /** The REST URL of the same request (path and query): the built file and the Link are found by it. */
  url: URL;
  db: SnapshotDb;
  keyed: boolean;
  cotHistory: boolean;
  authenticated: boolean;
}

/**
 * A new MCP server with one tool per route of MCP_TOOLS, every series and market as a resource
 * (resources.ts) and the analysts' prompts (prompts.ts). Stateless: build one per HTTP request
 * (a server object reused across transports leaks, STACK.md) or one per stdio process.
 */
export function createMcpServer(context: McpContext): McpServer {
  // Logging declared so that logging/setLevel is answered ({}); the tools send no log messages.
  const server = new McpServer(
    { name: 'mmds', version: PIPELINE_VERSION },
    { capabilities: { logging: {} } },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.route.summary,
        description: describeTool(tool),
        inputSchema: inputShape(tool),
        outputSchema: OUTPUT_SCHEMA,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args: Record<string, unknown>) => callTool(tool, args, context),
    );
  }
  registerResources(server, context);
  // Stateless by default (POST /mcp); mmds mcp, whose session lasts, offers them (offerSubscriptions).
  refuseSubscriptions(server);
  registerPrompts(server);
  return server;
}

async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  context: McpContext,
): Promise<CallToolResult> {
  try {
    const search = new URLSearchParams();
    for (const { name } of toolParams(tool))
      if (args[name] !== undefined) search.set(name, String(args[name]));
    const path = pathArgument(tool);
    const slug = path ? String(args[path]) : null;
    const { params, envelope } = await renderRoute(tool.route, slug, search, context);
    return answer(tool, params, envelope, context, downloadPath(tool.route, slug, search));
  } catch (error) {
    const requestId = context.requestId();
    const refusal = toApiError(error, requestId, context.log);
    const { body } = renderError(refusal, { kind: 'tool-result', requestId });
    return { isError: true, content: [{ type: 'text', text: body.toString('utf8') }] };
  }
}

/**
 * The REST endpoint's envelope for a route, a path value and query parameters, under the REST
 * route's own access rule for the caller (the same 401 and 403 for the same request). Throws.
 */
export async function renderRoute(
  route: RouteDefinition,
  slug: string | null,
  search: URLSearchParams,
  context: McpContext,
): Promise<{ params: RequestParams; envelope: Success }> {
  const caller = await context.caller();
  const params = parseRequest(route, slug, search);
  const keyed = authorise(route, params, caller, false);
  const db = context.snapshotFor ? await context.snapshotFor(route, params) : context.snapshot();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  const cotHistory = caller?.scopes.includes(COT_HISTORY_SCOPE) ?? false;
  const release = db.lease();
  try {
    // The REST answer path itself: the built file, the response cache, or the body rendered and kept.
    const path = slug === null ? route.path : route.path.replace(':slug', encodeURIComponent(slug));
    const url = new URL(`http://mcp${path}${search.size > 0 ? `?${search}` : ''}`);
    const body = await context.represent({
      route,
      params,
      url,
      db,
      keyed,
      cotHistory,
      authenticated: caller !== null,
    });
    return { params, envelope: JSON.parse(body.toString('utf8')) as Success };
  } finally {
    release();
  }
}

/** The REST error envelope of a refused call, with its HTTP status, as an agent reads it. */
export function refusalOf(error: unknown, context: McpContext): ToolRefusal {
  const requestId = context.requestId();
  return toolRefusal(toApiError(error, requestId, context.log), requestId);
}

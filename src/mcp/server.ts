import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Success } from '../contract/envelope.ts';
import { toApiError, unavailable } from '../contract/errors.ts';
import { parseRequest, type RequestParams } from '../contract/parse-request.ts';
import { renderError, type ToolRefusal, toolRefusal } from '../contract/render-error.ts';
import { COT_HISTORY_SCOPE, type RouteDefinition } from '../contract/routes.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import { authorise } from '../server/authorise.ts';
import type { Caller } from '../server/handler-deps.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import { PIPELINE_VERSION } from '../version.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import { refuseSubscriptions } from './subscriptions.ts';
import { MCP_TOOLS, type McpTool, pathArgument, toolParams } from './tools.ts';

/** The default response budget of one tool call, in tokens (issue 25). */
export const DEFAULT_TOKEN_BUDGET = 20_000;
/** The stated counting rule: a token is 4 characters of the text returned (UTF-16 code units). */
export const CHARS_PER_TOKEN = 4;

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

/** The tokens of a text by the stated rule. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

const OUTPUT_SCHEMA = {
  data: z.unknown().describe("The REST endpoint's `data`; null when the answer was over the budget."),
  meta: z
    .record(z.string(), z.unknown())
    .describe("The REST endpoint's `meta` (snapshot id, count, next_cursor...)."),
  summary: z
    .object({
      rows: z.number(),
      first: z.unknown(),
      last: z.unknown(),
      budget_tokens: z.number(),
      answer_tokens: z.number(),
      how_to_page: z.string(),
      download: z
        .string()
        .describe(
          'The CSV (or bulk files) of the same data: an absolute URL, or a path when no public URL is known.',
        ),
    })
    .optional()
    .describe('Present only when the full answer was over the response budget.'),
};

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

function describeTool(tool: McpTool): string {
  const access =
    tool.route.access.kind === 'public'
      ? 'Public: no key needed.'
      : tool.route.access.kind === 'scope'
        ? `Needs an API key with scope ${tool.route.access.scope}.`
        : `Public view without a key; a key with scope ${tool.route.access.scope} unlocks the full view.`;
  const asOf = tool.readsAsOf
    ? ' Pass as_of (an RFC 3339 instant) to get only what was known then; without it the answer is the latest knowledge, revisions included.'
    : '';
  return `${tool.route.summary}. ${tool.route.description} ${access}${asOf} Same answer as GET ${tool.route.path}.`;
}

/** The tool's arguments: the path argument (required) and the route's query parameters as text. */
function inputShape(tool: McpTool): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const path = pathArgument(tool);
  if (path)
    shape[path] = z
      .string()
      .describe(
        path === 'slug'
          ? 'Identifier of the market or series (lowercase letters, digits and hyphens).'
          : path,
      );
  for (const { name, spec } of toolParams(tool)) {
    // The REST API validates the text (parseRequest): the tool passes it on as the query would.
    const value = z
      .union([z.string(), z.number()])
      .describe(`${spec.description} Expected: ${spec.expected}.`);
    shape[name] = spec.required ? value : value.optional();
  }
  return shape;
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

/** What the answer is as of, in words an agent reads. */
function knowledgeNote(tool: McpTool, params: RequestParams, snapshot: string): string {
  const asOf = params.query.as_of;
  if (asOf !== undefined)
    return `Snapshot ${snapshot}, as known at ${asOf}: values first published or revised after that instant are left out.`;
  if (tool.readsAsOf)
    return `Snapshot ${snapshot}, latest knowledge: no as_of was given, so later revisions are included; pass as_of to see what was known at an earlier instant.`;
  return `Snapshot ${snapshot}, latest knowledge.`;
}

/**
 * The result of a call: a short summary and the envelope as JSON text, with the envelope as
 * structuredContent. Over the budget, never a cut JSON: the row count, first and last rows, and
 * how to ask for pages that fit.
 */
export function answer(
  tool: McpTool,
  params: RequestParams,
  envelope: Success,
  context: McpContext,
  download: string,
): CallToolResult {
  const budgetTokens = context.budgetTokens ?? DEFAULT_TOKEN_BUDGET;
  const rows = Array.isArray(envelope.data) ? envelope.data : null;
  const note = knowledgeNote(tool, params, envelope.meta.snapshot);
  const summary = `${tool.route.summary}: ${rows ? `${rows.length} row(s)` : 'one object'}. ${note}`;
  const json = JSON.stringify(envelope);
  const tokens = countTokens(summary) + countTokens(json);
  if (tokens <= budgetTokens)
    return {
      content: [
        { type: 'text', text: summary },
        { type: 'text', text: json },
      ],
      structuredContent: envelope as unknown as Record<string, unknown>,
    };
  const pageable = tool.route.query.includes('limit');
  const fitting = rows ? Math.max(1, Math.floor((rows.length * budgetTokens * 0.8) / tokens)) : 0;
  const howToPage = pageable
    ? `Call ${tool.name} again with limit=${fitting} (or narrower from/to), then with cursor set to meta.next_cursor for each next page.`
    : `Narrow the request with the tool's filters; the REST endpoint GET ${tool.route.path} returns the whole answer.`;
  const withRows = {
    data: null,
    meta: envelope.meta,
    summary: {
      rows: rows?.length ?? 0,
      first: rows?.[0] ?? null,
      last: rows?.at(-1) ?? null,
      budget_tokens: budgetTokens,
      answer_tokens: tokens,
      how_to_page: howToPage,
      download: context.publicBaseUrl ? `${context.publicBaseUrl}${download}` : download,
    },
  };
  // Rows so wide that even the first and last are over the budget are left out too.
  const over = { ...withRows, summary: { ...withRows.summary, first: null, last: null } };
  const structured = countTokens(JSON.stringify(withRows)) * 2 < budgetTokens ? withRows : over;
  const csv = download.includes('format=csv');
  const where = context.publicBaseUrl
    ? `The whole ${csv ? 'answer as CSV' : 'dataset as bulk files'}: the resource link.`
    : `The whole ${csv ? 'answer as CSV' : 'dataset as bulk files'}: GET ${download} on the MMDS server (no public URL is configured here: mmds mcp --public-url).`;
  const text = `Over the response budget (${tokens} tokens > ${budgetTokens}): ${summary} ${howToPage} ${where}`;
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(structured) },
      ...(context.publicBaseUrl
        ? [
            {
              type: 'resource_link' as const,
              uri: `${context.publicBaseUrl}${download}`,
              name: csv ? `${tool.name}.csv` : 'bulk-files',
              description: csv
                ? `The same data as CSV (GET ${tool.route.path}, format=csv; with the same key when the endpoint is keyed).`
                : 'The bulk files (Parquet and gzipped CSV) of the snapshot, whole datasets.',
              mimeType: csv ? 'text/csv' : 'application/json',
            },
          ]
        : []),
    ],
    structuredContent: structured,
  };
}

/** Parameters that page an answer: left out of its download, which is the whole answer. */
const PAGING: ReadonlySet<string> = new Set(['limit', 'cursor']);

/**
 * The path (with query) of the same data as a file: the endpoint's CSV (`format=csv`, the
 * request's filters without its paging) where the route has one, else the bulk files' index.
 */
export function downloadPath(route: RouteDefinition, slug: string | null, search: URLSearchParams): string {
  if (!route.query.includes('format')) return '/api/v1/bulk';
  const query = new URLSearchParams([...search].filter(([name]) => !PAGING.has(name)));
  query.set('format', 'csv');
  const path = slug === null ? route.path : route.path.replace(':slug', encodeURIComponent(slug));
  return `${path}?${query}`;
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { ERROR_RULES, RPC } from '../lib/errors.ts';
import type { McpContext } from './context.ts';
import { refusalOf, renderRoute } from './render-route.ts';
import { answer, downloadPath } from './tool-budget.ts';
import { MCP_TOOLS, type McpTool } from './tools.ts';

/** Resources of one resources/list page. */
export const RESOURCE_PAGE_SIZE = 50;

/** The MCP error code of an unknown resource (MCP specification, resources: error handling). */
const RESOURCE_NOT_FOUND = RPC.resourceNotFound;

/**
 * One kind of resource: a URI prefix over a REST route with a slug, listed from the rows of a
 * public catalogue route. Reading one is the REST endpoint for its slug (GET <route path>).
 */
interface ResourceKind {
  prefix: string;
  /** The tool of the route a resource is read from (its payload, access rule and budget). */
  read: McpTool;
  /** The tool of the catalogue route whose rows name the resources. */
  catalogue: McpTool;
  /** Whether a catalogue row is readable: a series without data is a 404 on its route. */
  listed: (row: CatalogueRow) => boolean;
  description: string;
}

type CatalogueRow = { slug: string; name?: string; history_url?: string | null };

function tool(name: string): McpTool {
  const found = MCP_TOOLS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`MCP resources: no tool ${name}`);
  return found;
}

const SERIES_PREFIX = 'mmds://series/';
const MARKETS_PREFIX = 'mmds://markets/';

const KINDS: readonly ResourceKind[] = [
  {
    prefix: SERIES_PREFIX,
    read: tool('get_series_history'),
    catalogue: tool('list_series'),
    listed: (row) => row.history_url !== null && row.history_url !== undefined,
    description: 'Public history of a redistributable series (GET /api/v1/series/{slug}).',
  },
  {
    prefix: MARKETS_PREFIX,
    read: tool('get_cot_market'),
    catalogue: tool('get_cot_summary'),
    listed: () => true,
    description:
      'Commitments of Traders history of a futures market (GET /api/v1/markets/cot/{slug}): the 12 latest reports, all with a key holding cot:history.',
  },
];

/**
 * Serves every series and market as a resource: resources/list (RESOURCE_PAGE_SIZE per page,
 * with a cursor), resources/templates/list and resources/read. Set on the low-level server:
 * McpServer's own resources/list has no pagination.
 */
export function registerResources(server: McpServer, context: McpContext): void {
  server.server.registerCapabilities({ resources: {} });
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = decodeCursor(request.params?.cursor);
    const all = await listResources(context);
    const next = offset + RESOURCE_PAGE_SIZE;
    return {
      resources: all.slice(offset, next),
      ...(next < all.length ? { nextCursor: encodeCursor(next) } : {}),
    };
  });
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: KINDS.map((kind) => ({
      uriTemplate: `${kind.prefix}{slug}`,
      name: kind.read.name.replace(/^get_/, ''),
      description: kind.description,
      mimeType: 'application/json',
    })),
  }));
  server.server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    readResource(request.params.uri, context),
  );
}

/** Every readable series and market, series first, each in its catalogue's order. */
async function listResources(context: McpContext): Promise<Resource[]> {
  const resources: Resource[] = [];
  for (const kind of KINDS) {
    const rows = await catalogueRows(kind, context);
    for (const row of rows.filter(kind.listed))
      resources.push({
        uri: `${kind.prefix}${row.slug}`,
        name: row.slug,
        title: row.name ?? row.slug,
        description: kind.description,
        mimeType: 'application/json',
      });
  }
  return resources;
}

async function catalogueRows(kind: ResourceKind, context: McpContext): Promise<CatalogueRow[]> {
  try {
    const { envelope } = await renderRoute(kind.catalogue.route, null, new URLSearchParams(), context);
    return envelope.data as CatalogueRow[];
  } catch (error) {
    throw protocolError(error, context);
  }
}

/**
 * A resource's contents: the REST endpoint's JSON for its slug, for this caller, within the
 * response budget (past it, the summary a tool call would answer, never a cut JSON).
 */
async function readResource(uri: string, context: McpContext): Promise<ReadResourceResult> {
  const parsed = parseResourceUri(uri);
  if (!parsed)
    throw new McpError(RESOURCE_NOT_FOUND, `no resource ${uri.slice(0, 200)}`, { uri: uri.slice(0, 200) });
  const { kind, slug } = parsed;
  let result: ReturnType<typeof answer>;
  try {
    const search = new URLSearchParams();
    const { params, envelope } = await renderRoute(kind.read.route, slug, search, context);
    const download = downloadPath(kind.read.route, slug, search);
    result = answer(kind.read, params, envelope, context, download, 'resource');
  } catch (error) {
    throw protocolError(error, context, uri);
  }
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(result.structuredContent) }],
  };
}

/** A resource URI's kind and slug, or null when the URI has no known prefix or no single slug. */
function parseResourceUri(uri: string): { kind: ResourceKind; slug: string } | null {
  const kind = KINDS.find((candidate) => uri.startsWith(candidate.prefix));
  const slug = kind ? uri.slice(kind.prefix.length) : '';
  // The slug itself is checked by the route (parseRequest), as for the REST path.
  if (!kind || slug === '' || /[/?#]/.test(slug)) return null;
  return { kind, slug };
}

/** What a resource URI names: a series or a COT market by slug, or null (not one of ours). */
export function resourceSubject(uri: string): { kind: 'series' | 'market'; slug: string } | null {
  const parsed = parseResourceUri(uri);
  if (!parsed) return null;
  return { kind: parsed.kind.prefix === SERIES_PREFIX ? 'series' : 'market', slug: parsed.slug };
}

/** The URI of a series' or a market's resource. */
export function resourceUri(kind: 'series' | 'market', slug: string): string {
  return `${kind === 'series' ? SERIES_PREFIX : MARKETS_PREFIX}${slug}`;
}

/** A refused read as a JSON-RPC error: an unknown or unreadable resource is -32002, as MCP says. */
function protocolError(error: unknown, context: McpContext, uri?: string): McpError {
  const refusal = refusalOf(error, context);
  return new McpError(
    ERROR_RULES[refusal.error.code].rpc,
    `${refusal.status} ${refusal.error.code}: ${refusal.error.message}`,
    {
      ...refusal,
      ...(uri ? { uri } : {}),
    },
  );
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

/** The offset of a cursor this server gave; a cursor it did not give is invalid params. */
function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset: unknown };
    if (Number.isSafeInteger(offset) && (offset as number) >= 0) return offset as number;
  } catch {
    // Falls through to the refusal.
  }
  throw new McpError(ErrorCode.InvalidParams, 'the cursor is not one resources/list gave');
}

/**
 * A route answered for MCP (a tool call, a resource read): the REST endpoint's envelope under the
 * REST route's own access rule, through the REST answer path, and a refusal as an agent reads it.
 */
import { authorise } from '../contract/authorise.ts';
import type { Success } from '../contract/envelope.ts';
import { toApiError, unavailable } from '../contract/errors.ts';
import { parseRequest, type RequestParams } from '../contract/parse-request.ts';
import { type ToolRefusal, toolRefusal } from '../contract/render-error.ts';
import { COT_HISTORY_SCOPE, type RouteDefinition } from '../contract/routes.ts';
import type { McpContext } from './context.ts';

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

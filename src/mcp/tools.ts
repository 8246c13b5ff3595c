import type { RouteDefinition, RouteId } from '../contract/routes.ts';
import { ROUTES, routeParams } from '../contract/routes.ts';

/** One MCP tool: a REST route of the table under an agent's name. */
export interface McpTool {
  /** Within `^[A-Za-z0-9_./-]{1,64}$` (the MCP tool name rule). */
  name: string;
  route: RouteDefinition;
  /** Reads data as of an instant: the route takes `as_of`. */
  readsAsOf: boolean;
}

/**
 * The routes agents get as tools, by route id. Everything else about a tool (its description,
 * parameters, access rule, payload) is read from the route table, so a tool cannot drift from
 * the REST endpoint it answers for. Bulk files, the event stream and the iCalendar form stay
 * REST-only: they are files or streams, not answers an agent reads.
 */
const TOOL_ROUTES: readonly (readonly [name: string, route: RouteId])[] = [
  ['list_series', 'series'],
  ['search_series', 'series-search'],
  ['get_series_history', 'series-history'],
  ['get_observations', 'observations'],
  ['get_observation_revisions', 'observations-revisions'],
  ['get_aligned_observations', 'observations-aligned'],
  ['get_macro_series', 'macro-series'],
  ['get_macro_revisions', 'macro-revisions'],
  ['get_vintage_dates', 'series-vintagedates'],
  ['get_cot_summary', 'cot-summary'],
  ['get_cot_market', 'cot-market'],
  ['get_cot_reports', 'cot-reports'],
  ['get_fx_rates', 'fx-ecb'],
  ['get_releases', 'releases'],
  ['get_changes', 'changes'],
  ['get_status', 'status'],
];

/** Query parameters a tool does not take: tools answer JSON (the CSV is the REST API's). */
const NOT_TOOL_PARAMS: ReadonlySet<string> = new Set(['format']);

export const MCP_TOOLS: readonly McpTool[] = TOOL_ROUTES.map(([name, id]) => {
  const route = ROUTES.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`MCP tool ${name}: no route ${id}`);
  return { name, route, readsAsOf: route.query.includes('as_of') };
});

/** The query parameters of a tool's route that the tool takes, with their specs. */
export function toolParams(tool: McpTool) {
  return routeParams(tool.route).filter(({ name }) => !NOT_TOOL_PARAMS.has(name));
}

/** The name of a tool's path argument (`slug`, or the route's pathParam), or null without one. */
export function pathArgument(tool: McpTool): string | null {
  return tool.route.path.includes(':slug') ? (tool.route.pathParam ?? 'slug') : null;
}

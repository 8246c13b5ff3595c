/**
 * The description and input schema of each tool as tools/list shows them: the texts of
 * tool-text.ts, the access rule of the route, and every query parameter of the route but format,
 * with the value set of the REST validation (the parameter's own zod schema) as an enum.
 */
import { z } from 'zod';
import { PARAMS, type ParamName } from '../contract/params.ts';
import { paramSpec } from '../contract/routes.ts';
import { PARAM_TEXT, SLUG_TEXT, TOOL_PARAM_TEXT, TOOL_TEXT } from './tool-text.ts';
import { type McpTool, pathArgument, toolParams } from './tools.ts';

/** What every tool answers (structuredContent): the REST body, or over the budget its summary. */
export const OUTPUT_SCHEMA = {
  data: z.unknown().describe("The REST body's data (null over the budget)."),
  meta: z.looseObject({}),
  summary: z
    .looseObject({})
    .optional()
    .describe(
      'Over the budget only: rows, first, last, budget_tokens, answer_tokens, how_to_page, download.',
    ),
};

/** A tool's description: what it answers, who may call it, and the REST endpoint it answers as. */
export function describeTool(tool: McpTool): string {
  const text = TOOL_TEXT[tool.name];
  if (!text) throw new Error(`MCP tool ${tool.name}: no description in tool-text.ts`);
  const { access } = tool.route;
  const who =
    access.kind === 'public'
      ? 'Public: no key needed.'
      : access.kind === 'scope'
        ? `Needs an API key with scope ${access.scope}.`
        : `Public without a key; a key with scope ${access.scope} unlocks the full view.`;
  const asOf = tool.readsAsOf
    ? ' Without as_of the answer is the latest knowledge, later revisions included.'
    : '';
  return `${text} ${who}${asOf} Same answer as GET ${tool.route.path.replace(':slug', '{slug}')}.`;
}

/** A parameter's description for a tool: its own text, the generic one, or the route's REST text. */
export function paramDescription(tool: McpTool, name: string): string {
  const own = TOOL_PARAM_TEXT[tool.name]?.[name];
  if (own) return own;
  const spec = paramSpec(tool.route, name as ParamName);
  // A route that says something else of a parameter than PARAMS does is not described by PARAM_TEXT.
  const generic = spec.description === PARAMS[name as ParamName]?.description ? PARAM_TEXT[name] : undefined;
  return generic ?? spec.description;
}

/**
 * The values a parameter's REST validation accepts when it is a closed set: a zod enum, or an
 * enum piped into a transform (output_type: '1'..'4' read as numbers). Null for open sets.
 */
export function enumValues(schema: z.ZodType): readonly string[] | null {
  if (schema instanceof z.ZodEnum) return schema.options.map(String);
  if (schema instanceof z.ZodPipe) return enumValues(schema.in as z.ZodType);
  return null;
}

/** The tool's arguments: the path argument (required) and the route's query parameters. */
export function inputShape(tool: McpTool): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const path = pathArgument(tool);
  if (path) {
    const text = SLUG_TEXT[tool.name];
    if (!text) throw new Error(`MCP tool ${tool.name}: no text for its ${path} argument in tool-text.ts`);
    shape[path] = z.string().describe(text);
  }
  for (const { name, spec } of toolParams(tool)) {
    const values = enumValues(spec.schema);
    // The REST API validates the text (parseRequest): the tool passes it on as the query would.
    // Numbers are taken where a number is natural (limit=5, from=2025, output_type=4).
    const value = (
      values
        ? values.every((item) => /^\d+$/.test(item))
          ? z.union([z.enum(values as [string, ...string[]]), z.literal(values.map(Number))])
          : z.enum(values as [string, ...string[]])
        : z.union([z.string(), z.number()])
    ).describe(paramDescription(tool, name));
    shape[name] = spec.required ? value : value.optional();
  }
  return shape;
}

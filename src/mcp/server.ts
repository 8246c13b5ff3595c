/**
 * The MCP server of one session (createMcpServer): its tools, each the REST endpoint of its route
 * (render-route.ts), its resources, its prompts, and a tool call's refusal as a tool error.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toApiError } from '../contract/errors.ts';
import { renderError } from '../contract/render-error.ts';
import { PIPELINE_VERSION } from '../version.ts';
import type { McpContext } from './context.ts';
import { registerPrompts } from './prompts.ts';
import { renderRoute } from './render-route.ts';
import { registerResources } from './resources.ts';
import { refuseSubscriptions } from './subscriptions.ts';
import { answer, downloadPath } from './tool-budget.ts';
import { describeTool, inputShape, OUTPUT_SCHEMA } from './tool-schema.ts';
import { MCP_TOOLS, type McpTool, pathArgument, toolParams } from './tools.ts';

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

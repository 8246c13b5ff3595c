/**
 * The response budget of a tool call (issue 25; issue 35 item 7): a result counts everything it
 * sends, each text content item, the JSON of structuredContent and any other item, and never
 * exceeds the budget by a cut JSON. A paged answer over it becomes a summary with how to page and
 * a download; an answer that cannot be paged becomes a tool error saying how to narrow it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Success } from '../contract/envelope.ts';
import type { RequestParams } from '../contract/parse-request.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import { NARROW_TEXT } from './tool-text.ts';
import type { McpTool } from './tools.ts';

/** The default response budget of one tool call, in tokens (issue 25). */
export const DEFAULT_TOKEN_BUDGET = 20_000;
/** The stated counting rule: a token is 4 characters of the text returned (UTF-16 code units). */
export const CHARS_PER_TOKEN = 4;

/** What the budget of a call depends on (McpContext's fields of the same names). */
export interface BudgetContext {
  /** Tokens (CHARS_PER_TOKEN rule) one answer may take; DEFAULT_TOKEN_BUDGET when absent. */
  budgetTokens?: number;
  /** The origin download links start with, or null (the answer then gives the path). */
  publicBaseUrl: string | null;
  /** The id errors carry. */
  requestId: () => string;
}

/** The tokens of a text by the stated rule. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The tokens a tool result sends: every text item, the JSON of structuredContent and of other items. */
export function resultTokens(result: CallToolResult): number {
  let tokens =
    result.structuredContent === undefined ? 0 : countTokens(JSON.stringify(result.structuredContent));
  for (const part of result.content)
    tokens += countTokens(part.type === 'text' ? part.text : JSON.stringify(part));
  return tokens;
}

/**
 * What the answer is sent as: a tool result (every part counts), or a resource's contents (the
 * JSON of structuredContent alone is sent).
 */
export type Sent = 'tool-result' | 'resource';

function measure(result: CallToolResult, sent: Sent): number {
  return sent === 'tool-result'
    ? resultTokens(result)
    : countTokens(JSON.stringify(result.structuredContent));
}

/** What the answer is as of, in words an agent reads. */
function knowledgeNote(tool: McpTool, params: RequestParams, snapshot: string): string {
  const asOf = params.query.as_of;
  // The point-in-time panel of get_aligned_observations: each row has its own instant.
  if (asOf === 'row')
    return `Snapshot ${snapshot}, each row as known at its own as_of (the end of its last day in UTC): values first published or revised after a row's as_of are left out of that row.`;
  if (asOf !== undefined)
    return `Snapshot ${snapshot}, as known at ${asOf}: values first published or revised after that instant are left out.`;
  if (tool.readsAsOf)
    return `Snapshot ${snapshot}, latest knowledge: no as_of was given, so later revisions are included; pass as_of to see what was known at an earlier instant.`;
  return `Snapshot ${snapshot}, latest knowledge.`;
}

/**
 * The result of a call: a short summary and the envelope as JSON text, with the envelope as
 * structuredContent. Over the budget, never a cut JSON: for a paged route the row count, first
 * and last rows, and how to ask for pages that fit; for another route (sent as a tool result) a
 * tool error naming how to narrow the request.
 */
export function answer(
  tool: McpTool,
  params: RequestParams,
  envelope: Success,
  context: BudgetContext,
  download: string,
  sent: Sent = 'tool-result',
): CallToolResult {
  const budgetTokens = context.budgetTokens ?? DEFAULT_TOKEN_BUDGET;
  const rows = Array.isArray(envelope.data) ? envelope.data : null;
  const note = knowledgeNote(tool, params, envelope.meta.snapshot);
  const summary = `${tool.route.summary}: ${rows ? `${rows.length} row(s)` : 'one object'}. ${note}`;
  const whole: CallToolResult = {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(envelope) },
    ],
    structuredContent: envelope as unknown as Record<string, unknown>,
  };
  const tokens = measure(whole, sent);
  if (tokens <= budgetTokens) return whole;
  const link = context.publicBaseUrl ? `${context.publicBaseUrl}${download}` : download;
  const pageable = tool.route.query.includes('limit');
  if (!pageable && sent === 'tool-result')
    return overBudgetError(tool, rows?.length ?? null, tokens, budgetTokens, link, context);
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
      download: link,
    },
  };
  const csv = download.includes('format=csv');
  const where = context.publicBaseUrl
    ? `The whole ${csv ? 'answer as CSV' : 'dataset as bulk files'}: the resource link.`
    : `The whole ${csv ? 'answer as CSV' : 'dataset as bulk files'}: GET ${download} on the MMDS server (no public URL is configured here: mmds mcp --public-url).`;
  const text = `Over the response budget (${tokens} tokens > ${budgetTokens}): ${summary} ${howToPage} ${where}`;
  const result = (structured: typeof withRows): CallToolResult => ({
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(structured) },
      ...(context.publicBaseUrl
        ? [
            {
              type: 'resource_link' as const,
              uri: link,
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
  });
  const first = result(withRows);
  // Rows so wide that even the first and last do not fit are left out too.
  if (measure(first, sent) <= budgetTokens) return first;
  return result({ ...withRows, summary: { ...withRows.summary, first: null, last: null } });
}

/** The code of the tool error of an answer over the budget that cannot be paged. */
export const OVER_BUDGET = 'over_budget';

/**
 * The tool error of an answer over the budget that cannot be paged: the size, how to narrow the
 * request (the tool's own advice, and fields when the route takes it) and where the whole is.
 */
function overBudgetError(
  tool: McpTool,
  rows: number | null,
  tokens: number,
  budgetTokens: number,
  download: string,
  context: BudgetContext,
): CallToolResult {
  const advice = [
    NARROW_TEXT[tool.name] ?? "narrow the request with the tool's arguments",
    ...((tool.route.query as readonly string[]).includes('fields')
      ? ["ask for fewer fields per row with fields (a comma-separated list of the row's fields)"]
      : []),
  ].join('; or ');
  const message =
    `The answer (${rows === null ? 'one object' : `${rows} rows`}) is ${tokens} tokens, over the response ` +
    `budget of ${budgetTokens} tokens, and ${tool.name} does not page. To narrow it: ${advice}. ` +
    `The whole data: GET ${download}.`;
  const body = {
    error: { code: OVER_BUDGET, message, request_id: context.requestId() },
    rows,
    budget_tokens: budgetTokens,
    answer_tokens: tokens,
    download,
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
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

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Success } from '../../../src/contract/envelope.ts';
import type { RequestParams } from '../../../src/contract/parse-request.ts';
import { answer, countTokens, OVER_BUDGET, resultTokens } from '../../../src/mcp/tool-budget.ts';
import { MCP_TOOLS } from '../../../src/mcp/tools.ts';

/**
 * The response budget counts everything a tool result sends (issue 35 item 7): the summary text,
 * the JSON text and structuredContent (the same body, sent twice), and any link. The envelopes here
 * are bodies of the shape the REST endpoints answer, sized against the budget.
 */
const BUDGET = 2_000;
const PARAMS: RequestParams = { slug: null, query: {}, keyedParams: [] };
const context = { budgetTokens: BUDGET, publicBaseUrl: null, requestId: () => 'unit-request' };

const tool = (name: string) => MCP_TOOLS.find((candidate) => candidate.name === name)!;

/** A body of `rows` rows whose JSON is about `tokens` tokens. */
function envelopeOf(tokens: number, rows = 20): Success {
  const row = (i: number, width: number) => ({ period: `2025-${i}`, value: 'x'.repeat(width) });
  const body = (width: number): Success => ({
    data: Array.from({ length: rows }, (_, i) => row(i, width)),
    meta: { api_version: 'v1', snapshot: '20261123T120000Z-0123abcd', generated_at: '2026-11-23T12:00:00Z' },
  });
  const overhead = countTokens(JSON.stringify(body(0)));
  return body(Math.max(0, Math.floor(((tokens - overhead) * 4) / rows)));
}

const texts = (result: CallToolResult) =>
  result.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));

describe('the response budget of a tool call', () => {
  it('counts structuredContent besides the text: a body of 60% of the budget is sent as a summary', () => {
    const envelope = envelopeOf(BUDGET * 0.6);
    // Counted as text alone (summary and JSON) it would fit.
    expect(countTokens(JSON.stringify(envelope)) + 100).toBeLessThan(BUDGET);
    const result = answer(
      tool('get_observations'),
      PARAMS,
      envelope,
      context,
      '/api/v1/observations?format=csv',
    );
    const structured = result.structuredContent as {
      data: unknown;
      summary: { rows: number; answer_tokens: number };
    };
    expect(structured.data).toBeNull();
    expect(structured.summary.rows).toBe(20);
    expect(structured.summary.answer_tokens).toBeGreaterThan(BUDGET);
    expect(resultTokens(result)).toBeLessThanOrEqual(BUDGET);
  });

  it('sends a body that fits whole, text and structuredContent together within the budget', () => {
    const envelope = envelopeOf(BUDGET * 0.4);
    const result = answer(
      tool('get_observations'),
      PARAMS,
      envelope,
      context,
      '/api/v1/observations?format=csv',
    );
    expect(result.structuredContent).toEqual(envelope);
    expect(JSON.parse(texts(result)[1]!)).toEqual(envelope);
    const json = countTokens(JSON.stringify(envelope));
    expect(resultTokens(result)).toBeGreaterThanOrEqual(2 * json);
    expect(resultTokens(result)).toBeLessThanOrEqual(BUDGET);
  });

  it('counts a resource read as the one JSON it sends', () => {
    const envelope = envelopeOf(BUDGET * 0.6);
    const read = answer(
      tool('get_series_history'),
      PARAMS,
      envelope,
      context,
      '/api/v1/series/x',
      'resource',
    );
    expect(read.structuredContent).toEqual(envelope);
  });

  it('leaves out rows too wide to fit, and links the download with a public URL within the budget', () => {
    const envelope = envelopeOf(BUDGET * 3, 2);
    const linked = { ...context, publicBaseUrl: 'https://data.example.org' };
    const result = answer(
      tool('get_observations'),
      PARAMS,
      envelope,
      linked,
      '/api/v1/observations?format=csv',
    );
    const summary = (result.structuredContent as { summary: { first: unknown; download: string } }).summary;
    expect(summary.first).toBeNull();
    expect(summary.download).toBe('https://data.example.org/api/v1/observations?format=csv');
    expect(result.content.at(-1)).toMatchObject({ type: 'resource_link', uri: summary.download });
    expect(resultTokens(result)).toBeLessThanOrEqual(BUDGET);
  });

  it('answers a tool that does not page, over the budget, with a tool error saying how to narrow it', () => {
    const reports = tool('get_cot_reports');
    const result = answer(reports, PARAMS, envelopeOf(BUDGET * 2), context, '/api/v1/bulk');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const body = JSON.parse(texts(result)[0]!) as {
      error: { code: string; message: string; request_id: string };
      rows: number;
      budget_tokens: number;
      answer_tokens: number;
    };
    expect(body.error.code).toBe(OVER_BUDGET);
    expect(body.error.request_id).toBe('unit-request');
    expect(body).toMatchObject({ rows: 20, budget_tokens: BUDGET });
    expect(body.answer_tokens).toBeGreaterThan(BUDGET);
    expect(body.error.message).toContain('report_type');
    expect(body.error.message).toContain('get_cot_market');
    // Once the route takes fields (issue 35 item 3), the agent is told of it too.
    if ((reports.route.query as readonly string[]).includes('fields'))
      expect(body.error.message).toContain('fields');
    expect(resultTokens(result)).toBeLessThanOrEqual(BUDGET);
  });
});

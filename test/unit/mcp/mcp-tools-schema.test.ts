import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramSpec } from '../../../src/contract/routes.ts';
import { createMcpServer } from '../../../src/mcp/server.ts';
import { NARROW_TEXT } from '../../../src/mcp/tool-text.ts';
import { MCP_TOOLS, pathArgument } from '../../../src/mcp/tools.ts';
import { SERVED_COT_REPORT_TYPES } from '../../../src/model/records.ts';
import {
  TRANSFORM_AGGREGATIONS,
  TRANSFORM_FREQUENCIES,
  TRANSFORM_UNITS,
} from '../../../src/model/transforms.ts';

/**
 * What an agent reads in tools/list (issue 35 item 7), read by the SDK's own client from a
 * server linked to it in memory: self-contained descriptions, every REST parameter but format,
 * enums from the REST validation, and where the slugs come from.
 */
type Property = { description?: string; enum?: unknown[]; type?: unknown; anyOf?: Property[] };

describe('the MCP tools as tools/list shows them', () => {
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    const server = createMcpServer({
      snapshot: () => null,
      caller: async () => null,
      now: () => new Date(),
      requestId: () => 'unit',
      log: () => {},
      publicBaseUrl: null,
      represent: () => Promise.reject(new Error('tools/list renders nothing')),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'mmds-unit', version: '1.0.0' });
    await client.connect(clientSide);
    ({ tools } = await client.listTools());
  });

  afterAll(async () => {
    await client?.close();
  });

  const listed = (name: string) => {
    const tool = tools.find((candidate) => candidate.name === name);
    expect(tool, name).toBeDefined();
    return tool!;
  };
  const properties = (tool: Tool) => (tool.inputSchema.properties ?? {}) as Record<string, Property>;
  /** Every text of a tool an agent reads: its description and each argument's. */
  const texts = (tool: Tool) => [
    tool.description ?? '',
    ...Object.values(properties(tool)).map((property) => property.description ?? ''),
  ];

  it('gives every tool every query parameter of its REST route but format, and its path argument', () => {
    for (const tool of MCP_TOOLS) {
      const expected = tool.route.query.filter((name) => name !== 'format') as string[];
      const path = pathArgument(tool);
      expect(Object.keys(properties(listed(tool.name))).sort(), tool.name).toEqual(
        [...expected, ...(path ? [path] : [])].sort(),
      );
    }
  });

  it('describes every tool and argument without file paths, CSV or format, and names only its own arguments', () => {
    for (const tool of MCP_TOOLS) {
      const shown = listed(tool.name);
      const own = new Set(Object.keys(properties(shown)));
      for (const text of texts(shown)) {
        expect(text.length, `${tool.name}: an empty description`).toBeGreaterThan(10);
        expect(text, tool.name).not.toMatch(/docs\/|\.md\b|\.csv|\bcsv\b|\bformat\b/i);
        // `name=value` is how a text tells the agent to pass an argument: it must be one of this tool's.
        for (const [, name] of text.matchAll(/\b([a-z_]+)=/g))
          expect(own.has(name!), `${tool.name} mentions ${name}=, not one of its arguments`).toBe(true);
      }
    }
  });

  it("describes each argument without naming another tool's arguments", () => {
    // The names an agent would take for arguments: with an underscore, or limit and cursor.
    const every = new Set(MCP_TOOLS.flatMap((tool) => tool.route.query as readonly string[]));
    const names = [...every].filter((name) => name.includes('_') || name === 'limit' || name === 'cursor');
    for (const tool of MCP_TOOLS) {
      const shown = properties(listed(tool.name));
      for (const [argument, property] of Object.entries(shown))
        for (const name of names)
          if (new RegExp(`\\b${name}\\b`).test(property.description ?? ''))
            expect(name in shown, `${tool.name}.${argument} names ${name}`).toBe(true);
    }
  });

  it('lists the value set of a closed parameter as an enum, the values the REST validation accepts', () => {
    const expected: Record<string, readonly string[]> = {
      units: TRANSFORM_UNITS,
      frequency: TRANSFORM_FREQUENCIES,
      aggregation: TRANSFORM_AGGREGATIONS,
      report_type: SERVED_COT_REPORT_TYPES,
      sort_order: ['asc', 'desc'],
      shape: ['list', 'triangle'],
      fill: ['ffill', 'none'],
    };
    const seen = new Set<string>();
    for (const tool of MCP_TOOLS) {
      for (const [name, property] of Object.entries(properties(listed(tool.name)))) {
        if (name === pathArgument(tool)) continue;
        const spec = paramSpec(tool.route, name as Parameters<typeof paramSpec>[1]);
        const values = property.enum ?? property.anyOf?.[0]?.enum;
        if (!values) {
          // An open set: a string no enum could list is accepted as text by the REST validation or not.
          expect(property.type, `${tool.name}.${name}`).toEqual(['string', 'number']);
          continue;
        }
        seen.add(name);
        for (const value of values)
          expect(spec.schema.safeParse(String(value)).success, `${tool.name}.${name}=${value}`).toBe(true);
        expect(spec.schema.safeParse('not-a-value').success).toBe(false);
        const set =
          tool.name === 'get_aligned_observations' && name === 'frequency' ? ['w', 'm'] : expected[name];
        if (set) expect(values, `${tool.name}.${name}`).toEqual([...set]);
      }
    }
    for (const name of [...Object.keys(expected), 'output_type']) expect(seen, name).toContain(name);
    // output_type 1-4 as ALFRED writes it: a number or its text.
    const outputType = properties(listed('get_observations')).output_type!;
    expect(outputType.anyOf?.map((option) => option.enum)).toEqual([
      ['1', '2', '3', '4'],
      [1, 2, 3, 4],
    ]);
  });

  it('says which tool lists the values of each slug argument', () => {
    const listing = new Set(['list_series', 'search_series', 'get_cot_summary']);
    for (const tool of MCP_TOOLS) {
      const path = pathArgument(tool);
      if (!path) continue;
      const description = properties(listed(tool.name))[path]!.description!;
      const named = [...listing].filter((name) => description.includes(name));
      expect(named.length, `${tool.name}.${path}: ${description}`).toBeGreaterThan(0);
    }
  });

  it('tells every tool that does not page how to narrow an answer over the budget', () => {
    for (const tool of MCP_TOOLS.filter((candidate) => !candidate.route.query.includes('limit')))
      expect(NARROW_TEXT[tool.name], tool.name).toBeDefined();
  });

  it('keeps tools/list under 40 KB', () => {
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThanOrEqual(40_000);
  });
});

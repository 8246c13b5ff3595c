import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventLog, readAllAfter } from '../../../src/events/event-log.ts';
import { RESOURCE_PAGE_SIZE } from '../../../src/mcp/resources.ts';
import {
  countTokens,
  DEFAULT_TOKEN_BUDGET,
  downloadPath,
  OVER_BUDGET,
  resultTokens,
} from '../../../src/mcp/tool-budget.ts';
import { MCP_TOOLS } from '../../../src/mcp/tools.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

// The server checks key expiry against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
/** An instant inside the sample's history: July 2025 payrolls were revised after it. */
const AS_OF = '2026-01-01T00:00:00Z';

/** The MCP Inspector's CLI (a tool we did not write), run by the project's Node. */
const INSPECTOR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
/** The MCP conformance suite's CLI (a tool we did not write) and our baseline of its scenarios. */
const CONFORMANCE = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const CONFORMANCE_BASELINE = join(REPO_ROOT, 'test/e2e/mcp/conformance-baseline.yml');

/** One check of a conformance scenario, as its checks.json records it. */
type ConformanceCheck = { id: string; status: string; errorMessage?: string; details?: unknown };

type Body = { data: unknown; meta: Record<string, unknown> };

/** A body without the render time, which differs between two renders of one answer. */
function comparable(body: Body): Body {
  const { generated_at: _ignored, ...meta } = body.meta;
  return { data: body.data, meta };
}

describe('MCP server over Streamable HTTP (POST /mcp) and stdio (mmds mcp)', () => {
  let fixture: SharedSampleFixture;
  let server: TestServer;
  let observationsKey: string;
  let bulkOnlyKey: string;
  const clients: Client[] = [];

  const issue = async (scopes: string, extra: string[] = []): Promise<string> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'MCP Org', '--scopes', scopes, ...extra],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  const httpClient = async (key?: string): Promise<Client> => {
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : {},
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  const rest = async (path: string, key?: string): Promise<{ status: number; body: Body }> => {
    const response = await fetch(`${server.url}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Body };
  };

  const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    // With the test-only licensed vendor: subscriptions are checked against its rights.
    fixture = await useSharedSample({ licensed: true });
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.distDir,
      anonymousLimit: 10_000,
    });
    observationsKey = await issue('observations:read');
    bulkOnlyKey = await issue('bulk:read');
  }, 600_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    fixture?.remove();
  });

  it('lists one tool per route of the tool table, each with input and output schemas', async () => {
    const client = await httpClient();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const observations = tools.find((tool) => tool.name === 'get_observations')!;
    expect(Object.keys(observations.inputSchema.properties ?? {})).toContain('as_of');
    expect(observations.inputSchema.required).toEqual(['series']);
  });

  it('answers tools/list in at most 40 KB (the JSON-RPC result as POST /mcp sends it)', async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { tools: { name: string }[] } };
    expect(result.tools).toHaveLength(MCP_TOOLS.length);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(40_000);
  });

  it('answers public tools anonymously with the REST body', async () => {
    const client = await httpClient();
    for (const [name, args, path] of [
      ['list_series', { country: 'US' }, '/api/v1/series?country=US'],
      [
        'search_series',
        { search_text: 'euro dollar', limit: 2 },
        '/api/v1/series/search?search_text=euro%20dollar&limit=2',
      ],
      ['get_fx_rates', { currency: 'USD,JPY', base: 'GBP' }, '/api/v1/fx/ecb?currency=USD,JPY&base=GBP'],
      ['get_cot_summary', {}, '/api/v1/markets/cot'],
      ['get_cot_market', { slug: 'gold' }, '/api/v1/markets/cot/gold'],
    ] as const) {
      const result = await callTool(client, name, args);
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const expected = await rest(path);
      expect(expected.status, path).toBe(200);
      expect(comparable(result.structuredContent as Body), name).toEqual(comparable(expected.body));
      // The text carries the same envelope for clients that do not read structuredContent.
      const text = (result.content as { text: string }[]).map((part) => part.text);
      expect(comparable(JSON.parse(text[1]!) as Body)).toEqual(comparable(expected.body));
      expect(text[0]).toContain('latest knowledge');
    }
  });

  it('refuses keyed tools as the REST API does: 401 without a key, 403 without the scope', async () => {
    const anonymous = await callTool(await httpClient(), 'get_observations', { series: PAYROLLS });
    expect(anonymous.isError).toBe(true);
    const refusal = JSON.parse((anonymous.content as { text: string }[])[0]!.text);
    expect(refusal.status).toBe(401);
    expect(refusal.error.code).toBe('unauthorized');
    const rest401 = await rest(`/api/v1/observations?series=${PAYROLLS}`);
    expect(refusal.error.message).toBe(
      (rest401.body as unknown as { error: { message: string } }).error.message,
    );
    const noScope = await callTool(await httpClient(bulkOnlyKey), 'get_observations', { series: PAYROLLS });
    expect(noScope.isError).toBe(true);
    expect(JSON.parse((noScope.content as { text: string }[])[0]!.text).error.code).toBe(
      'insufficient_scope',
    );
    // A parameter the route refuses is the REST 400, not a protocol error.
    const bad = await callTool(await httpClient(observationsKey), 'get_observations', {
      series: PAYROLLS,
      as_of: 'yesterday',
    });
    expect(JSON.parse((bad.content as { text: string }[])[0]!.text).error.code).toBe('invalid_parameter');
  });

  it('answers get_observations with as_of exactly as the REST API, nothing known after as_of', async () => {
    const client = await httpClient(observationsKey);
    const july = { series: PAYROLLS, from: '2025-07', to: '2025-07' };
    const latest = await callTool(client, 'get_observations', july);
    const atAsOf = await callTool(client, 'get_observations', { ...july, as_of: AS_OF });
    expect(atAsOf.isError, JSON.stringify(atAsOf.content)).toBeFalsy();
    const expected = await rest(
      `/api/v1/observations?series=${PAYROLLS}&from=2025-07&to=2025-07&as_of=${AS_OF}`,
      observationsKey,
    );
    expect(expected.status).toBe(200);
    expect(comparable(atAsOf.structuredContent as Body)).toEqual(comparable(expected.body));
    const rows = (atAsOf.structuredContent as { data: { observed_at: string }[] }).data;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Date.parse(row.observed_at)).toBeLessThanOrEqual(Date.parse(AS_OF));
    expect((atAsOf.content as { text: string }[])[0]!.text).toContain(`as known at ${AS_OF}`);
    // The latest knowledge differs (values published after as_of) and says so.
    expect((latest.structuredContent as Body).data).not.toEqual(rows);
    expect((latest.content as { text: string }[])[0]!.text).toContain('no as_of was given');
  });

  it('answers get_aligned_observations with as_of as the REST endpoint does', async () => {
    const client = await httpClient(observationsKey);
    const args = { series: 'ecb.USD,ecb.JPY', frequency: 'm', as_of: AS_OF };
    const result = await callTool(client, 'get_aligned_observations', args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const expected = await rest(
      `/api/v1/observations/aligned?series=ecb.USD,ecb.JPY&frequency=m&as_of=${AS_OF}`,
      observationsKey,
    );
    expect(expected.status).toBe(200);
    expect(comparable(result.structuredContent as Body)).toEqual(comparable(expected.body));
    expect((result.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('answers get_aligned_observations with as_of=row (the point-in-time panel) as the REST endpoint does', async () => {
    const client = await httpClient(observationsKey);
    const args = {
      series: `${PAYROLLS},ecb.USD`,
      frequency: 'm',
      as_of: 'row',
      from: '2025-06',
      to: '2025-09',
    };
    const result = await callTool(client, 'get_aligned_observations', args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const expected = await rest(`/api/v1/observations/aligned?${new URLSearchParams(args)}`, observationsKey);
    expect(expected.status).toBe(200);
    expect(comparable(result.structuredContent as Body)).toEqual(comparable(expected.body));
    const rows = (result.structuredContent as { data: Array<{ period: string; as_of: string }> }).data;
    expect(rows.map((row) => [row.period, row.as_of])).toEqual([
      ['2025-06', '2025-06-30T23:59:59Z'],
      ['2025-07', '2025-07-31T23:59:59Z'],
      ['2025-08', '2025-08-31T23:59:59Z'],
      ['2025-09', '2025-09-30T23:59:59Z'],
    ]);
    expect((result.content as { text: string }[])[0]!.text).toContain('each row as known at its own as_of');
  });

  it("counts POST /mcp against the caller's rate limit and refuses a bad key, a foreign Origin and GET", async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(list),
      });
    const ok = await post({});
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    expect(Number(ok.headers.get('x-ratelimit-limit'))).toBe(10_000);
    const remaining = Number(ok.headers.get('x-ratelimit-remaining'));
    expect(Number((await post({})).headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    const badKey = await post({ Authorization: 'Bearer abc' });
    expect(badKey.status).toBe(401);
    expect(((await badKey.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const foreign = await post({ Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const get = await fetch(`${server.url}/mcp`);
    expect(get.status).toBe(405);
    const notJson = await fetch(`${server.url}/mcp`, { method: 'POST', body: '{"jsonrpc":' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const huge = await fetch(`${server.url}/mcp`, { method: 'POST', body: ' '.repeat(70_000) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    // A key's own limit: past it the REST 429, before any MCP message is read.
    const slow = await issue('observations:read', ['--rate-limit', '2']);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post({ Authorization: `Bearer ${slow}` })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('serves the tools over stdio (mmds mcp) with MMDS_API_KEY, within the response budget', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO_ROOT, 'bin/mmds.js'), 'mcp', '--budget', '2000'],
      env: { PATH: process.env.PATH ?? '', ...fixture.env, MMDS_API_KEY: observationsKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(MCP_TOOLS.length);
    const small = await callTool(client, 'get_observations', { series: PAYROLLS, as_of: AS_OF, limit: 5 });
    const expected = await rest(
      `/api/v1/observations?series=${PAYROLLS}&as_of=${AS_OF}&limit=5`,
      observationsKey,
    );
    expect(comparable(small.structuredContent as Body)).toEqual(comparable(expected.body));
    // The whole history is far over 2000 tokens: a summary and how to page, never a cut JSON.
    const large = await callTool(client, 'get_observations', { series: PAYROLLS });
    expect(large.isError).toBeFalsy();
    const text = (large.content as { text: string }[]).map((part) => part.text).join('');
    // Everything the result sends counts: the text items and structuredContent.
    expect(resultTokens(large)).toBeLessThanOrEqual(2000);
    expect(resultTokens(small)).toBeLessThanOrEqual(2000);
    const structured = large.structuredContent as {
      data: unknown;
      summary: { rows: number; how_to_page: string; download: string };
    };
    expect(structured.data).toBeNull();
    expect(structured.summary.rows).toBeGreaterThan(5);
    expect(structured.summary.how_to_page).toMatch(/limit=\d+.*cursor/);
    // No public URL given to mmds mcp: the download is a path, said in words, and no link.
    expect(structured.summary.download).toBe(`/api/v1/observations?series=${PAYROLLS}&format=csv`);
    expect(text).toContain('no public URL is configured');
    expect(large.content.some((part) => part.type === 'resource_link')).toBe(false);
    JSON.parse((large.content as { text: string }[])[1]!.text);
    // A page whose body alone fits but whose body sent twice (text and structuredContent) does not.
    let limit = 1;
    let body: Body | null = null;
    for (; limit < 200; limit++) {
      const page = await rest(`/api/v1/observations?series=${PAYROLLS}&limit=${limit}`, observationsKey);
      const tokens = countTokens(JSON.stringify(page.body));
      if (tokens > 1100 && tokens < 1800) {
        body = page.body;
        break;
      }
    }
    expect(body, 'a page of 1100 to 1800 tokens').not.toBeNull();
    const twice = await callTool(client, 'get_observations', { series: PAYROLLS, limit });
    expect((twice.structuredContent as { data: unknown }).data).toBeNull();
    expect(resultTokens(twice)).toBeLessThanOrEqual(2000);
    // get_cot_reports does not page: over the budget, a tool error saying how to narrow it.
    const reports = await callTool(client, 'get_cot_reports', {});
    expect(reports.isError).toBe(true);
    const refusal = JSON.parse((reports.content as { text: string }[])[0]!.text) as {
      error: { code: string; message: string };
      rows: number;
      answer_tokens: number;
    };
    expect(refusal.error.code).toBe(OVER_BUDGET);
    expect(refusal.error.message).toMatch(/report_type.*get_cot_market/);
    expect(refusal.rows).toBe(((await rest('/api/v1/markets/cot/reports')).body.data as unknown[]).length);
    expect(refusal.answer_tokens).toBeGreaterThan(2000);
    expect(resultTokens(reports)).toBeLessThanOrEqual(2000);
  });

  it('links the CSV over stdio on the origin of --public-url, and refuses a --public-url that is no origin', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(REPO_ROOT, 'bin/mmds.js'),
        'mcp',
        '--budget',
        '2000',
        '--public-url',
        'https://data.example.org',
      ],
      env: { PATH: process.env.PATH ?? '', ...fixture.env, MMDS_API_KEY: observationsKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const large = await callTool(client, 'get_observations', { series: PAYROLLS, as_of: AS_OF });
    expect(large.content.find((part) => part.type === 'resource_link')).toMatchObject({
      uri: `https://data.example.org/api/v1/observations?series=${PAYROLLS}&as_of=${encodeURIComponent(AS_OF)}&format=csv`,
    });
    for (const bad of ['ftp://data.example.org', 'https://data.example.org/api', 'not a url']) {
      const run = await runMmds(['mcp', '--public-url', bad], fixture.env);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toContain('--public-url');
    }
  });

  it('is listed and called by the MCP Inspector CLI over HTTP, with a key in a header', async () => {
    const inspect = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, [
        INSPECTOR,
        '--cli',
        `${server.url}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${observationsKey}`,
        ...args,
      ]);
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const listed = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
    const called = (await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'get_observations',
      '--tool-arg',
      `series=${PAYROLLS}`,
      'from=2025-07',
      'to=2025-07',
      `as_of=${AS_OF}`,
    )) as { structuredContent: Body };
    const expected = await rest(
      `/api/v1/observations?series=${PAYROLLS}&from=2025-07&to=2025-07&as_of=${AS_OF}`,
      observationsKey,
    );
    expect(comparable(called.structuredContent)).toEqual(comparable(expected.body));
  });

  it('links an over-budget answer to the CSV of the same data, on the origin the client called', async () => {
    const client = await httpClient(observationsKey);
    const large = await callTool(client, 'get_observations', { series: PAYROLLS, limit: 1000 });
    expect(large.isError).toBeFalsy();
    expect((large.structuredContent as { data: unknown }).data).toBeNull();
    const link = large.content.find((part) => part.type === 'resource_link');
    const csvUrl = `${server.url}/api/v1/observations?series=${PAYROLLS}&format=csv`;
    expect(link).toMatchObject({ uri: csvUrl, mimeType: 'text/csv' });
    expect((large.structuredContent as { summary: { download: string } }).summary.download).toBe(csvUrl);
    const csv = await fetch(csvUrl, { headers: { Authorization: `Bearer ${observationsKey}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await csv.text()).split('\n').length).toBeGreaterThan(2);
    // A route without a CSV links the bulk files instead.
    expect(
      downloadPath(MCP_TOOLS.find((tool) => tool.name === 'list_series')!.route, null, new URLSearchParams()),
    ).toBe('/api/v1/bulk');
  });

  it('serves every series and market as a resource: listed by pages, read as the REST endpoint', async () => {
    const client = await httpClient();
    const listed: { uri: string }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(RESOURCE_PAGE_SIZE);
      listed.push(...page.resources);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    const uris = listed.map((resource) => resource.uri);
    const series = (await rest('/api/v1/series')).body.data as { slug: string; history_url: string | null }[];
    const markets = (await rest('/api/v1/markets/cot')).body.data as { slug: string }[];
    const expected = [
      ...series.filter((row) => row.history_url !== null).map((row) => `mmds://series/${row.slug}`),
      ...markets.map((row) => `mmds://markets/${row.slug}`),
    ];
    expect(uris).toEqual(expected);
    // The sample has more than one page, so the cursor is exercised.
    expect(expected.length).toBeGreaterThan(RESOURCE_PAGE_SIZE);
    expect(pages).toBe(Math.ceil(expected.length / RESOURCE_PAGE_SIZE));
    const read = async (c: Client, uri: string) =>
      JSON.parse(((await c.readResource({ uri })).contents[0] as { text: string }).text) as Body;
    // Each series: the REST body when it fits the budget, else the summary of the same rows.
    let whole = 0;
    let summarised = 0;
    for (const row of series.filter((candidate) => candidate.history_url !== null)) {
      const expectedBody = (await rest(`/api/v1/series/${row.slug}`)).body;
      const text = (
        (await client.readResource({ uri: `mmds://series/${row.slug}` })).contents[0] as {
          text: string;
        }
      ).text;
      expect(countTokens(text)).toBeLessThanOrEqual(DEFAULT_TOKEN_BUDGET);
      const body = JSON.parse(text) as Body & { summary?: { rows: number } };
      if (body.data === null) {
        expect(body.summary?.rows).toBe((expectedBody.data as unknown[]).length);
        summarised++;
      } else {
        expect(comparable(body)).toEqual(comparable(expectedBody));
        whole++;
      }
    }
    expect(whole).toBeGreaterThan(0);
    expect(summarised).toBeGreaterThan(0);
    // A market: the public window anonymously, the full history for a key holding cot:history.
    expect(comparable(await read(client, 'mmds://markets/gold'))).toEqual(
      comparable((await rest('/api/v1/markets/cot/gold')).body),
    );
    const historyKey = await issue('cot:history');
    expect(comparable(await read(await httpClient(historyKey), 'mmds://markets/gold'))).toEqual(
      comparable((await rest('/api/v1/markets/cot/gold', historyKey)).body),
    );
    // Unknown resources are -32002 (MCP), with the REST refusal; a foreign cursor is -32602.
    await expect(client.readResource({ uri: 'mmds://series/no-such-series' })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(client.readResource({ uri: 'https://example.com/' })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(client.listResources({ cursor: 'not-ours' })).rejects.toMatchObject({ code: -32602 });
    // Stateless HTTP keeps no session to push on: subscriptions are not advertised, and asking is
    // method not found with where push is offered (docs/mcp.md); stdio offers them (last test).
    expect(client.getServerCapabilities()?.resources).toEqual({});
    await expect(client.subscribeResource({ uri: 'mmds://series/eur-usd' })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('/api/v1/events'),
    });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'mmds://series/{slug}',
      'mmds://markets/{slug}',
    ]);
  });

  it("offers the analysts' prompts with their arguments", async () => {
    const client = await httpClient();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      'latest_release_changes',
      'known_at',
      'cot_positioning',
    ]);
    expect(prompts.find((prompt) => prompt.name === 'known_at')!.arguments).toEqual([
      expect.objectContaining({ name: 'series', required: false }),
      expect.objectContaining({ name: 'as_of', required: true }),
    ]);
    const known = await client.getPrompt({ name: 'known_at', arguments: { as_of: AS_OF } });
    const text = (known.messages[0]!.content as { text: string }).text;
    expect(text).toContain(`series=${PAYROLLS} and as_of=${AS_OF}`);
    const release = await client.getPrompt({
      name: 'latest_release_changes',
      arguments: { series: 'bls.X' },
    });
    expect((release.messages[0]!.content as { text: string }).text).toContain(
      'get_releases with series=bls.X',
    );
    await expect(client.getPrompt({ name: 'known_at', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('passes the MCP conformance suite, but for the fixture scenarios of its baseline', async () => {
    const output = createTempDir('mmds-conformance-');
    // Exit 1 on a failure not in the baseline, and on a baseline entry that now passes.
    const run = await promisify(execFile)(
      process.execPath,
      [
        CONFORMANCE,
        'server',
        '--url',
        `${server.url}/mcp`,
        '--expected-failures',
        CONFORMANCE_BASELINE,
        '--output-dir',
        output.dir,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    // The failed checks with their reasons, from the suite's result files, for the message.
    const failed = readdirSync(output.dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('checks.json'))
      .flatMap((file) => JSON.parse(readFileSync(join(output.dir, file), 'utf8')) as ConformanceCheck[])
      .filter((check) => check.status !== 'SUCCESS')
      .map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? JSON.stringify(check.details)}`);
    output.remove();
    const summary = run.stdout.slice(run.stdout.indexOf('=== SUMMARY ==='));
    expect('code' in run ? run.code : 0, `${summary}\n${failed.join('\n')}\n${run.stderr}`).toBe(0);
    expect(summary).toMatch(/Total: \d+ passed/);
  });
  // Last: it publishes into the data directory the server above serves.
  it("notifies stdio subscribers after a publish: per subscribed URI, within the key's rights", async () => {
    /** An mmds mcp session with a key, recording resource updates and its log lines. */
    const session = async (key: string) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(REPO_ROOT, 'bin/mmds.js'), 'mcp'],
        env: { PATH: process.env.PATH ?? '', ...fixture.env, MMDS_API_KEY: key },
        stderr: 'pipe',
      });
      let log = '';
      transport.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8');
      });
      const client = new Client({ name: 'mmds-test', version: '1.0.0' });
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updated.push(notification.params.uri);
      });
      await client.connect(transport);
      clients.push(client);
      /**
       * Resolves once the session has read the log of a snapshot (its mcp_resources_updated line
       * on stderr, written after its notifications), and a ping over stdout has come back: the
       * notifications, sent before the pong on the same stream, have been received by then.
       */
      const handled = async (snapshot: string) => {
        const line = `"event":"mcp_resources_updated","snapshot":"${snapshot}"`;
        for (let waited = 0; !log.includes(line); waited += 50) {
          if (waited > 30_000) throw new Error(`no update for ${snapshot} in: ${log}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await client.ping();
      };
      return { client, updated, handled };
    };
    const keyed = await session(observationsKey);
    const unscoped = await session(bulkOnlyKey);
    const historian = await session(await issue('observations:read,cot:history'));
    expect(keyed.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const [usd, jpy, gbp, licensed] = ['eur-usd', 'eur-jpy', 'eur-gbp', 'testvendor-payems'].map(
      (slug) => `mmds://series/${slug}`,
    );
    const euroFx = 'mmds://markets/euro-fx';
    for (const uri of [usd!, gbp!, licensed!, euroFx]) await keyed.client.subscribeResource({ uri });
    await keyed.client.unsubscribeResource({ uri: gbp! });
    for (const uri of [jpy!, licensed!]) await unscoped.client.subscribeResource({ uri });
    for (const uri of [euroFx, usd!]) await historian.client.subscribeResource({ uri });
    // Not a resource of ours: invalid params (-32602), as the MCP specification says.
    for (const uri of [
      'mmds://series/no-such-series',
      'mmds://markets/no-such-market',
      'https://example.com/',
    ])
      await expect(keyed.client.subscribeResource({ uri })).rejects.toMatchObject({ code: -32602 });

    // A publish: the ECB's whole history (new days before the sample's for every currency), a
    // later vintage of the licensed series (new and revised periods: events only a key may see)
    // and the TFF reports of 2010 (euro FX reports far older than the public window: cot:history).
    const later = () => new Date('2026-11-24T12:00:00Z');
    for (const argv of [
      ['ingest', 'ecb', join(SHARED_DATA, 'ecb/eurofxref-hist.csv')],
      ['ingest', 'cftc', join(SHARED_DATA, 'cftc/history/tff_fut_2010__COT_2010.txt')],
      [
        'ingest',
        'fred',
        join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv'),
        '--series',
        'testvendor.PAYEMS',
        '--vintage',
        '2026-10-02',
      ],
      ['publish', '--json'],
    ]) {
      const run = await runMmds(argv, fixture.env, later);
      expect(run.code, run.stderr).toBe(0);
    }
    const layout = resolveLayout(fixture.dataDir);
    const snapshot = readCurrentId(layout)!;
    // The log holds events of all four series: what is not notified is left out by the rules.
    const { events } = await readAllAfter(openEventLog(layout), `${snapshot}:0`);
    const about = (series: string) => events.filter((event) => event.series === series);
    for (const series of ['ecb.USD', 'ecb.JPY', 'ecb.GBP', 'testvendor.PAYEMS'])
      expect(
        about(series).length,
        `${series}: ${JSON.stringify(events.map((e) => e.series))}`,
      ).toBeGreaterThan(0);
    expect(about('testvendor.PAYEMS').map((event) => [event.type, event.public])).toEqual([
      ['series.released', false],
      ['series.revised', false],
    ]);
    expect(about('cftc.099741.tff').map((event) => [event.type, event.public, event.scopes])).toEqual([
      ['series.released', false, ['observations:read', 'cot:history']],
    ]);

    await keyed.handled(snapshot);
    await unscoped.handled(snapshot);
    await historian.handled(snapshot);
    // One notification per subscribed URI (the licensed series was both released and revised).
    expect(keyed.updated.sort()).toEqual([usd, licensed].sort());
    // A key without observations:read is not told of the licensed series' events, nor one
    // without cot:history of old COT reports; a key with it is told of the market's.
    expect(unscoped.updated).toEqual([jpy]);
    expect(historian.updated.sort()).toEqual([euroFx, usd].sort());
  }, 180_000);
});

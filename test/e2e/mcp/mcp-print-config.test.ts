import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../../src/mcp/tools.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const run = promisify(execFile);
// The server checks key expiry against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();

/** docs/mcp.md's example call: the json block after "Example call". */
const DOC = readFileSync(join(REPO_ROOT, 'docs/mcp.md'), 'utf8');
const EXAMPLE = JSON.parse(
  /Example call \(`tools\/call`\):\n\n```json\n([\s\S]*?)```/.exec(DOC)?.[1] ?? 'null',
) as {
  name: string;
  arguments: Record<string, unknown>;
} | null;

/** What docs/mcp.md says the example answers on the sample: rows, first and last period, release day. */
const CLAIM =
  /it answers (\d+) rows: nonfarm payrolls for (\S+) to (\S+) as known on \S+, each from the release of (\d{4}-\d\d-\d\d)/.exec(
    DOC.replace(/\s+/g, ' '),
  );

type Launch = { type?: string; command: string; args: string[]; env: Record<string, string> };

describe('mmds mcp --print-config: a configuration that starts the server from anywhere', () => {
  let fixture: SharedSampleFixture;
  let key: string;
  const elsewhere = createTempDir('mmds-mcp-elsewhere-');
  const clients: Client[] = [];

  /** Runs the real command, as a user would in the checkout, with MMDS_DATA_DIR relative. */
  const printConfig = async (args: string[], env: Record<string, string> = {}) => {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPO_ROOT, 'bin/mmds.js'), 'mcp', '--print-config', ...args],
      { cwd: dirname(fixture.dataDir), env: { PATH: process.env.PATH ?? '', MMDS_DATA_DIR: 'data', ...env } },
    );
    return { config: JSON.parse(stdout) as Record<string, unknown>, stderr };
  };

  /** Starts exactly the printed command from another directory, as a desktop client does. */
  const start = async (launch: Launch, env: Record<string, string> = launch.env) => {
    const transport = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      // A desktop app's PATH, not the project's: nothing may depend on node_modules/.bin.
      env: { ...env, PATH: '/usr/bin:/bin' },
      cwd: elsewhere.dir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mmds-print-config-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  const expectAbsolute = (launch: Launch) => {
    expect(isAbsolute(launch.command)).toBe(true);
    expect(realpathSync(launch.command)).toBe(realpathSync(process.execPath));
    expect(launch.args.slice(0, 2)).toEqual([join(REPO_ROOT, 'bin/mmds.js'), 'mcp']);
    expect(launch.env.MMDS_DATA_DIR).toBe(fixture.dataDir);
  };

  beforeAll(async () => {
    fixture = await useSharedSample();
    const issued = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Print config', '--scopes', 'observations:read'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(issued.code, issued.stderr).toBe(0);
    key = (JSON.parse(issued.stdout) as { key: string }).key;
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    fixture?.remove();
    elsewhere.remove();
  });

  it('claude (the default), with the key set: mcpServers, absolute paths, the key; initialize, tools/list and the docs example', async () => {
    const { config, stderr } = await printConfig([], { MMDS_API_KEY: key });
    expect(Object.keys(config)).toEqual(['mcpServers']);
    const launch = (config.mcpServers as Record<string, Launch>).mmds!;
    expect(Object.keys(launch).sort()).toEqual(['args', 'command', 'env']);
    expectAbsolute(launch);
    expect(launch.args).toHaveLength(2);
    expect(launch.env).toEqual({ MMDS_DATA_DIR: fixture.dataDir, MMDS_API_KEY: key });
    expect(stderr).toContain('claude_desktop_config.json');
    expect(stderr).toContain('plaintext of MMDS_API_KEY');

    const client = await start(launch);
    expect(client.getServerVersion()?.name).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());

    // The example of docs/mcp.md answers rows on the sample, none observed after its as_of.
    expect(EXAMPLE, 'the json block after "Example call (`tools/call`):"').not.toBeNull();
    const answer = (await client.callTool(EXAMPLE!)) as CallToolResult;
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const body = answer.structuredContent as {
      data: { period: string; observed_at: string }[];
      meta: { as_of: string };
    };
    const asOf = EXAMPLE!.arguments.as_of as string;
    expect(body.meta.as_of).toBe(asOf);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.length).toBeLessThanOrEqual(EXAMPLE!.arguments.limit as number);
    for (const row of body.data) {
      expect(Date.parse(row.observed_at)).toBeLessThanOrEqual(Date.parse(asOf));
      expect(row.period >= (EXAMPLE!.arguments.from as string)).toBe(true);
    }
    // And what the docs say it answers.
    expect(CLAIM, 'the sentence "it answers N rows: nonfarm payrolls for A to B …"').not.toBeNull();
    const [, rows, first, last, released] = CLAIM!;
    expect({
      rows: body.data.length,
      first: body.data[0]!.period,
      last: body.data.at(-1)!.period,
      released: [...new Set(body.data.map((row) => row.observed_at.slice(0, 10)))],
    }).toEqual({ rows: Number(rows), first, last, released: [released] });
  });

  it('cursor without a key: mcpServers with MMDS_API_KEY empty; public tools answer, keyed ones refuse', async () => {
    const { config, stderr } = await printConfig(['--client', 'cursor', '--budget', '4000']);
    const launch = (config.mcpServers as Record<string, Launch>).mmds!;
    expectAbsolute(launch);
    expect(launch.args.slice(2)).toEqual(['--budget', '4000']);
    expect(launch.env).toEqual({ MMDS_DATA_DIR: fixture.dataDir, MMDS_API_KEY: '' });
    expect(stderr).toContain('.cursor/mcp.json');
    expect(stderr).toContain('MMDS_API_KEY is not set');

    const client = await start(launch);
    expect((await client.listTools()).tools).toHaveLength(MCP_TOOLS.length);
    const status = (await client.callTool({ name: 'get_status', arguments: {} })) as CallToolResult;
    expect(status.isError).toBeFalsy();
    expect((status.structuredContent as { meta: { snapshot: string } }).meta.snapshot).toBe(
      fixture.snapshotId,
    );
    const keyed = (await client.callTool({
      name: 'get_observations',
      arguments: { series: 'bls.CES0000000001', limit: 1 },
    })) as CallToolResult;
    expect(keyed.isError).toBe(true);
    expect(JSON.stringify(keyed.content)).toContain('unauthorized');
  });

  it('vscode: servers with type stdio and the key as a password input, filled in as VS Code does', async () => {
    const { config, stderr } = await printConfig(['--client', 'vscode']);
    expect(Object.keys(config).sort()).toEqual(['inputs', 'servers']);
    const launch = (config.servers as Record<string, Launch>).mmds!;
    expect(launch.type).toBe('stdio');
    expectAbsolute(launch);
    expect(launch.env.MMDS_API_KEY).toBe(`\${input:mmds-api-key}`);
    expect(config.inputs).toEqual([
      expect.objectContaining({ id: 'mmds-api-key', type: 'promptString', password: true }),
    ]);
    expect(stderr).toContain('.vscode/mcp.json');

    // VS Code replaces ${input:…} with what the user typed before it starts the server.
    const client = await start(launch, { ...launch.env, MMDS_API_KEY: key });
    expect((await client.listTools()).tools).toHaveLength(MCP_TOOLS.length);
    const keyed = (await client.callTool({
      name: 'get_observations',
      arguments: { series: 'bls.CES0000000001', limit: 1 },
    })) as CallToolResult;
    expect(keyed.isError, JSON.stringify(keyed.content)).toBeFalsy();
  });

  it('refuses an unknown client, --client alone and a key the server would refuse, in one line', async () => {
    const unknown = await runMmds(['mcp', '--print-config', '--client', 'emacs'], fixture.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('mmds: --client must be one of claude, cursor, vscode, got "emacs"\n');
    const alone = await runMmds(['mcp', '--client', 'vscode'], fixture.env);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--client goes with --print-config');
    const bad = await runMmds(['mcp', '--print-config'], { ...fixture.env, MMDS_API_KEY: 'mmds_not_a_key' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^mmds: MMDS_API_KEY: /);
    expect(basename(fixture.dataDir)).toBe('data');
  });
});

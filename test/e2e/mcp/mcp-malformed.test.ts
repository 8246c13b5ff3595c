import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../../../src/mcp/stdio-transport.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

/**
 * What a client that sends something wrong gets back, over POST /mcp and over `mmds mcp` (stdio):
 * JSON-RPC errors it can read (-32700, -32600, -32602 with one sentence, no validator dump), the
 * contract's 415 for a compressed body, and a stdio session that goes on after each.
 */

type RpcAnswer = { id: unknown; result?: unknown; error?: { code: number; message: string } };

/** Two tools/call requests whose params the SDK's schema refuses, and what the message names. */
const INVALID_CALLS: readonly [params: unknown, names: RegExp][] = [
  [{ name: 'get_status', arguments: ['a'] }, /params\.arguments must be an object, not an array/],
  [{ name: 5, arguments: {} }, /params\.name must be a string, not a number/],
];

/** Expects a -32602 whose message is one short sentence, not a validator's dump. */
function expectInvalidParams(answer: RpcAnswer, id: number, names: RegExp): void {
  expect(answer.id).toBe(id);
  expect(answer.error?.code, JSON.stringify(answer)).toBe(-32602);
  expect(answer.error!.message).toMatch(names);
  expect(answer.error!.message).not.toMatch(/\n|"code"|expected":/);
  expect(answer.error!.message.length).toBeLessThan(200);
}

/** A running `mmds mcp`: lines in, answers out one at a time, stderr kept. */
function startStdio(env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin/mmds.js'), 'mcp'],
    { env: { PATH: process.env.PATH ?? '', ...env } },
  );
  const answers: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else answers.push(line);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = (): Promise<RpcAnswer> => {
    const ready = answers.shift();
    if (ready !== undefined) return Promise.resolve(JSON.parse(ready) as RpcAnswer);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from mmds mcp; stderr: ${stderr}`)), 90_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(JSON.parse(line) as RpcAnswer);
      });
    });
  };
  const write = (text: string | Buffer) => child.stdin.write(text);
  const request = (id: number, method: string, params: unknown = {}) =>
    write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  return { child, next, write, request, exited, stderr: () => stderr };
}

describe('MCP requests a client got wrong', () => {
  let fixture: SharedSampleFixture;
  let server: TestServer;

  const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });
  const call = (id: number, params: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });

  beforeAll(async () => {
    fixture = await useSharedSample({ licensed: true });
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.distDir,
      anonymousLimit: 10_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('answers invalid tools/call params with -32602 and a short message over POST /mcp', async () => {
    for (const [index, [params, names]] of INVALID_CALLS.entries()) {
      const response = await post(call(index + 1, params));
      expect(response.status).toBe(200);
      expectInvalidParams((await response.json()) as RpcAnswer, index + 1, names);
    }
    const valid = (await (await post(call(9, { name: 'get_status', arguments: {} }))).json()) as RpcAnswer;
    expect(valid.error).toBeUndefined();
    expect(valid.result).toBeDefined();
  });

  it("refuses a compressed POST /mcp body with the contract's 415, and takes identity", async () => {
    const body = Buffer.from(call(1, { name: 'get_status', arguments: {} }));
    for (const [encoding, encoded] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
      ['gzip, identity', gzipSync(body)],
      ['x-unknown', body],
    ] as const) {
      const response = await post(encoded, { 'Content-Encoding': encoding });
      expect(response.status, encoding).toBe(415);
      expect(response.headers.get('accept-encoding')).toBe('identity');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { error } = (await response.json()) as { error: { code: string; request_id: string } };
      expect(error.code).toBe('unsupported_media_type');
      expect(error.request_id).toBe(response.headers.get('x-request-id'));
    }
    const identity = await post(body, { 'Content-Encoding': 'identity' });
    expect(identity.status).toBe(200);
    expect(((await identity.json()) as RpcAnswer).result).toBeDefined();
  });

  it('answers garbage, non-MCP JSON and invalid params over stdio, and goes on', async () => {
    const mcp = startStdio(fixture.env);
    try {
      mcp.request(1, 'ping');
      expect((await mcp.next()).result).toEqual({});
      mcp.write('this is not json\n');
      expect(await mcp.next()).toMatchObject({ id: null, error: { code: -32700 } });
      mcp.write('{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}\r\n');
      expect(await mcp.next()).toMatchObject({ id: 7, error: { code: -32600 } });
      mcp.write('[1,2]\n\n');
      expect(await mcp.next()).toMatchObject({ id: null, error: { code: -32600 } });
      for (const [index, [params, names]] of INVALID_CALLS.entries()) {
        mcp.write(`${call(index + 10, params)}\n`);
        expectInvalidParams(await mcp.next(), index + 10, names);
      }
      mcp.request(2, 'ping');
      expect(await mcp.next()).toMatchObject({ id: 2, result: {} });
      expect(mcp.stderr()).toContain('"reason":"not_json"');
      mcp.child.stdin.end();
      expect(await mcp.exited).toBe(0);
    } finally {
      mcp.child.kill();
    }
  });

  it('answers a stdio line over 10 MiB with -32600 once the limit is passed, skips it, and goes on', async () => {
    const mcp = startStdio(fixture.env);
    try {
      mcp.request(1, 'ping');
      expect((await mcp.next()).result).toEqual({});
      // The refusal comes before the line ends: a client waiting on it is not left hanging.
      mcp.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE_BYTES)}`);
      const refusal = await mcp.next();
      expect(refusal).toMatchObject({ id: null, error: { code: -32600 } });
      expect(refusal.error!.message).toContain(String(MAX_LINE_BYTES));
      mcp.write(`${'y'.repeat(1_000_000)}"}}\n`);
      mcp.request(3, 'ping');
      expect(await mcp.next()).toMatchObject({ id: 3, result: {} });
      expect(mcp.stderr()).toContain('"reason":"too_long"');
      mcp.child.stdin.end();
      expect(await mcp.exited).toBe(0);
    } finally {
      mcp.child.kill();
    }
  });
});

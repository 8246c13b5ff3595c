import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_REQUIRED, NOT_FOUND } from '../../../src/build/static-errors.ts';
import { ApiError, unavailable } from '../../../src/contract/errors.ts';
import { rawHttpAnswer, renderError, renderRpcError } from '../../../src/contract/render-error.ts';
import { ERROR_RULES, MmdsError } from '../../../src/lib/errors.ts';
import { renderRateLimitedPage } from '../../../src/site/rate-limited-page.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Every form of an error comes from the one renderer (src/contract/render-error.ts, issue 33): a
 * real server on an empty data directory (every API request is the 503 of "no snapshot yet")
 * answers each form, and its bytes are what the renderer gives for the same error and request id.
 */

/** The Accept header of a browser navigating to a page (Chromium's). */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const NO_SNAPSHOT = unavailable('no snapshot has been published yet', 30);

describe('the forms of an error, from one renderer', () => {
  let dataDir: ReturnType<typeof createTempDir>;
  let server: TestServer;
  /** The same, with a budget of 3 requests a minute. */
  let limited: TestServer;

  beforeAll(async () => {
    dataDir = createTempDir('mmds-error-forms-');
    server = await startTestServer({ dataDir: dataDir.dir });
    limited = await startTestServer({ dataDir: dataDir.dir, anonymousLimit: 3 });
  });

  afterAll(async () => {
    await server?.close();
    await limited?.close();
    dataDir?.remove();
  });

  const text = async (response: Response) => Buffer.from(await response.arrayBuffer()).toString('utf8');

  it('answers the JSON envelope, and its rate limit as the HTML page for a browser on a page', async () => {
    // 1: the envelope of the 503, the renderer's bytes with the request's id and the error's fields.
    const refused = await fetch(`${limited.url}/api/v1/markets/cot`);
    const requestId = refused.headers.get('x-request-id')!;
    const envelope = renderError(NO_SNAPSHOT, { kind: 'envelope', requestId });
    expect(await text(refused)).toBe(envelope.body.toString('utf8'));
    expect(refused.status).toBe(envelope.status);
    for (const [name, value] of envelope.headers) expect(refused.headers.get(name), name).toBe(value);
    // 2, 3: the rest of the budget of 3, on the live status page and the API.
    await (await fetch(`${limited.url}/status/`, { headers: { Accept: BROWSER } })).arrayBuffer();
    await (await fetch(`${limited.url}/api/v1/markets/cot`)).arrayBuffer();

    const page = await fetch(`${limited.url}/status/`, { headers: { Accept: BROWSER } });
    const retryAfter = page.headers.get('retry-after')!;
    const spent = new ApiError('rate_limited', 'spent', { headers: { 'Retry-After': retryAfter } });
    const pageId = page.headers.get('x-request-id')!;
    const html = renderError(spent, {
      kind: 'html',
      page: () =>
        renderRateLimitedPage({
          path: '/status/',
          limit: 3,
          retryAfter: Number(retryAfter),
          requestId: pageId,
        }),
    });
    expect(page.status).toBe(429);
    expect(await text(page)).toBe(html.body.toString('utf8'));
    for (const [name, value] of html.headers) expect(page.headers.get(name), name).toBe(value);

    // The same refusal under /api/ is the envelope, with the message of the limit.
    const api = await fetch(`${limited.url}/api/v1/markets/cot`, { headers: { Accept: BROWSER } });
    const apiRetry = api.headers.get('retry-after')!;
    const apiEnvelope = renderError(
      new ApiError('rate_limited', `rate limit of 3 requests per minute exceeded; retry in ${apiRetry} s`, {
        headers: { 'Retry-After': apiRetry },
      }),
      { kind: 'envelope', requestId: api.headers.get('x-request-id')! },
    );
    expect([api.status, await text(api)]).toEqual([429, apiEnvelope.body.toString('utf8')]);
  });

  it("answers what Node's parser refuses on the raw socket", async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
      socket.write('GET /api/v1/\u0000 HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    const requestId = /\r\nX-Request-Id: (\S+)\r\n/.exec(received)?.[1];
    expect(requestId).toBeDefined();
    const error = new ApiError(
      'invalid_parameter',
      'the request is not valid HTTP/1.1: the URL or a header holds bytes that are not allowed',
    );
    expect(received).toBe(rawHttpAnswer(renderError(error, { kind: 'raw-socket', requestId: requestId! })));
  });

  it("answers MCP's own refusals as JSON-RPC errors and a refused tool call as the envelope", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const notJson = await post('{');
    const parseError = renderRpcError(new MmdsError('rpc_parse_error', 'Parse error: the body is not JSON'));
    expect([notJson.status, await text(notJson)]).toEqual([
      ERROR_RULES.rpc_parse_error.status,
      parseError.body.toString('utf8'),
    ]);
    expect(notJson.headers.get('cache-control')).toBe('no-store');
    const foreign = await post('{}', { Origin: 'https://evil.example' });
    const forbidden = renderRpcError(new MmdsError('rpc_forbidden', 'the Origin header names another site'));
    expect([foreign.status, await text(foreign)]).toEqual([403, forbidden.body.toString('utf8')]);

    const call = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_series', arguments: {} },
      }),
    );
    const answer = (await call.json()) as { result: { isError: boolean; content: { text: string }[] } };
    const refusal = renderError(NO_SNAPSHOT, {
      kind: 'tool-result',
      requestId: call.headers.get('x-request-id')!,
    });
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]!.text).toBe(refusal.body.toString('utf8'));
    expect(JSON.parse(answer.result.content[0]!.text)).toMatchObject({
      status: 503,
      error: { code: 'unavailable' },
    });
  });

  it("writes the build's static bodies as the envelope with the request id `static`", () => {
    for (const [file, code, message] of [
      [NOT_FOUND, 'not_found', 'no such endpoint, market or series'],
      [
        KEY_REQUIRED,
        'unauthorized',
        'this endpoint needs an API key: send Authorization: Bearer <key> to the keyed API',
      ],
    ] as const) {
      const envelope = renderError(new ApiError(code, message), { kind: 'envelope', requestId: 'static' });
      expect([file.status, file.body]).toEqual([envelope.status, envelope.body.toString('utf8')]);
    }
  });
});

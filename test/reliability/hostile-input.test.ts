import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { assertHostileRequests, type HostileKeys } from './helpers/hostile-requests.ts';
import { rawGet, sendRaw } from './helpers/raw-http.ts';
import {
  createServedSample,
  issueTestKey,
  runKeysCommand,
  type ServedSample,
} from './helpers/served-sample.ts';

/**
 * Hostile HTTP input against the real server on the sample snapshot (public payloads rendered
 * live; the long suite repeats this with dist/ built and served from memory): generated requests
 * over every route and key kind (fetch), raw bytes fetch refuses to send (node:net), and the
 * 429 path. Nothing may produce a 5xx, an error outside the contract's envelope, or a body that
 * shows a stack, SQL or a path of the machine; the server must still answer afterwards.
 * The long suite (test/reliability-long) sends 10,000 more.
 */

const GENERATED_REQUESTS = 3_000;

/** Raw request targets fetch would refuse or normalise away. */
const RAW_TARGETS: ReadonlyArray<string | Buffer> = [
  '/api/v1/status\0',
  '/\0',
  '/api/v1/markets/cot/\0bitcoin',
  '/api/v1/fx/ecb?currency=\0USD',
  '/api/v1/fx/ecb?\0=1',
  '\\api\\v1\\status',
  '/api/v1\\..\\..\\etc\\passwd',
  '/..\\..\\..\\..\\etc\\passwd',
  '/api/v1/markets/cot/..\\..\\..\\..\\CURRENT',
  '/../../../../etc/passwd',
  '/api/v1/../../../data/CURRENT',
  '/api/v1/markets/cot/../../../../state/keys',
  '/api/v1/markets/cot/..',
  '/./././api/v1/status',
  '/api/v1/./status',
  '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/api/v1/markets/cot/%2e%2e%2f%2e%2e%2fCURRENT',
  '/api/v1/markets/cot/%252e%252e%252f',
  '/api/v1/markets/cot/..%c0%af..%c0%afetc',
  '/api/%',
  '/api/v1/markets/cot/%zz',
  Buffer.from([0x2f, 0xc0, 0xae, 0xc0, 0xae, 0x2f]),
  Buffer.from([0x2f, 0xff, 0xfe]),
  Buffer.from('/api/v1/markets/cot/caf\u00e9', 'utf8'),
  '/api/v1/status\x01',
  '/api/v1/status\x7f',
  '/api/v1/status\tx',
  'http://127.0.0.1/api/v1/status',
  'HTTP://evil.example/../../etc/passwd',
  '*',
  '',
];

/** Whole requests whose framing or headers are broken. */
const RAW_REQUESTS: readonly string[] = [
  'GET /api/v1/status HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status\r\nHost: x\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\nHost: x\nConnection: close\n\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Nul: a\0b\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nNo colon here\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Fold: a\r\n  folded\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
  'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nnot-hex\r\n\r\n',
  'POST /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
  'G\u00c9T /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'BREW /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'hello\r\n\r\n',
  // Empty lines before a request line are ignored (RFC 9112 2.2); the request is then answered.
  '\r\n\r\nGET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
];

describe('hostile HTTP input', () => {
  let sample: ServedSample;
  let server: TestServer;
  let keys: HostileKeys;

  beforeAll(async () => {
    sample = await createServedSample();
    const good = await issueTestKey(sample.env, {
      scopes: 'cot:history,macro:history,observations:read',
      rateLimit: 100_000,
    });
    const narrow = await issueTestKey(sample.env, { scopes: 'cot:history', rateLimit: 100_000 });
    const revoked = await issueTestKey(sample.env, { scopes: 'observations:read' });
    await runKeysCommand(sample.env, ['revoke', revoked.id]);
    const expired = await issueTestKey(sample.env, {
      scopes: 'observations:read',
      expires: '2020-06-01',
      now: () => new Date('2020-01-01T00:00:00Z'),
    });
    keys = {
      good: good.plaintext,
      narrow: narrow.plaintext,
      revoked: revoked.plaintext,
      expired: expired.plaintext,
    };
    // The anonymous limit is raised so that the limiter does not answer most requests.
    server = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.distDir,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  it(`answers ${GENERATED_REQUESTS} generated requests within the contract and stays up`, async () => {
    const stats = await assertHostileRequests(server.url, sample, keys, GENERATED_REQUESTS);
    expect(stats.requests).toBe(GENERATED_REQUESTS);
    // The mix reached what it is meant to reach: successes, each error class, keyed and anonymous.
    for (const status of ['200', '400', '401', '404', '405'])
      expect(stats.byStatus[status] ?? 0).toBeGreaterThan(0);
    for (const kind of ['none', 'good', 'narrow', 'forged', 'malformed'])
      expect(stats.byAuth[kind] ?? 0).toBeGreaterThan(0);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    const status = await fetch(`${server.url}/api/v1/status`);
    expect(status.status).toBe(200);
    console.info(`hostile input: ${JSON.stringify(stats)}`);
  });

  it('answers raw targets fetch cannot send (NUL, backslashes, raw traversal, raw bytes) in the envelope', async () => {
    for (const target of RAW_TARGETS) {
      const response = await sendRaw(server.port, rawGet(target));
      const shown = JSON.stringify(target.toString());
      expect(response.status, `${shown}: ${response.body}`).not.toBeNull();
      const exchange = { method: 'GET', target: target.toString(), ...response, status: response.status! };
      expect(findContractViolations(exchange), shown).toEqual([]);
      // Nothing outside the built files is ever served: a traversal is a 404 or a 400, never a file.
      if (/\.\.|%2e|%252e|passwd|CURRENT|state/i.test(target.toString()))
        expect([400, 404], shown).toContain(response.status);
    }
  });

  it('answers broken framing and headers with the envelope or closes the connection', async () => {
    for (const request of RAW_REQUESTS) {
      const response = await sendRaw(server.port, Buffer.from(request, 'latin1'));
      const shown = JSON.stringify(request.slice(0, 80));
      expect(response.ending, shown).not.toBe('timeout');
      if (response.status === null) continue;
      const exchange = {
        method: request.split(' ')[0]!,
        target: request,
        ...response,
        status: response.status,
      };
      expect(findContractViolations(exchange), shown).toEqual([]);
    }
  });

  it('answers random bytes in the request target and in a header value in the envelope', async () => {
    const noFraming = (byte: number) => byte !== 0x20 && byte !== 0x0d && byte !== 0x0a;
    const bytes = fc
      .uint8Array({ minLength: 1, maxLength: 80 })
      .map((array) => Buffer.from(array.filter(noFraming)));
    await fc.assert(
      fc.asyncProperty(bytes, bytes, async (target, headerValue) => {
        const path = Buffer.concat([Buffer.from('/'), target]);
        for (const request of [
          rawGet(path),
          rawGet('/api/v1/status', { 'X-Junk': headerValue.toString('latin1') }),
        ]) {
          const response = await sendRaw(server.port, request);
          expect(response.status, request.toString('latin1')).not.toBeNull();
          const exchange = {
            method: 'GET',
            target: path.toString('latin1'),
            ...response,
            status: response.status!,
          };
          expect(findContractViolations(exchange)).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
    expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
  });

  it('sends 429s in the envelope with Retry-After and a remaining count of 0, anonymous and keyed', async () => {
    const limited = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.distDir,
      anonymousLimit: 3,
    });
    try {
      const slow = await issueTestKey(sample.env, { scopes: 'observations:read', rateLimit: 2 });
      const anonymous = [
        '/api/v1/status',
        '/api/v1/fx/ecb',
        '/no/such/page',
        '/api/v1/observations?series=ecb.USD',
      ];
      const keyed = ['/api/v1/observations?series=ecb.USD', '/api/v1/fx/ecb?currency=USD'];
      const seen: number[] = [];
      for (const [paths, authorization] of [
        [anonymous, null],
        [keyed, `Bearer ${slow.plaintext}`],
      ] as const) {
        for (let i = 0; i < paths.length + 3; i++) {
          for (const method of ['GET', 'HEAD']) {
            const target = paths[i % paths.length]!;
            const response = await fetch(`${limited.url}${target}`, {
              method,
              headers: authorization ? { Authorization: authorization } : {},
            });
            const exchange = {
              method,
              target,
              status: response.status,
              headers: headerRecord(response.headers),
              body: await response.text(),
            };
            expect(findContractViolations(exchange), `${method} ${target}`).toEqual([]);
            // A page outside /api/ asked for without a key is not counted (docs/rate-limits.md).
            if (!target.startsWith('/api/') && !authorization) {
              expect([target, response.status, exchange.headers['x-ratelimit-limit']]).toEqual([
                target,
                404,
                undefined,
              ]);
              continue;
            }
            expect(Number(exchange.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
            seen.push(response.status);
            if (response.status !== 429) continue;
            expect(exchange.headers['x-ratelimit-remaining']).toBe('0');
            const retryAfter = Number(exchange.headers['retry-after']);
            expect(retryAfter).toBeGreaterThanOrEqual(1);
            expect(retryAfter).toBeLessThanOrEqual(60);
            if (method === 'GET') expect(JSON.parse(exchange.body).error.code).toBe('rate_limited');
          }
        }
      }
      expect(seen.filter((status) => status === 429).length).toBeGreaterThan(10);
    } finally {
      await limited.close();
    }
  });
});

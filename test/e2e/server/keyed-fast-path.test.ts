import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/contract/authorise.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';
import { compressBody, type Representation } from '../../../src/server/http-response.ts';
import { createKeyedFastPath, KeyedAnswers } from '../../../src/server/keyed-fast-path.ts';
import { ResponseCache } from '../../../src/server/response-cache.ts';
import {
  expectSameAnswer,
  listenAlone,
  PASSED_ON,
  passOn,
  type Reply,
  sendRaw,
} from '../../helpers/raw-http.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import type { SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * A keyed request the general path has answered in this snapshot is answered again by a node:http
 * listener in front of h3 (src/server/keyed-fast-path.ts), for any key with the same scopes. It
 * must answer exactly as the general path would: the general path still answers the same request
 * spelt another way (`%73eries` for `series`), so the two are compared over HTTP, header by header
 * and byte by byte, with the key checked and counted on every request.
 */

const REAL_CLOCK = () => new Date();

/** The same request with the first letter of its first parameter's name escaped: only h3 answers it. */
function otherSpelling(target: string): string {
  const query = target.indexOf('?');
  const name = target
    .charCodeAt(query + 1)
    .toString(16)
    .toUpperCase();
  return `${target.slice(0, query + 1)}%${name}${target.slice(query + 2)}`;
}

describe('the keyed fast path in front of h3', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;

  const issue = async (scopes: string, rateLimit = 100_000): Promise<{ key: string; id: string }> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Fast Org', '--scopes', scopes, '--rate-limit', String(rateLimit)],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { key: string; id: string };
  };
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  /** The log line of a response, without its request id and time. */
  const logLine = (reply: Reply) => {
    const line = server.logs.find((entry) => entry.request_id === reply.headers['x-request-id']);
    expect(line, `log line of ${reply.headers['x-request-id']}`).toBeDefined();
    const { request_id: _id, ms, ...rest } = line!;
    expect(typeof ms).toBe('number');
    return rest;
  };

  beforeAll(async () => {
    fixture = await useSharedSample({ licensed: true });
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: fixture.env.MMDS_DIST_DIR });
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('answers a repeated keyed request as the general path does, and logs the same line', async () => {
    const { key, id } = await issue('observations:read,macro:history,cot:history');
    const targets = [
      '/api/v1/observations?series=ecb.USD&as_of=2026-04-01T00:00:00Z',
      '/api/v1/observations?series=ecb.USD&as_of=2026-04-01T00:00:00Z&limit=5',
      '/api/v1/observations.csv?series=ecb.USD&limit=5',
      '/api/v1/markets/cot/gold?limit=3',
    ];
    for (const target of targets) {
      const first = await sendRaw(server.url, target, { headers: bearer(key) });
      expect(first.status, `${target}: ${first.body}`).toBe(200);
      const fast = await sendRaw(server.url, target, { headers: bearer(key) });
      const general = await sendRaw(server.url, otherSpelling(target), { headers: bearer(key) });
      expect(general.status, otherSpelling(target)).toBe(200);
      expectSameAnswer(fast, general, target);
      expectSameAnswer(first, fast, `${target}, first and repeated`);
      expect(fast.headers['cache-control']).toBe('private, no-store');
      expect(logLine(fast)).toEqual(logLine(general));
      expect(logLine(fast).key_id).toBe(id);
    }
    // A paginated answer keeps its Link header.
    const paged = await sendRaw(server.url, targets[1]!, { headers: bearer(key) });
    expect(paged.headers.link).toMatch(/rel="next"/);
  });

  it('answers HEAD, a matching If-None-Match and gzip or brotli as the general path does', async () => {
    const { key } = await issue('observations:read');
    const target = '/api/v1/observations?series=ecb.USD&as_of=2026-03-01T00:00:00Z';
    const etag = (await sendRaw(server.url, target, { headers: bearer(key) })).headers.etag!;
    const variants: Array<[string, { method?: string; headers?: Record<string, string> }]> = [
      ['HEAD', { method: 'HEAD' }],
      ['If-None-Match', { headers: { 'If-None-Match': etag } }],
      ['gzip', { headers: { 'Accept-Encoding': 'gzip' } }],
      ['br', { headers: { 'Accept-Encoding': 'gzip, br' } }],
      ['br again', { headers: { 'Accept-Encoding': 'br' } }],
      ['HEAD gzip', { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } }],
    ];
    const seen = new Set<number>();
    const encodings = new Set<string | undefined>();
    for (const [name, init] of variants) {
      const headers = { ...init.headers, ...bearer(key) };
      const fast = await sendRaw(server.url, target, { ...init, headers });
      const general = await sendRaw(server.url, otherSpelling(target), { ...init, headers });
      expectSameAnswer(fast, general, name);
      seen.add(fast.status);
      encodings.add(fast.headers['content-encoding']);
    }
    expect([...seen].sort()).toEqual([200, 304]);
    expect(encodings).toEqual(new Set([undefined, 'gzip', 'br']));
  });

  it('checks the key on every request: other scopes, a revoked key and a bad secret are the general path', async () => {
    const target = '/api/v1/markets/cot/gold';
    const full = await issue('cot:history');
    const other = await issue('cot:history');
    const none = await issue('observations:read');
    const withFull = await sendRaw(server.url, target, { headers: bearer(full.key) });
    expect(withFull.status).toBe(200);
    // Another key with the same scopes gets the same body (counted against its own limit).
    const same = await sendRaw(server.url, target, { headers: bearer(other.key) });
    expect(same.body.equals(withFull.body)).toBe(true);
    expect(logLine(same).key_id).toBe(other.id);
    // A key without cot:history gets the public view of the market (12 weeks at most).
    const publicView = await sendRaw(server.url, target, { headers: bearer(none.key) });
    expect(publicView.status).toBe(200);
    expect(publicView.headers.etag).not.toBe(withFull.headers.etag);
    expect(publicView.body.length).toBeLessThan(withFull.body.length);
    const revoked = await runMmds(['keys', 'revoke', full.id], fixture.env, REAL_CLOCK);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await sendRaw(server.url, target, { headers: bearer(full.key) });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body.toString()).error.message).toMatch(/revoked/);
    const wrongSecret = `${other.key.slice(0, -4)}${other.key.endsWith('aaaa') ? 'bbbb' : 'aaaa'}`;
    expect((await sendRaw(server.url, target, { headers: bearer(wrongSecret) })).status).toBe(401);
    // One refusal logged per refused request.
    const refusals = server.logs.filter((line) => line.event === 'auth_refused' && line.key_id === full.id);
    expect(refusals).toHaveLength(1);
  });

  it("counts against the key's limit shared with the general path, and refuses alike", async () => {
    const { key, id } = await issue('observations:read', 3);
    const target = '/api/v1/observations?series=ecb.USD&limit=2';
    const replies = [
      await sendRaw(server.url, target, { headers: bearer(key) }),
      await sendRaw(server.url, target, { headers: bearer(key) }),
      await sendRaw(server.url, otherSpelling(target), { headers: bearer(key) }),
      await sendRaw(server.url, target, { headers: bearer(key) }),
      await sendRaw(server.url, otherSpelling(target), { headers: bearer(key) }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 429, 429]);
    expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
    const [fast, general] = [replies[3]!, replies[4]!];
    expectSameAnswer(fast, { ...general, body: fast.body }, '429');
    const body = JSON.parse(fast.body.toString()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.request_id).toBe(fast.headers['x-request-id']);
    // Both log the refused key.
    expect(logLine(fast)).toEqual(logLine(general));
    expect(logLine(fast)).toMatchObject({ status: 429, key_id: id, snapshot: null });
  });

  it('answers only what the general path remembered for the snapshot in service, passing the rest on', async () => {
    const route = ROUTES.find((r) => r.id === 'observations')!;
    const answers = new KeyedAnswers(2);
    const cache = new ResponseCache();
    const body = Buffer.from('{"data":[],"meta":{}}');
    const representation: Representation = {
      body,
      ...compressBody(body),
      etag: '"e1"',
      contentType: 'application/json; charset=utf-8',
      link: null,
    };
    cache.set('k1', representation);
    let snapshot: string | null = 's1';
    const callers: Record<string, Caller> = {
      good: { keyId: 'k_good', org: 'o', scopes: ['observations:read'], rateLimit: 2 },
      other: { keyId: 'k_other', org: 'o', scopes: ['cot:history'], rateLimit: 100 },
    };
    const logs: Record<string, unknown>[] = [];
    const limiter = new MemoryLimiter();
    const listener = createKeyedFastPath(
      {
        answers,
        cache,
        currentSnapshot: () => snapshot,
        verify: async (token) => {
          if (token === 'broken') throw new Error('key store down');
          return callers[token] ?? null;
        },
        consume: (bucket, limit) => limiter.consumeNow(bucket, limit),
        resolveClientIp: (address) => address,
        log: (entry) => logs.push(entry),
      },
      passOn,
    );
    const { base, close } = await listenAlone(listener);
    const target = '/api/v1/observations?series=ecb.USD';
    const statusOf = async (path: string, token: string | null, init: { method?: string } = {}) =>
      (await sendRaw(base, path, { ...init, headers: token ? { Authorization: `Bearer ${token}` } : {} }))
        .status;
    try {
      expect(await statusOf(target, 'good')).toBe(PASSED_ON);
      answers.remember(target, ['observations:read'], 's1', {
        cacheKey: 'k1',
        route,
        path: '/api/v1/observations',
      });
      const answered = await sendRaw(base, target, { headers: { Authorization: 'Bearer good' } });
      expect(answered.status).toBe(200);
      expect(answered.body.equals(body)).toBe(true);
      expect(answered.headers).toMatchObject({
        etag: '"e1"',
        'x-snapshot-id': 's1',
        'x-ratelimit-remaining': '1',
      });
      expect(await statusOf(target, null)).toBe(PASSED_ON);
      expect(await statusOf(target, 'unknown')).toBe(PASSED_ON);
      expect(await statusOf(target, 'other')).toBe(PASSED_ON);
      expect(await statusOf(target, 'broken')).toBe(PASSED_ON);
      expect(await statusOf(`${target}&limit=1`, 'good')).toBe(PASSED_ON);
      expect(await statusOf(target, 'good', { method: 'POST' })).toBe(PASSED_ON);
      snapshot = 's2';
      expect(await statusOf(target, 'good')).toBe(PASSED_ON);
      snapshot = 's1';
      // Evicted from the response cache: the general path renders it again.
      cache.set('k1', { ...representation, body: Buffer.alloc(16 * 2 ** 20) });
      expect(await statusOf(target, 'good')).toBe(PASSED_ON);
      cache.set('k1', representation);
      // A limit of 2: the HEAD is the second answered request, the next one is refused here.
      expect(await statusOf(target, 'good', { method: 'HEAD' })).toBe(200);
      expect(await statusOf(target, 'good')).toBe(429);
      // Bounded: two URLs at most, the oldest forgotten first.
      answers.remember('/a?x=1', ['observations:read'], 's1', { cacheKey: 'k1', route, path: '/a' });
      answers.remember('/b?x=1', ['observations:read'], 's1', { cacheKey: 'k1', route, path: '/b' });
      expect(answers.size).toBe(2);
      expect(answers.lookup(target, 's1')).toBeUndefined();
      expect(logs.map((line) => [line.method, line.status, line.key_id, line.snapshot])).toEqual([
        ['GET', 200, 'k_good', 's1'],
        ['HEAD', 200, 'k_good', 's1'],
        ['GET', 429, 'k_good', null],
      ]);
    } finally {
      await close();
    }
  });
});

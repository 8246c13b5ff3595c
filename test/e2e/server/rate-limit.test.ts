import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

const REAL_CLOCK = () => new Date();
const LIMIT = 60;
const PATH = '/api/v1/markets/cot';
/** The Accept header of a browser navigating to a page (Chromium's). */
const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

interface Counted {
  status: number;
  limit: number;
  remaining: number;
  retryAfter: string | null;
  cacheControl: string | null;
  code: string | null;
}

// Each test starts its own server (its own in-memory counters), so they run side by side; the
// one that waits out a window runs last, alone, on a mocked clock (only Date: it moves on with real
// time and jumps by Retry-After instead of the test sleeping for up to a minute).
describe('rate limits over HTTP', () => {
  let fixture: SharedSampleFixture;
  const servers: TestServer[] = [];

  const start = async (options: Partial<TestServerOptions> = {}) => {
    const server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: `${fixture.dataDir}/no-dist`,
      ...options,
    });
    servers.push(server);
    return server;
  };

  const send = async (
    server: TestServer,
    headers: Record<string, string> = {},
    path = PATH,
  ): Promise<Counted> => {
    const response = await fetch(`${server.url}${path}`, { headers });
    const body = (await response.json()) as { error?: { code: string; request_id: string } };
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[\w-]{8,}$/);
    if (body.error) expect(body.error.request_id).toBe(requestId);
    return {
      status: response.status,
      limit: Number(response.headers.get('x-ratelimit-limit')),
      remaining: Number(response.headers.get('x-ratelimit-remaining')),
      retryAfter: response.headers.get('retry-after'),
      cacheControl: response.headers.get('cache-control'),
      code: body.error?.code ?? null,
    };
  };

  /** Sends n requests one after the other. */
  const sendMany = async (n: number, server: TestServer, headers: (i: number) => Record<string, string>) => {
    const replies: Counted[] = [];
    for (let i = 0; i < n; i++) replies.push(await send(server, headers(i)));
    return replies;
  };

  const expectRateLimited = (reply: Counted) => {
    expect(reply.status).toBe(429);
    expect(reply.code).toBe('rate_limited');
    expect(reply.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(reply.cacheControl).toBe('no-store');
    expect(reply.remaining).toBe(0);
  };

  beforeAll(async () => {
    fixture = await useSharedSample();
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    fixture?.remove();
  });

  describe.concurrent('side by side', () => {
    it('does not reset the count for a spoofed X-Forwarded-For when no proxy is trusted', async () => {
      const server = await start({ trustedProxies: 0 });
      const spoofed = (i: number) => ({ 'X-Forwarded-For': `203.0.113.${i % 250}` });
      const replies = await sendMany(LIMIT + 5, server, spoofed);
      expect(replies.slice(0, LIMIT).every((reply) => reply.status === 200)).toBe(true);
      expect(replies.slice(0, LIMIT).map((reply) => reply.remaining)).toEqual(
        Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
      );
      for (const reply of replies.slice(LIMIT)) expectRateLimited(reply);
    });

    it('with one trusted proxy, keys on the right-most X-Forwarded-For entry, never on the left', async () => {
      const server = await start({ trustedProxies: 1 });
      const client = (left: string, right: string) => ({ 'X-Forwarded-For': `${left}, ${right}` });
      // A changing left entry (written by the client) must not give a fresh budget.
      const first = await sendMany(LIMIT, server, (i) => client(`192.0.2.${i}`, '198.51.100.1'));
      expect(first.map((reply) => reply.remaining)).toEqual(
        Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
      );
      expectRateLimited(await send(server, client('192.0.2.200', '198.51.100.1')));
      expectRateLimited(await send(server, client('10.9.9.9', '198.51.100.1')));
      // Another right-most entry is another client with a whole budget.
      const other = await send(server, client('192.0.2.1', '198.51.100.2'));
      expect(other.status).toBe(200);
      expect(other.remaining).toBe(LIMIT - 1);
      // The socket address (127.0.0.1, the trusted proxy) is not the client either.
      const direct = await send(server);
      expect(direct.status).toBe(200);
      expect(direct.remaining).toBe(LIMIT - 1);
    });

    it('counts an IPv6 client by its /64: a fresh address of the same /64 gets no fresh budget', async () => {
      // Tests can only connect from ::1, so the client addresses come through a trusted proxy.
      const server = await start({ trustedProxies: 1 });
      const from = (address: string) => ({ 'X-Forwarded-For': address });
      // 60 addresses of one /64 (as privacy addresses or a rotating client would use) share 60.
      const first = await sendMany(LIMIT, server, (i) =>
        from(`2001:db8:0:1:${(i + 1).toString(16)}::${i + 7}`),
      );
      expect(first.map((reply) => reply.remaining)).toEqual(
        Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
      );
      expectRateLimited(await send(server, from('2001:db8:0:1:ffff:ffff:ffff:ffff')));
      expectRateLimited(await send(server, from('[2001:DB8:0:1::abcd]:443')));
      // The next /64 is another client.
      const next = await send(server, from('2001:db8:0:2::1'));
      expect(next.status).toBe(200);
      expect(next.remaining).toBe(LIMIT - 1);
    });

    it('counts IPv4 per address, and IPv4-mapped IPv6 as the same IPv4 client', async () => {
      const server = await start({ trustedProxies: 1 });
      const from = (address: string) => ({ 'X-Forwarded-For': address });
      const replies = [
        await send(server, from('198.51.100.7')),
        await send(server, from('::ffff:198.51.100.7')),
        await send(server, from('::ffff:c633:6407')),
        await send(server, from('198.51.100.8')),
      ];
      expect(replies.map((reply) => reply.remaining)).toEqual([LIMIT - 1, LIMIT - 2, LIMIT - 3, LIMIT - 1]);
    });

    it('uses the prefix MMDS_RATE_LIMIT_IPV6_PREFIX sets (48: every /64 of a /48 shares)', async () => {
      const server = await start({ trustedProxies: 1, ipv6RateLimitPrefix: 48 });
      const from = (address: string) => ({ 'X-Forwarded-For': address });
      const replies = [
        await send(server, from('2001:db8:5:1::1')),
        await send(server, from('2001:db8:5:2::1')),
        await send(server, from('2001:db8:5:ffff::1')),
        await send(server, from('2001:db8:6::1')),
      ];
      expect(replies.map((reply) => reply.remaining)).toEqual([LIMIT - 1, LIMIT - 2, LIMIT - 3, LIMIT - 1]);
    });

    it('counts keyed requests against the key’s own limit (--rate-limit 5), not the IP', async () => {
      const server = await start();
      const run = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'Limit Org', '--scopes', 'macro:history', '--rate-limit', '5'],
        fixture.env,
        REAL_CLOCK,
      );
      expect(run.code, run.stderr).toBe(0);
      const { key } = JSON.parse(run.stdout) as { key: string };
      const auth = { Authorization: `Bearer ${key}` };
      const replies: Counted[] = [];
      for (let i = 0; i < 6; i++) replies.push(await send(server, auth, '/api/v1/macro/nonfarm-payrolls'));
      expect(replies.slice(0, 5).map((reply) => [reply.status, reply.limit, reply.remaining])).toEqual([
        [200, 5, 4],
        [200, 5, 3],
        [200, 5, 2],
        [200, 5, 1],
        [200, 5, 0],
      ]);
      expectRateLimited(replies[5]!);
      expect(replies[5]!.limit).toBe(5);
      // The anonymous budget of the same IP was not touched.
      const anonymous = await send(server);
      expect([anonymous.status, anonymous.limit, anonymous.remaining]).toEqual([200, LIMIT, LIMIT - 1]);
    });

    it('does not count the site’s pages and assets: 100 page views leave the API budget whole', async () => {
      const server = await start({ distDir: fixture.distDir });
      const pages = ['/', '/macro/', '/fx/', '/docs/api/', '/markets/gold/', '/releases/'];
      const assets = ['/site.css', '/favicon.svg'];
      const seen: Array<[string, number, string | null]> = [];
      // A page view as a browser makes it: the page, its stylesheet and its icon.
      for (let view = 0; view < 100; view++) {
        for (const path of [pages[view % pages.length]!, ...assets]) {
          const response = await fetch(`${server.url}${path}`, { headers: BROWSER });
          await response.arrayBuffer();
          seen.push([path, response.status, response.headers.get('x-ratelimit-limit')]);
        }
      }
      expect(seen).toHaveLength(300);
      expect(seen.filter(([, status, limit]) => status !== 200 || limit !== null)).toEqual([]);
      // A page that does not exist is the HTML 404, not counted either.
      const missing = await fetch(`${server.url}/no-such-page/`, { headers: BROWSER });
      expect([missing.status, missing.headers.get('x-ratelimit-limit')]).toEqual([404, null]);
      // The API budget of the same address is whole: this is its first counted request.
      const api = await send(server);
      expect([api.status, api.limit, api.remaining]).toEqual([200, LIMIT, LIMIT - 1]);
    });

    it('answers a browser refused on the live status page with an HTML 429; the API keeps the envelope', async () => {
      const limit = 3;
      const server = await start({ distDir: fixture.distDir, anonymousLimit: limit });
      // The status page is counted (it queries the snapshot); spend the budget on the API and it.
      for (let i = 0; i < limit - 1; i++) expect((await send(server)).status).toBe(200);
      const last = await fetch(`${server.url}/status/`, { headers: BROWSER });
      expect([last.status, last.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
      await last.arrayBuffer();

      const page = await fetch(`${server.url}/status/`, { headers: BROWSER });
      const html = await page.text();
      expect({
        status: page.status,
        type: page.headers.get('content-type'),
        cache: page.headers.get('cache-control'),
        limit: page.headers.get('x-ratelimit-limit'),
        remaining: page.headers.get('x-ratelimit-remaining'),
      }).toEqual({
        status: 429,
        type: 'text/html; charset=utf-8',
        cache: 'no-store',
        limit: String(limit),
        remaining: '0',
      });
      const retryAfter = page.headers.get('retry-after');
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(page.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
      expect(html).toMatch(/^<!DOCTYPE html>/);
      expect(html).toContain('<h1>Too many requests</h1>');
      expect(html).toContain('<nav aria-label="Sections">');
      expect(html).toContain(`its ${limit} requests per minute`);
      expect(html).toContain(`Try again in ${retryAfter} second`);
      expect(html).toContain(`<code>${page.headers.get('x-request-id')}</code>`);
      // HEAD: the same status and headers, no body.
      const head = await fetch(`${server.url}/status/`, { method: 'HEAD', headers: BROWSER });
      expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([
        429,
        'text/html; charset=utf-8',
        '',
      ]);
      // A client that does not ask for HTML, and every /api/ path even for a browser: the envelope.
      expectRateLimited(await send(server, {}, '/status/'));
      expectRateLimited(await send(server, BROWSER));
      expectRateLimited(await send(server, BROWSER, '/api/v1/no-such-endpoint'));
      // The site's files are still answered while the budget is spent.
      for (const path of ['/', '/fx/', '/site.css']) {
        const response = await fetch(`${server.url}${path}`, { headers: BROWSER });
        await response.arrayBuffer();
        expect([path, response.status]).toEqual([path, 200]);
      }
    });
  });

  it('refuses the 61st anonymous request in a minute with 429 and accepts one after Retry-After', async () => {
    // Before the server starts: its limiter reads the clock through the Date.now it was given.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      await windowTest();
    } finally {
      vi.useRealTimers();
    }
  });

  const windowTest = async () => {
    const server = await start();
    const replies = await sendMany(LIMIT + 1, server, () => ({}));
    const accepted = replies.slice(0, LIMIT);
    expect(accepted.map((reply) => reply.status)).toEqual(Array(LIMIT).fill(200));
    expect(replies.every((reply) => reply.limit === LIMIT)).toBe(true);
    // Remaining counts down one per request, to 0, and never below.
    expect(accepted.map((reply) => reply.remaining)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
    );
    const refused = replies[LIMIT]!;
    expectRateLimited(refused);
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused requests are not counted: asking again at once changes nothing.
    expectRateLimited(await send(server));
    // Two seconds before Retry-After (still at least one inside the window) it is refused; at
    // Retry-After it is accepted.
    const refusedAt = Date.now();
    vi.setSystemTime(refusedAt + retryAfter * 1000 - 2000);
    expectRateLimited(await send(server));
    vi.setSystemTime(refusedAt + retryAfter * 1000);
    const next = await send(server);
    expect(next.status).toBe(200);
    expect(next.remaining).toBeGreaterThanOrEqual(0);
  };
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILD_MANIFEST_FILE,
  type BuildManifest,
  type StaticRoute,
} from '../../../src/build/build-manifest.ts';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';
import { createPublicFastPath } from '../../../src/server/public-fast-path.ts';
import { loadStaticSite, type StaticSite } from '../../../src/server/static-site.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import {
  expectSameAnswer,
  listenAlone,
  PASSED_ON,
  passOn,
  type Reply,
  sendRaw,
  stableFields,
} from '../../helpers/raw-http.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import { LICENSED_SERIES_KEY, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * `mmds serve` answers the pre-rendered anonymous GET/HEAD requests in a node:http listener in
 * front of h3 (src/server/public-fast-path.ts). It must answer exactly as the general path
 * would: the general path still answers the same request spelt another way (`/x?` for `/x`,
 * `%55SD` for `USD`), so the two are compared over HTTP, header by header and byte by byte.
 */

/** The request line target `mmds build` pre-rendered for a route (values escaped as a client would). */
function rawTarget(route: Pick<StaticRoute, 'path' | 'query'>): string {
  const entries = Object.entries(route.query);
  if (entries.length === 0) return route.path;
  return `${route.path}?${entries.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`;
}

/** The same request spelt so that only the general path can answer it. */
function otherSpelling(route: Pick<StaticRoute, 'path' | 'query'>): string {
  const [entry] = Object.entries(route.query);
  if (!entry) return `${route.path}?`;
  const [name, value] = entry;
  const first = `%${value.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  return `${route.path}?${encodeURIComponent(name)}=${first}${encodeURIComponent(value.slice(1))}`;
}

describe('the public fast path in front of h3', () => {
  let fixture: SnapshotFixture;
  let manifest: BuildManifest;
  let server: TestServer;
  let routes: StaticRoute[];

  /** The log line of a response, without its request id and time. */
  const logLine = (reply: Reply) => {
    const line = server.logs.find((entry) => entry.request_id === reply.headers['x-request-id']);
    expect(line, `log line of ${reply.headers['x-request-id']}`).toBeDefined();
    const { request_id: _id, ms, ...rest } = line!;
    expect(typeof ms).toBe('number');
    return rest;
  };

  beforeAll(async () => {
    // The shared build (its dist/ read-only) with a data directory of this file's own.
    fixture = await useSharedSample({ licensed: true });
    manifest = JSON.parse(readFileSync(join(fixture.env.MMDS_DIST_DIR!, BUILD_MANIFEST_FILE), 'utf8'));
    routes = manifest.routes.filter((route) => route.route_id !== null && route.route_id !== 'status');
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.env.MMDS_DIST_DIR,
      anonymousLimit: 100_000,
      trustedProxies: 1,
    });
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('answers every pre-rendered request as the general path does, and logs the same line', async () => {
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      const fast = await sendRaw(server.url, rawTarget(route));
      const general = await sendRaw(server.url, otherSpelling(route));
      expect(fast.status, rawTarget(route)).toBe(200);
      expect(fast.headers['x-snapshot-id']).toBe(manifest.snapshot);
      expectSameAnswer(fast, general, rawTarget(route));
      expect(logLine(fast)).toEqual(logLine(general));
    }
  });

  it('answers HEAD, a matching If-None-Match and gzip or brotli as the general path does', async () => {
    const compressed = manifest.files.filter((file) => file.gzip_bytes !== null && file.br_bytes !== null);
    const route = routes.find((r) => compressed.some((file) => file.file === `/${r.file}`))!;
    expect(route).toBeDefined();
    const etag = (await sendRaw(server.url, rawTarget(route))).headers.etag!;
    const variants: Array<[string, { method?: string; headers?: Record<string, string> }]> = [
      ['HEAD', { method: 'HEAD' }],
      ['If-None-Match', { headers: { 'If-None-Match': etag } }],
      ['If-None-Match list', { headers: { 'If-None-Match': `"other", W/${etag}` } }],
      ['gzip', { headers: { 'Accept-Encoding': 'gzip' } }],
      ['br', { headers: { 'Accept-Encoding': 'gzip, br' } }],
      ['br refused', { headers: { 'Accept-Encoding': 'br;q=0, gzip' } }],
      ['HEAD gzip', { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } }],
    ];
    const seen = new Set<number>();
    const encodings = new Set<string | undefined>();
    for (const [name, init] of variants) {
      const fast = await sendRaw(server.url, rawTarget(route), init);
      const general = await sendRaw(server.url, otherSpelling(route), init);
      expectSameAnswer(fast, general, name);
      seen.add(fast.status);
      encodings.add(fast.headers['content-encoding']);
    }
    expect([...seen].sort()).toEqual([200, 304]);
    expect(encodings).toEqual(new Set([undefined, 'gzip', 'br']));
  });

  it('leaves keys, other methods, the live status and errors to h3', async () => {
    const target = rawTarget(routes[0]!);
    const keyed = await sendRaw(server.url, target, { headers: { Authorization: 'Bearer abc' } });
    expect(keyed.status).toBe(401);
    expect(keyed.headers['www-authenticate']).toBe('Bearer');
    expect((await sendRaw(server.url, target, { method: 'POST' })).status).toBe(405);
    expect((await sendRaw(server.url, target, { method: 'OPTIONS' })).status).toBe(204);
    const status = await sendRaw(server.url, '/api/v1/status');
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body.toString()).data.snapshot).toBeDefined();
    expect((await sendRaw(server.url, '/api/v1/nothing-here')).status).toBe(404);
    // A pre-rendered request with a bad Host is the general path's counted 400 in the envelope.
    for (const host of ['x:99999', '1.2.3.256', '[::1]:99999']) {
      const refused = await sendRaw(server.url, target, { headers: { Host: host } });
      expect(refused.status, host).toBe(400);
      expect(JSON.parse(refused.body.toString()).error.code).toBe('invalid_parameter');
      expect(refused.headers['x-ratelimit-remaining']).toBeDefined();
    }
  });

  it('counts against the anonymous limit shared with the general path, and refuses alike', async () => {
    const limited = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.env.MMDS_DIST_DIR,
      anonymousLimit: 3,
      trustedProxies: 1,
    });
    try {
      const route = routes[0]!;
      const as = (ip: string) => ({ headers: { 'X-Forwarded-For': ip } });
      const replies = [
        await sendRaw(limited.url, rawTarget(route), as('203.0.113.9')),
        await sendRaw(limited.url, otherSpelling(route), as('203.0.113.9')),
        await sendRaw(limited.url, rawTarget(route), as('203.0.113.9')),
        await sendRaw(limited.url, rawTarget(route), as('203.0.113.9')),
        await sendRaw(limited.url, otherSpelling(route), as('203.0.113.9')),
      ];
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 429, 429]);
      expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual([
        '2',
        '1',
        '0',
        '0',
        '0',
      ]);
      const [fast, general] = [replies[3]!, replies[4]!];
      expect(Object.keys(fast.headers).sort()).toEqual(Object.keys(general.headers).sort());
      expect(stableFields(fast.headers)).toEqual(stableFields(general.headers));
      expect(fast.headers['cache-control']).toBe('no-store');
      expect(Number(fast.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const body = JSON.parse(fast.body.toString()) as { error: { code: string; request_id: string } };
      expect(body.error.code).toBe('rate_limited');
      expect(body.error.request_id).toBe(fast.headers['x-request-id']);
      // Another client is not affected.
      expect((await sendRaw(limited.url, rawTarget(route), as('203.0.113.10'))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers only the exact pre-rendered requests of the snapshot in service, passing the rest on', async () => {
    const site = loadStaticSite(fixture.env.MMDS_DIST_DIR!) as StaticSite;
    let snapshot: string | null = manifest.snapshot;
    let current: StaticSite | null = site;
    const logs: Record<string, unknown>[] = [];
    const limiter = new MemoryLimiter();
    const listener = createPublicFastPath(
      {
        staticSite: () => current,
        currentSnapshot: () => snapshot,
        consume: (bucket, limit) => limiter.consumeNow(bucket, limit),
        anonymousLimit: 2,
        anonymousBucket: (clientIp) => `ip:${clientIp}`,
        resolveClientIp: (address) => address,
        log: (entry) => logs.push(entry),
      },
      passOn,
    );
    const { base, close } = await listenAlone(listener);
    try {
      const route = routes.find((r) => Object.keys(r.query).length === 1)!;
      const statusOf = async (target: string, init?: { method?: string; headers?: Record<string, string> }) =>
        (await sendRaw(base, target, init)).status;
      expect(await statusOf(rawTarget(route))).toBe(200);
      expect(await statusOf(otherSpelling(route))).toBe(PASSED_ON);
      expect(await statusOf(rawTarget(route), { headers: { Authorization: 'Bearer x' } })).toBe(PASSED_ON);
      expect(await statusOf(rawTarget(route), { method: 'POST' })).toBe(PASSED_ON);
      expect(await statusOf('/api/v1/status')).toBe(PASSED_ON);
      expect(await statusOf('/api/v1/nothing-here')).toBe(PASSED_ON);
      snapshot = 'another-snapshot';
      expect(await statusOf(rawTarget(route))).toBe(PASSED_ON);
      snapshot = manifest.snapshot;
      current = null;
      expect(await statusOf(rawTarget(route))).toBe(PASSED_ON);
      current = site;
      // A limit of 2: the HEAD is the second answered request, the next one is refused here too.
      expect(await statusOf(rawTarget(route), { method: 'HEAD' })).toBe(200);
      expect(await statusOf(rawTarget(route))).toBe(429);
      expect(logs.map((line) => [line.event, line.method, line.status, line.path, line.snapshot])).toEqual([
        ['request', 'GET', 200, route.path, manifest.snapshot],
        ['request', 'HEAD', 200, route.path, manifest.snapshot],
        ['request', 'GET', 429, route.path, null],
      ]);
    } finally {
      await close();
    }
  });

  it('stops answering from the build once another snapshot is in service', async () => {
    const ingest = await runMmds(
      [
        'ingest',
        'fred',
        join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv'),
        '--series',
        LICENSED_SERIES_KEY,
        '--vintage',
        '2026-10-02',
      ],
      fixture.env,
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    const publish = await runMmds(['--json', 'publish'], fixture.env);
    expect(publish.code, publish.stderr).toBe(0);
    const next = (JSON.parse(publish.stdout) as { snapshot_id: string }).snapshot_id;
    expect(next).not.toBe(manifest.snapshot);
    const deadline = Date.now() + 15_000;
    while (!server.logs.some((line) => line.event === 'snapshot_switched' && line.snapshot === next)) {
      if (Date.now() > deadline) throw new Error('the server did not switch to the new snapshot');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const reply = await sendRaw(server.url, rawTarget(routes.find((route) => route.route_id === 'series')!));
    expect(reply.status).toBe(200);
    expect(reply.headers['x-snapshot-id']).toBe(next);
    expect((JSON.parse(reply.body.toString()) as { meta: { snapshot: string } }).meta.snapshot).toBe(next);
  });
});

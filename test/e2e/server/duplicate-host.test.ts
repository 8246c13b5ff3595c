import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';
import { createPublicFastPath } from '../../../src/server/public-fast-path.ts';
import { loadStaticSite, type StaticSite } from '../../../src/server/static-site.ts';
import { listenAlone, PASSED_ON, passOn, type Reply, sendRaw } from '../../helpers/raw-http.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import type { SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * RFC 9112 section 3.2: a request with more than one Host line is a 400. node:http keeps only the
 * first in `request.headers`, so each path that reads Host (the public and keyed fast paths in
 * front of h3, and h3 itself) must look at the raw lines; all answer the contract's envelope.
 */

const REAL_CLOCK = () => new Date();

describe('a request with two Host header lines', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  /** A request `mmds build` pre-rendered: the public fast path answers it. */
  let prerendered: string;
  let key: string;

  /** Expects the contract's 400 for a repeated Host, logged, and counted unless `uncounted` (site files). */
  const expectRefused = (reply: Reply, what: string, uncounted = false) => {
    expect(reply.status, `${what}: ${reply.body}`).toBe(400);
    const { error } = JSON.parse(reply.body.toString()) as { error: { code: string; message: string } };
    expect(error.code, what).toBe('invalid_parameter');
    expect(error.message, what).toMatch(/more than one Host header/);
    expect(reply.headers['x-ratelimit-remaining'] === undefined, what).toBe(uncounted);
    const line = server.logs.find((entry) => entry.request_id === reply.headers['x-request-id']);
    expect(line?.status, what).toBe(400);
  };

  beforeAll(async () => {
    fixture = await useSharedSample({ licensed: true });
    const dist = fixture.env.MMDS_DIST_DIR!;
    const manifest = JSON.parse(readFileSync(join(dist, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    const route = manifest.routes.find(
      (candidate) =>
        candidate.route_id !== null &&
        candidate.route_id !== 'status' &&
        Object.keys(candidate.query).length === 0,
    )!;
    prerendered = route.path;
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: dist, anonymousLimit: 10_000 });
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Host Org', '--scopes', 'observations:read'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    key = (JSON.parse(run.stdout) as { key: string }).key;
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('is refused on a pre-rendered public request (the public fast path)', async () => {
    expect((await sendRaw(server.url, prerendered)).status).toBe(200);
    for (const hosts of [
      ['Host', '127.0.0.1', 'Host', 'evil.example'],
      ['Host', '127.0.0.1', 'host', '127.0.0.1'],
    ])
      expectRefused(await sendRaw(server.url, prerendered, { headers: hosts }), hosts.join(' '));
  });

  it('is refused on a keyed request the keyed fast path would repeat', async () => {
    const target = '/api/v1/observations?series=ecb.USD&limit=3';
    const bearer = `Bearer ${key}`;
    // The first answer is the general path's; the repeat would be the keyed fast path's.
    for (let i = 0; i < 2; i++)
      expect((await sendRaw(server.url, target, { headers: { Authorization: bearer } })).status).toBe(200);
    const reply = await sendRaw(server.url, target, {
      headers: ['Authorization', bearer, 'Host', '127.0.0.1', 'Host', 'evil.example'],
    });
    expectRefused(reply, 'keyed');
    expect(
      server.logs.find((entry) => entry.request_id === reply.headers['x-request-id'])?.key_id,
    ).toBeTruthy();
  });

  it('is refused by the general path: the live status, a site page and POST /mcp', async () => {
    const twice = ['Host', '127.0.0.1', 'Host', 'evil.example'];
    expectRefused(await sendRaw(server.url, '/api/v1/status', { headers: twice }), 'status');
    expectRefused(await sendRaw(server.url, '/', { headers: twice }), 'site page', true);
    expectRefused(
      await sendRaw(server.url, '/mcp', {
        method: 'POST',
        headers: [...twice, 'Content-Type', 'application/json', 'Accept', 'application/json'],
      }),
      'mcp',
    );
  });

  it('is handed over to h3 by the public fast path on its own, not answered', async () => {
    const site = loadStaticSite(fixture.env.MMDS_DIST_DIR!) as StaticSite;
    const limiter = new MemoryLimiter();
    const fastPath = createPublicFastPath(
      {
        staticSite: () => site,
        currentSnapshot: () => site.snapshot,
        consume: (bucket, limit) => limiter.consumeNow(bucket, limit),
        anonymousLimit: 10,
        anonymousBucket: (ip) => ip,
        resolveClientIp: (address) => address,
        log: () => {},
      },
      passOn,
    );
    const alone = await listenAlone(fastPath);
    try {
      expect((await sendRaw(alone.base, prerendered)).status).toBe(200);
      const twice = await sendRaw(alone.base, prerendered, {
        headers: ['Host', '127.0.0.1', 'Host', '127.0.0.1'],
      });
      expect(twice.status).toBe(PASSED_ON);
    } finally {
      await alone.close();
    }
  });
});

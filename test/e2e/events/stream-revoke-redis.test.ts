import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { type RedisServer, startRedis } from '../../helpers/redis-server.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { eventIdsOf, readEventStream } from '../../helpers/sse-reader.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Issue 37 with the Redis key store: two instances over one Redis, a stream open with the same key
 * on each. `mmds keys revoke` (its own connection) announces the change on the channel the key
 * caches follow; both streams end at once, not at their next heartbeat (a minute here), and neither
 * receives an event of a publish made right after the revocation returned.
 */

/** Tens of ms, a few hundred on a loaded machine; the heartbeat (before) is a minute here. */
const PROMPT_MS = 2_000;

describe('a revoked key ends its streams on every instance (Redis key store)', () => {
  const temp = createTempDir('mmds-stream-revoke-');
  const dataDir = join(temp.dir, 'data');
  const layout = resolveLayout(dataDir);
  let redis: RedisServer;
  let env: Record<string, string>;
  const servers: TestServer[] = [];

  const run = async (argv: string[], at: string | null = null) => {
    const result = await runMmds(argv, env, () => (at ? new Date(at) : new Date()));
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    redis = await startRedis();
    env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist'), MMDS_STORAGE: redis.url };
    const t1 = '2026-11-20T10:00:00Z';
    await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], t1);
    await run(
      [
        'ingest',
        'fred',
        join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv'),
        '--series',
        'bls.CES0000000001',
        '--vintage',
        '2025-08-01',
      ],
      t1,
    );
    await run(['publish'], t1);
    for (let i = 0; i < 2; i++)
      servers.push(
        await startTestServer({
          dataDir,
          distDir: join(temp.dir, 'no-dist'),
          storage: redis.url,
          pollMs: 100,
          // The test polls for the snapshot switch: not the anonymous limit under test here.
          anonymousLimit: 100_000,
          eventStreams: { heartbeatMs: 60_000 },
        }),
      );
    // Each instance's subscription is confirmed (asynchronously) before anything is revoked.
    const deadline = Date.now() + 10_000;
    while (
      !servers.every((server) => server.logs.some((line) => line.event === 'key_cache' && line.enabled))
    ) {
      if (Date.now() > deadline) throw new Error('the key change feed did not start on both instances');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await redis?.stop();
    temp.remove();
  });

  it('ends the streams on both instances at once when `mmds keys revoke` returns', async () => {
    const { id, key } = JSON.parse(
      await run(['--json', 'keys', 'issue', '--org', 'Streams Org', '--scopes', 'observations:read']),
    ) as { id: string; key: string };
    const streams = await Promise.all(
      servers.map((server) => readEventStream(`${server.url}/api/v1/events`, key)),
    );
    for (const stream of streams) {
      expect(stream.status).toBe(200);
      await stream.until('retry: ');
    }
    await run(['keys', 'revoke', id]);
    const revoked = performance.now();
    const published = (async () => {
      const t2 = '2026-11-21T10:00:00Z';
      await run(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')], t2);
      await run(['publish'], t2);
      return readCurrentId(layout)!;
    })();
    const ended = await Promise.all(streams.map((stream) => stream.ended));
    const ms = ended.map((at) => Math.round(at - revoked));
    console.log(`revoke returned -> streams ended (Redis store, two instances): ${ms.join(' ms, ')} ms`);
    const snapshot = await published;
    // Both servers serve the new snapshot: its events would have reached a stream still open.
    for (const server of servers)
      for (let i = 0; i < 600; i++) {
        const response = await fetch(`${server.url}/api/v1/events?limit=1`);
        await response.arrayBuffer();
        if (response.headers.get('x-snapshot-id') === snapshot) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    for (const [index, stream] of streams.entries()) {
      const text = stream.text();
      expect(text, text).toMatch(/event: end\ndata: \{"reason":"key_revoked".*\n\n$/);
      const after = stream.chunks.filter((chunk) => chunk.at > revoked).map((chunk) => chunk.text);
      expect(eventIdsOf(after.join(''))).toEqual([]);
      expect(eventIdsOf(text).filter((event) => event.startsWith(snapshot))).toEqual([]);
      expect(ms[index]).toBeLessThan(PROMPT_MS);
      expect(servers[index]!.logs).toContainEqual(
        expect.objectContaining({ event: 'event_stream_ended', key_id: id, reason: 'key_revoked' }),
      );
    }
  });
});

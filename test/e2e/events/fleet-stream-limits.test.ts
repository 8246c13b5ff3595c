import { join } from 'node:path';
import type { Storage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateStorage, getRedisClient } from '../../../src/keys/create-storage.ts';
import { createRedisStreamSlots } from '../../../src/server/stream-slots.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { type RedisServer, startRedis } from '../../helpers/redis-server.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { readEventStream, type SseReading } from '../../helpers/sse-reader.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Issue 38: with Redis as the state storage, the open-stream limits per key and per client
 * address hold for a fleet, not for each instance: two real servers over one Redis and one data
 * directory, a key's streams counted on both together; a dead instance's places lapse.
 */

const temp = createTempDir('mmds-fleet-streams-');
const dataDir = join(temp.dir, 'data');
let redis: RedisServer;
let env: Record<string, string>;
let servers: TestServer[] = [];
const readings: SseReading[] = [];

const run = async (argv: string[]) => {
  const result = await runMmds(argv, env, () => new Date());
  expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

const open = async (server: TestServer, token: string | null) => {
  const reading = await readEventStream(`${server.url}/api/v1/events`, token);
  readings.push(reading);
  return reading;
};

beforeAll(async () => {
  redis = await startRedis();
  env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist'), MMDS_STORAGE: redis.url };
  await run(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')]);
  await run([
    'ingest',
    'fred',
    join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv'),
    '--series',
    'bls.CES0000000001',
    '--vintage',
    '2025-08-01',
  ]);
  await run(['publish']);
  for (let i = 0; i < 2; i++)
    servers.push(
      await startTestServer({
        dataDir,
        distDir: join(temp.dir, 'no-dist'),
        storage: redis.url,
        anonymousLimit: 100_000,
        eventStreams: { perKey: 2, perAddress: 1 },
      }),
    );
}, 300_000);

afterAll(async () => {
  for (const reading of readings) reading.close();
  for (const server of servers) await server.close();
  servers = [];
  await redis?.stop();
  temp.remove();
});

describe('event stream limits over Redis', () => {
  it('count a key’s streams on every instance together, and free a place when a stream closes', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const { key } = JSON.parse(
      await run(['--json', 'keys', 'issue', '--org', 'Fleet Org', '--scopes', 'observations:read']),
    ) as { key: string };
    const first = await open(a, key);
    const second = await open(b, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    // A third on either instance: the key has its two open in the fleet.
    for (const server of [a, b]) {
      const refused = await fetch(`${server.url}/api/v1/events`, {
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` },
      });
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error).toMatchObject({ code: 'rate_limited' });
      expect(body.error.message).toContain('at most 2 event streams may be open per key');
    }
    // Closing the one on a frees a place that b can take.
    first.close();
    let again = await open(b, key);
    for (let i = 0; again.status === 429 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(b, key);
    }
    expect(again.status).toBe(200);
  });

  it('count an anonymous client address on every instance together', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const one = await open(a, null);
    expect(one.status).toBe(200);
    const refused = await fetch(`${b.url}/api/v1/events`, { headers: { Accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'per client address without a key',
    );
    one.close();
  });

  it('let the places of an instance that stopped renewing lapse, and keep those renewed', async () => {
    const storages: Storage[] = [0, 1, 2].map(() => createStateStorage(redis.url, dataDir));
    try {
      const [dead, alive, other] = storages.map((storage) =>
        createRedisStreamSlots(getRedisClient(storage)!, { ttlMs: 400 }),
      ) as [ReturnType<typeof createRedisStreamSlots>, ...ReturnType<typeof createRedisStreamSlots>[]];
      expect(await dead.take('key:lapsing', 1)).not.toBeNull();
      dead.close(); // killed: it neither renews nor gives its place back
      expect(await other!.take('key:lapsing', 1)).toBeNull();
      expect(await alive!.take('key:renewed', 1)).not.toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(await other!.take('key:lapsing', 1)).not.toBeNull();
      expect(await other!.take('key:renewed', 1)).toBeNull();
      alive!.close();
      other!.close();
    } finally {
      for (const storage of storages) await storage.dispose();
    }
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../helpers/redis-server.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { type ServeProcess, spawnServe } from '../../helpers/spawn-serve.ts';

const REAL_CLOCK = () => new Date();
const KEY_LIMIT = 20;
const PATH = '/api/v1/observations?series=bls.CES0000000001';

describe('two `mmds serve` instances sharing Redis', () => {
  let redis: RedisServer;
  let fixture: SnapshotFixture;
  let env: Record<string, string>;
  let instances: ServeProcess[] = [];

  const issue = async (rateLimit: number): Promise<{ key: string; id: string }> => {
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'Cluster Org',
        '--scopes',
        'observations:read',
        '--rate-limit',
        String(rateLimit),
      ],
      env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { key: string; id: string };
  };

  const get = async (instance: ServeProcess, key: string) => {
    const response = await fetch(`${instance.url}${PATH}`, { headers: { Authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return { status: response.status, remaining: Number(response.headers.get('x-ratelimit-remaining')) };
  };

  beforeAll(async () => {
    [redis, fixture] = await Promise.all([startRedis(), createSampleSnapshot()]);
    env = { MMDS_DATA_DIR: fixture.dataDir, MMDS_STORAGE: redis.url };
    instances = await Promise.all(
      [1, 2].map(() =>
        spawnServe({ ...env, MMDS_DIST_DIR: join(fixture.dataDir, 'no-dist'), PORT: '0', HOST: '127.0.0.1' }),
      ),
    );
  });

  afterAll(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) {
        instance.child.kill('SIGKILL');
        await instance.exited;
      }
    }
    await redis?.stop();
    fixture?.remove();
  });

  it('starts two instances on different ports', () => {
    expect(instances).toHaveLength(2);
    expect(instances[0]!.url).not.toBe(instances[1]!.url);
  });

  it('enforces one key limit across both instances: 40 alternating sequential requests, 20 accepted', async () => {
    const { key } = await issue(KEY_LIMIT);
    const replies = [];
    for (let i = 0; i < 2 * KEY_LIMIT; i++) replies.push(await get(instances[i % 2]!, key));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(KEY_LIMIT);
    expect(replies.slice(0, KEY_LIMIT).map((reply) => reply.status)).toEqual(Array(KEY_LIMIT).fill(200));
    expect(replies.slice(KEY_LIMIT).map((reply) => reply.status)).toEqual(Array(KEY_LIMIT).fill(429));
    // One count, whichever instance answers.
    expect(replies.slice(0, KEY_LIMIT).map((reply) => reply.remaining)).toEqual(
      Array.from({ length: KEY_LIMIT }, (_, i) => KEY_LIMIT - 1 - i),
    );
  });

  it('enforces it under a burst of 60 concurrent requests over both instances', async () => {
    const { key } = await issue(KEY_LIMIT);
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => get(instances[i % 2]!, key)));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(KEY_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(60 - KEY_LIMIT);
  });

  it('refuses a key revoked through the CLI on both instances within a second', async () => {
    const { key, id } = await issue(100);
    expect((await get(instances[0]!, key)).status).toBe(200);
    expect((await get(instances[1]!, key)).status).toBe(200);
    const run = await runMmds(['keys', 'revoke', id], env, REAL_CLOCK);
    expect(run.code, run.stderr).toBe(0);
    const revokedAt = Date.now();
    let statuses: number[] = [];
    while (Date.now() - revokedAt < 1000) {
      statuses = [(await get(instances[0]!, key)).status, (await get(instances[1]!, key)).status];
      if (statuses.every((status) => status === 401)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statuses).toEqual([401, 401]);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('stops gracefully on SIGTERM (exit code 0) and never logged a key', async () => {
    for (const instance of instances) instance.child.kill('SIGTERM');
    const exits = await Promise.all(instances.map((instance) => instance.exited));
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const logs = instances.flatMap((instance) => instance.stdout);
    expect(logs.some((line) => line.includes('"event":"request"'))).toBe(true);
    expect(logs.some((line) => line.includes('mmds_'))).toBe(false);
  });
});

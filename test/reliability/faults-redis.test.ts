import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { type Exchange, findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { issueTestKey } from './helpers/served-sample.ts';

/**
 * Redis killed while requests flow through two instances that share it, then restarted.
 *
 * The bound, for a limit L and k instances (here L = 10, k = 2): while Redis is down each
 * instance limits with its own in-memory sliding log, so a client gets at most L per instance in
 * any rolling minute: k x L during the outage, and at most (k + 1) x L in a minute that spans the
 * moment Redis failed (L counted in Redis before, k x L locally after). Once an instance's probe
 * finds Redis again (at most every 5 s), decisions are shared again: exactly L across both.
 * Anonymous traffic never sees a 5xx. Keyed requests need their key record, which lives in the
 * same Redis: during the outage they are refused with 503 unavailable and a Retry-After, in the
 * contract's envelope (a key cannot be checked, and is never downgraded to anonymous access).
 */

const LIMIT = 10;

describe('Redis killed during load and restarted', () => {
  let redis: RedisServer;
  let sample: SnapshotFixture;
  let servers: TestServer[];
  let key: string;

  beforeAll(async () => {
    redis = await startRedis();
    sample = await createSampleSnapshot();
    key = (
      await issueTestKey(
        { ...sample.env, MMDS_STORAGE: redis.url },
        { scopes: 'observations:read', rateLimit: 100_000 },
      )
    ).plaintext;
    servers = [];
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startTestServer({
          dataDir: sample.dataDir,
          distDir: sample.env.MMDS_DIST_DIR,
          storage: redis.url,
          anonymousLimit: LIMIT,
          trustedProxies: 1,
        }),
      );
    }
  });

  afterAll(async () => {
    for (const server of servers ?? []) await server.close();
    await redis?.stop();
    sample?.remove();
  });

  /** One request; every answer keeps the contract, and only `expected503` may be a 5xx. */
  async function send(
    instance: number,
    headers: Record<string, string>,
    expected503 = false,
  ): Promise<Exchange> {
    const target = '/api/v1/status';
    const response = await fetch(`${servers[instance]!.url}${target}`, { headers });
    const exchange = {
      method: 'GET',
      target,
      status: response.status,
      headers: headerRecord(response.headers),
      body: await response.text(),
    };
    const problems = findContractViolations(exchange).filter((p) => !(expected503 && p === 'status 503'));
    expect(problems).toEqual([]);
    return exchange;
  }

  /** Sends `count` requests for one client IP, alternating instances; returns grants per instance. */
  async function sendAs(ip: string, count: number): Promise<number[]> {
    const granted = [0, 0];
    for (let i = 0; i < count; i++) {
      const answer = await send(i % 2, { 'X-Forwarded-For': ip });
      expect([200, 429], answer.body).toContain(answer.status);
      if (answer.status === 200) granted[i % 2]! += 1;
    }
    return granted;
  }

  async function waitForLogs(event: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let i = 0;
    // Requests drive the probes; they count against a throwaway client IP.
    while (!servers.every((server) => server.logs.some((entry) => entry.event === event))) {
      if (Date.now() > deadline)
        throw new Error(`${event} not logged by both instances within ${timeoutMs} ms`);
      await send(i++ % 2, { 'X-Forwarded-For': '192.0.2.250' });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('limits locally without a 5xx while Redis is down, and shares the limit again after the restart', async () => {
    // Healthy: the limit holds across both instances.
    expect(await sendAs('203.0.113.1', 3 * LIMIT)).toSatisfy(([a, b]: number[]) => a! + b! === LIMIT);

    await redis.stop();
    const outageStarted = Date.now();
    // The client that already spent its quota in Redis, and a fresh one: each instance grants L.
    expect(await sendAs('203.0.113.1', 4 * LIMIT)).toEqual([LIMIT, LIMIT]);
    expect(await sendAs('203.0.113.2', 4 * LIMIT)).toEqual([LIMIT, LIMIT]);
    for (const server of servers) {
      expect(server.logs.filter((entry) => entry.event === 'rate_limit_store_down')).toHaveLength(1);
    }
    // Keyed requests cannot be authenticated: an honest 503, never a 500, never anonymous access.
    const keyedMs: number[] = [];
    for (let i = 0; i < 4; i++) {
      const started = performance.now();
      const answer = await send(i % 2, { Authorization: `Bearer ${key}` }, true);
      keyedMs.push(performance.now() - started);
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body).error.code).toBe('unavailable');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(Date.now() - outageStarted).toBeLessThan(30_000);
    console.info(`outage: keyed 503s answered in ${keyedMs.map((ms) => Math.round(ms)).join(', ')} ms`);

    await redis.restart();
    await waitForLogs('rate_limit_store_up', 20_000);
    expect(await sendAs('203.0.113.3', 3 * LIMIT)).toSatisfy(([a, b]: number[]) => a! + b! === LIMIT);
    const keyed = await send(0, { Authorization: `Bearer ${key}` });
    // Redis restarted empty (no persistence): the key record is gone, so the key is now unknown.
    expect(keyed.status).toBe(401);
    for (const server of servers) {
      expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
      // The Redis client's own errors are logged once per outage, not once per reconnect attempt.
      expect(server.logs.filter((entry) => entry.event === 'redis_error')).toHaveLength(1);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import type { SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { createSampleSnapshot } from '../helpers/snapshot-fixture.ts';
import { findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { issueTestKey } from './helpers/served-sample.ts';

/**
 * A burst of 300 concurrent requests on a fresh key (and on a fresh client IP), spread over two
 * server instances that share one Redis, is granted at most the limit: the Lua sliding log
 * decides atomically, so each grant gets its own X-RateLimit-Remaining and no two instances
 * take the same place. The long suite soaks one client at twice the limit for a minute.
 */

const BURST = 300;
const KEY_LIMIT = 50;
const ANONYMOUS_LIMIT = 40;

describe('a burst across two instances sharing Redis', () => {
  let redis: RedisServer;
  let sample: SnapshotFixture;
  let servers: TestServer[];
  let key: string;

  beforeAll(async () => {
    redis = await startRedis();
    sample = await createSampleSnapshot();
    const env = { ...sample.env, MMDS_STORAGE: redis.url };
    key = (await issueTestKey(env, { scopes: 'observations:read', rateLimit: KEY_LIMIT })).plaintext;
    servers = [];
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startTestServer({
          dataDir: sample.dataDir,
          distDir: sample.env.MMDS_DIST_DIR,
          storage: redis.url,
          anonymousLimit: ANONYMOUS_LIMIT,
          // One trusted proxy: X-Forwarded-For names the client, so each test has a fresh IP.
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

  /** Fires `BURST` requests at once, alternating between the instances. */
  async function burst(headers: Record<string, string>) {
    const answers = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const response = await fetch(`${servers[i % 2]!.url}/api/v1/status`, { headers });
        const exchange = {
          method: 'GET',
          target: '/api/v1/status',
          status: response.status,
          headers: headerRecord(response.headers),
          body: await response.text(),
        };
        expect(findContractViolations(exchange)).toEqual([]);
        return exchange;
      }),
    );
    const granted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(granted.length + refused.length).toBe(BURST);
    for (const answer of answers)
      expect(Number(answer.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
    for (const answer of refused) expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    return {
      granted: granted.length,
      remaining: granted
        .map((answer) => Number(answer.headers['x-ratelimit-remaining']))
        .sort((a, b) => a - b),
    };
  }

  const places = (limit: number) => Array.from({ length: limit }, (_, i) => i);

  it(`grants a fresh key exactly its limit of ${KEY_LIMIT}, each place once`, async () => {
    const { granted, remaining } = await burst({ Authorization: `Bearer ${key}` });
    expect(granted).toBe(KEY_LIMIT);
    expect(remaining).toEqual(places(KEY_LIMIT));
  });

  it(`grants a fresh client IP exactly the anonymous limit of ${ANONYMOUS_LIMIT}`, async () => {
    const { granted, remaining } = await burst({ 'X-Forwarded-For': '198.51.100.7' });
    expect(granted).toBe(ANONYMOUS_LIMIT);
    expect(remaining).toEqual(places(ANONYMOUS_LIMIT));
  });

  it('decided everything in Redis: no instance fell back to its local limiter', () => {
    for (const server of servers) {
      expect(server.logs.filter((entry) => String(entry.event).startsWith('rate_limit_store'))).toEqual([]);
    }
  });
});

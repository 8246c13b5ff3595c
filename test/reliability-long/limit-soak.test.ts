import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLimitSoak, type SoakReport } from '../../scripts/reliability/limit-soak.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { issueTestKey } from '../reliability/helpers/served-sample.ts';

/**
 * scripts/reliability/limit-soak.ts against real servers, both soaks at once: a keyed client at
 * twice its limit (2 a second against 60 a minute) on one instance (in-memory sliding log), and
 * an anonymous client at twice the anonymous limit round-robin over two instances sharing Redis.
 * 90 s each, so that the window fills, refuses, and frees again; then three "wait Retry-After,
 * then try" checks.
 */

const SECONDS = 90;

describe('rate limits under a client at twice the limit', () => {
  let sample: SnapshotFixture;
  let redis: RedisServer;
  let single: TestServer;
  let shared: TestServer[];
  let key: string;

  beforeAll(async () => {
    sample = await createSampleSnapshot();
    redis = await startRedis();
    key = (await issueTestKey(sample.env, { scopes: 'observations:read' })).plaintext;
    single = await startTestServer({ dataDir: sample.dataDir, distDir: sample.env.MMDS_DIST_DIR });
    shared = [];
    for (let i = 0; i < 2; i++)
      shared.push(
        await startTestServer({
          dataDir: sample.dataDir,
          distDir: sample.env.MMDS_DIST_DIR,
          storage: redis.url,
        }),
      );
  });

  afterAll(async () => {
    for (const server of [single, ...(shared ?? [])]) await server?.close();
    await redis?.stop();
    sample?.remove();
  });

  function expectHeld(report: SoakReport, what: string): void {
    console.info(`limit soak, ${what}: ${JSON.stringify(report)}`);
    expect(report.violations, what).toEqual([]);
    expect(report.requests).toBe(SECONDS * 2);
    expect(report.other).toBe(0);
    // The limit was reached, refused, and granted again once the window moved on.
    expect(report.maxGrantedInAnyWindow).toBe(60);
    expect(report.refused).toBeGreaterThan(40);
    expect(report.granted).toBeGreaterThan(60);
    expect(report.minRemaining).toBe(0);
    expect(report.honesty.every((check) => check.status === 200)).toBe(true);
  }

  it(`holds 60 per rolling minute for ${SECONDS} s, keyed on one instance and anonymous across two`, async () => {
    const [keyed, anonymous] = await Promise.all([
      runLimitSoak({
        urls: [single.url],
        key,
        limit: 60,
        ratePerSecond: 2,
        seconds: SECONDS,
        path: '/api/v1/status',
        honestyChecks: 3,
      }),
      runLimitSoak({
        urls: shared.map((server) => server.url),
        key: null,
        limit: 60,
        ratePerSecond: 2,
        seconds: SECONDS,
        path: '/api/v1/status',
        honestyChecks: 3,
      }),
    ]);
    expectHeld(keyed, 'keyed, one instance');
    expectHeld(anonymous, 'anonymous, two instances and Redis');
    for (const server of shared)
      expect(server.logs.filter((e) => String(e.event).startsWith('rate_limit_store'))).toEqual([]);
  }, 300_000);
});

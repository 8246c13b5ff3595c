import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FallbackLimiter, type RateLimitEvent } from '../../../src/rate-limit/fallback-limiter.ts';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';
import { RedisLimiter } from '../../../src/rate-limit/redis-limiter.ts';
import type { Decision } from '../../../src/rate-limit/sliding-log.ts';
import { type RedisServer, startRedis } from '../../helpers/redis-server.ts';

let redis: RedisServer;
const clients: Redis[] = [];

function connect(): Redis {
  const client = new Redis(redis.url);
  // ioredis reports every refused reconnect as an 'error' event; the limiter sees failed commands.
  client.on('error', () => {});
  clients.push(client);
  return client;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis?.stop();
});

describe('RedisLimiter', () => {
  it('makes the same decisions as the memory limiter on random sequences (shared fake clock)', async () => {
    const client = connect();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 2, 7, 13, 60, 61),
        fc.array(
          fc.record({
            // Mostly forward, sometimes exactly one window, now and then a clock that steps back.
            advanceMs: fc.oneof(
              { arbitrary: fc.integer({ min: 0, max: 20_000 }), weight: 8 },
              { arbitrary: fc.constantFrom(59_999, 60_000, 60_001), weight: 1 },
              { arbitrary: fc.integer({ min: -5_000, max: 0 }), weight: 1 },
            ),
            requests: fc.nat(8),
            // Sometimes the key's limit changes between requests.
            lowered: fc.boolean(),
          }),
          { maxLength: 25 },
        ),
        async (limit, steps) => {
          const clock = { ms: Date.UTC(2026, 10, 23) + run * 86_400_000 };
          const key = `seq-${run++}`;
          const shared = new RedisLimiter(client, { now: () => clock.ms, prefix: 'test:seq:' });
          const local = new MemoryLimiter({ now: () => clock.ms });
          for (const { advanceMs, requests, lowered } of steps) {
            clock.ms += advanceMs;
            const stepLimit = lowered ? Math.max(1, limit >> 1) : limit;
            for (let r = 0; r < requests; r++) {
              expect(await shared.consume(key, stepLimit)).toEqual(await local.consume(key, stepLimit));
            }
          }
          // The sorted set never holds more than the limit of the last request.
          expect(await client.zcard(`test:seq:${key}`)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('decides on Redis server time, sets the key TTL to the reset time, and survives SCRIPT FLUSH', async () => {
    const client = connect();
    const shared = new RedisLimiter(client);
    const local = new MemoryLimiter({ now: () => 0 });
    await client.script('FLUSH');
    const started = Date.now();
    const got: Decision[] = [];
    const want: Decision[] = [];
    for (let i = 0; i < 65; i++) {
      got.push(await shared.consume('time', 60));
      want.push(await local.consume('time', 60));
    }
    // Within the first second every whole-second figure is the same on Redis time and a frozen clock.
    expect(Date.now() - started).toBeLessThan(1000);
    expect(got).toEqual(want);
    expect(got[64]).toMatchObject({ allowed: false, remaining: 0, retry_after_s: 60, reset_s: 60 });
    // One entry per accepted request, timed with the microseconds of Redis TIME.
    const entries = await client.zrange('mmds:rl:time', 0, -1, 'WITHSCORES');
    expect(entries).toHaveLength(120);
    expect(entries.filter((_, i) => i % 2 === 1).some((score) => !Number.isInteger(Number(score)))).toBe(
      true,
    );
    const ttl = await client.pttl('mmds:rl:time');
    expect(ttl).toBeGreaterThan(58_000);
    expect(ttl).toBeLessThanOrEqual(60_001);
  });

  it('grants exactly the limit to 300 concurrent requests through two clients', async () => {
    const a = new RedisLimiter(connect());
    const b = new RedisLimiter(connect());
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).consume('concurrent', 60)),
    );
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(60);
    // Each token was handed out once: the remaining counts are 59 down to 0, each seen once.
    expect(allowed.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retry_after_s >= 1 && d.remaining === 0)).toBe(
      true,
    );
  });
});

describe('FallbackLimiter over a real Redis', () => {
  it('keeps answering while redis-server is killed, and returns to Redis after it restarts', async () => {
    const client = connect();
    const events: RateLimitEvent[] = [];
    const limiter = new FallbackLimiter(new RedisLimiter(client, { prefix: 'test:fb:' }), {
      timeoutMs: 200,
      probeIntervalMs: 250,
      log: (event) => events.push(event),
    });
    const timed = async () => {
      const started = Date.now();
      const decision = await limiter.consume('fb', 1000);
      return { decision, ms: Date.now() - started };
    };

    for (let i = 0; i < 5; i++) expect((await timed()).decision.allowed).toBe(true);
    expect(await client.exists('test:fb:fb')).toBe(1);

    await redis.stop();
    const during = [];
    for (let i = 0; i < 30; i++) during.push(await timed());
    expect(during.every(({ decision }) => decision.allowed && decision.limit === 1000)).toBe(true);
    expect(Math.max(...during.map(({ ms }) => ms))).toBeLessThan(1000);
    expect(limiter.degraded).toBe(true);
    expect(events).toEqual([{ event: 'rate_limit_store_down', error: expect.any(String) }]);

    await redis.restart();
    const deadline = Date.now() + 20_000;
    while (limiter.degraded && Date.now() < deadline) {
      await timed();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(limiter.degraded).toBe(false);
    expect(events.map((e) => e.event)).toEqual(['rate_limit_store_down', 'rate_limit_store_up']);
    // The restarted server was empty: the key exists again only because decisions went to Redis.
    await timed();
    expect(await client.exists('test:fb:fb')).toBe(1);
  });
});

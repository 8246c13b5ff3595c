import { describe, expect, it } from 'vitest';
import { FallbackLimiter, type RateLimitEvent } from '../../../src/rate-limit/fallback-limiter.ts';
import type { RateLimiter } from '../../../src/rate-limit/rate-limiter.ts';
import type { Decision } from '../../../src/rate-limit/sliding-log.ts';

const PRIMARY: Decision = { allowed: true, limit: 60, remaining: 12, retry_after_s: 0, reset_s: 48 };

/** A primary store that answers, fails, or never answers, as the test says. */
class FakePrimary implements RateLimiter {
  mode: 'ok' | 'fail' | 'hang' | 'throw' = 'ok';
  calls = 0;
  consume(): Promise<Decision> {
    this.calls++;
    if (this.mode === 'throw') throw new Error('synchronous failure');
    if (this.mode === 'fail') return Promise.reject(new Error('ECONNREFUSED'));
    if (this.mode === 'hang') return new Promise(() => {});
    return Promise.resolve(PRIMARY);
  }
}

function setup() {
  const clock = { ms: Date.UTC(2026, 10, 23) };
  const primary = new FakePrimary();
  const events: RateLimitEvent[] = [];
  const limiter = new FallbackLimiter(primary, {
    now: () => clock.ms,
    timeoutMs: 20,
    probeIntervalMs: 3_000,
    log: (event) => {
      events.push(event);
      throw new Error('a broken logger must not matter');
    },
  });
  return { clock, primary, events, limiter };
}

describe('FallbackLimiter', () => {
  it('passes the primary decision through while it answers', async () => {
    const { limiter, events } = setup();
    expect(await limiter.consume('k', 60)).toEqual(PRIMARY);
    expect(events).toEqual([]);
  });

  for (const mode of ['fail', 'hang', 'throw'] as const) {
    it(`decides locally when the primary ${mode}s, logs once, and probes at most every interval`, async () => {
      const { limiter, primary, events, clock } = setup();
      primary.mode = mode;
      const local = [];
      for (let i = 0; i < 5; i++) local.push(await limiter.consume('k', 2));
      expect(local.map((d) => d.allowed)).toEqual([true, true, false, false, false]);
      expect(local[2]).toMatchObject({ limit: 2, remaining: 0, retry_after_s: 60 });
      expect(limiter.degraded).toBe(true);
      expect(primary.calls).toBe(1);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ event: 'rate_limit_store_down' });

      clock.ms += 2_999;
      await limiter.consume('k', 2);
      expect(primary.calls).toBe(1);
      clock.ms += 1;
      await limiter.consume('k', 2); // a probe, which fails again: still one log line
      expect(primary.calls).toBe(2);
      expect(events).toHaveLength(1);

      primary.mode = 'ok';
      clock.ms += 3_000;
      expect(await limiter.consume('k', 2)).toEqual(PRIMARY);
      expect(limiter.degraded).toBe(false);
      expect(events[1]).toEqual({ event: 'rate_limit_store_up', down_ms: 6_000 });
      expect(await limiter.consume('k', 2)).toEqual(PRIMARY);
      expect(primary.calls).toBe(4);
    });
  }

  it('sends one probe at a time while the others decide locally', async () => {
    const { limiter, primary, clock } = setup();
    primary.mode = 'hang';
    await limiter.consume('k', 60);
    clock.ms += 3_000;
    const answers = await Promise.all(Array.from({ length: 20 }, () => limiter.consume('k', 60)));
    expect(answers.every((d) => d.allowed)).toBe(true);
    expect(primary.calls).toBe(2);
  });

  it('rejects only an invalid limit', async () => {
    const { limiter } = setup();
    await expect(limiter.consume('k', 0)).rejects.toThrow(RangeError);
  });
});

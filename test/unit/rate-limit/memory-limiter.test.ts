import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';
import { decide } from '../../../src/rate-limit/sliding-log.ts';

function fakeClock(start = Date.UTC(2026, 10, 23)) {
  const clock = { ms: start, now: () => clock.ms };
  return clock;
}

describe('MemoryLimiter', () => {
  it('makes the same decisions as decide() on a sequence, per key', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    let log: number[] = [];
    for (const advance of [0, 0, 0, 10, 400, 999, 1, 5_000, 0, 0, 0, 30_000, 61_000, 0, -2_000, 0, 60_000]) {
      clock.ms += advance;
      const { log: next, ...expected } = decide(log, clock.ms, 3);
      log = next;
      expect(await limiter.consume('a', 3)).toEqual(expected);
    }
    expect(await limiter.consume('b', 3)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('agrees with decide() on random sequences, with changing limits and a clock that steps back', async () => {
    // Limits and request counts large enough that logs get pruned in place and compacted.
    const step = fc.record({
      advanceMs: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: -3_000, max: 70_000 })),
      requests: fc.integer({ min: 1, max: 40 }),
      limit: fc.constantFrom(1, 3, 60, 150, 150, 150),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
        const clock = fakeClock();
        const limiter = new MemoryLimiter({ now: clock.now });
        let log: number[] = [];
        for (const { advanceMs, requests, limit } of steps) {
          clock.ms += advanceMs;
          for (let r = 0; r < requests; r++) {
            const { log: next, ...expected } = decide(log, clock.ms, limit);
            log = next;
            expect(await limiter.consume('k', limit)).toEqual(expected);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('drops keys whose quota is whole again', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    for (let i = 0; i < 1000; i++) await limiter.consume(`ip-${i}`, 60);
    expect(limiter.size).toBe(1000);
    clock.ms += 59_999;
    await limiter.consume('late', 60);
    expect(limiter.size).toBe(1001);
    clock.ms += 1;
    await limiter.consume('late', 60);
    expect(limiter.size).toBe(1001 - 256);
    for (let i = 0; i < 10; i++) await limiter.consume('late', 60);
    expect(limiter.size).toBe(1);
    clock.ms += 60_000;
    await limiter.consume('later', 60);
    expect(limiter.size).toBe(1);
  });

  it('holds at most maxKeys, evicting expired keys before live ones', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now, maxKeys: 10 });
    clock.ms += 30_000;
    await limiter.consume('slow', 1); // whole again 60 s after this
    clock.ms -= 30_000; // the clock steps back: the keys behind 'slow' expire before it
    for (let i = 0; i < 9; i++) await limiter.consume(`early-${i}`, 60);
    expect(limiter.size).toBe(10);
    clock.ms += 60_000;
    // The sweep stops at the live 'slow' entry at the front; the full scan at the cap finds the rest.
    await limiter.consume('new', 60);
    expect(limiter.size).toBe(2);
    expect(await limiter.consume('slow', 1)).toMatchObject({ allowed: false, retry_after_s: 30 });
    for (let i = 0; i < 20; i++) await limiter.consume(`flood-${i}`, 60);
    expect(limiter.size).toBe(10);
  });

  it('evicts the least recently counted keys in batches of 1/64 of the cap', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now, maxKeys: 640 });
    for (let i = 0; i < 640; i++) {
      clock.ms += 1;
      await limiter.consume(`ip-${i}`, 1);
    }
    await limiter.consume('ip-0', 1); // refused: a refusal does not make a key recent
    await limiter.consume('new', 1);
    expect(limiter.size).toBe(631);
    // ip-0 .. ip-9 were forgotten, ip-10 was not.
    expect(await limiter.consume('ip-9', 1)).toMatchObject({ allowed: true });
    expect(await limiter.consume('ip-10', 1)).toMatchObject({ allowed: false });
  });

  it('counts refused requests for nothing', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    expect(await limiter.consume('k', 1)).toMatchObject({ allowed: true, reset_s: 60 });
    for (let i = 0; i < 50; i++) {
      clock.ms += 1_000;
      await limiter.consume('k', 1);
    }
    clock.ms += 10_000;
    expect(await limiter.consume('k', 1)).toMatchObject({ allowed: true });
  });

  it('rejects an invalid limit', async () => {
    await expect(new MemoryLimiter().consume('k', 0)).rejects.toThrow(RangeError);
  });
});

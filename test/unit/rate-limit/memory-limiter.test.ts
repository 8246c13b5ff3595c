import { describe, expect, it } from 'vitest';
import { decide, type GcraState } from '../../../src/rate-limit/gcra.ts';
import { MemoryLimiter } from '../../../src/rate-limit/memory-limiter.ts';

function fakeClock(start = Date.UTC(2026, 10, 23)) {
  const clock = { ms: start, now: () => clock.ms };
  return clock;
}

describe('MemoryLimiter', () => {
  it('makes the same decisions as decide() on a sequence, per key', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    let state: GcraState | null = null;
    for (const advance of [0, 0, 0, 10, 400, 999, 1, 5_000, 0, 0, 0, 30_000, 61_000, 0]) {
      clock.ms += advance;
      const expected = decide(state, clock.ms, 3);
      if (expected.allowed) state = expected.state;
      const { state: _, ...visible } = expected;
      expect(await limiter.consume('a', 3)).toEqual(visible);
    }
    expect(await limiter.consume('b', 3)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('drops keys whose quota is whole again', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    for (let i = 0; i < 1000; i++) await limiter.consume(`ip-${i}`, 60);
    expect(limiter.size).toBe(1000);
    clock.ms += 1_000;
    await limiter.consume('late', 60);
    expect(limiter.size).toBeLessThanOrEqual(1000 - 256 + 1);
    for (let i = 0; i < 10; i++) await limiter.consume('late', 60);
    expect(limiter.size).toBe(1);
  });

  it('holds at most maxKeys, evicting expired keys before live ones', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now, maxKeys: 10 });
    await limiter.consume('slow', 1); // whole again after 60 s
    for (let i = 0; i < 9; i++) await limiter.consume(`fast-${i}`, 60_000); // whole again after 1 ms
    expect(limiter.size).toBe(10);
    clock.ms += 5;
    // The sweep stops at the live 'slow' entry at the front; the full scan at the cap finds the rest.
    await limiter.consume('new', 60);
    expect(limiter.size).toBe(2);
    expect(await limiter.consume('slow', 1)).toMatchObject({ allowed: false });
    for (let i = 0; i < 20; i++) await limiter.consume(`flood-${i}`, 60);
    expect(limiter.size).toBe(10);
  });

  it('counts refused requests for nothing', async () => {
    const clock = fakeClock();
    const limiter = new MemoryLimiter({ now: clock.now });
    expect(await limiter.consume('k', 1)).toMatchObject({ allowed: true, reset_s: 60 });
    for (let i = 0; i < 50; i++) await limiter.consume('k', 1);
    clock.ms += 60_000;
    expect(await limiter.consume('k', 1)).toMatchObject({ allowed: true });
  });

  it('rejects an invalid limit', async () => {
    await expect(new MemoryLimiter().consume('k', 0)).rejects.toThrow(RangeError);
  });
});

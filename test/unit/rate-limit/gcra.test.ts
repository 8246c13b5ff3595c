import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, type GcraState } from '../../../src/rate-limit/gcra.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

/** Runs `count` requests at one instant, returning the decisions and the state after them. */
function burst(state: GcraState | null, now: number, limit: number, count: number) {
  const decisions = [];
  for (let i = 0; i < count; i++) {
    const decision = decide(state, now, limit);
    if (decision.allowed) state = decision.state;
    decisions.push(decision);
  }
  return { decisions, state };
}

describe('decide, limit 60', () => {
  it('allows 60 requests at once and refuses the 61st with Retry-After 1', () => {
    const { decisions, state } = burst(null, T0, 60, 61);
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    expect(decisions[60]).toMatchObject({ allowed: false, remaining: 0, retry_after_s: 1, reset_s: 60 });
    expect(decide(state, T0 + 999, 60).allowed).toBe(false);
    expect(decide(state, T0 + 1000, 60)).toMatchObject({ allowed: true, remaining: 0, reset_s: 60 });
  });

  it('never reports negative remaining, however often a refused client retries', () => {
    let { state } = burst(null, T0, 60, 60);
    for (let i = 0; i < 500; i++) {
      const decision = decide(state, T0 + i * 7, 60);
      expect(decision.remaining).toBeGreaterThanOrEqual(0);
      if (decision.allowed) state = decision.state;
    }
  });

  it('is whole again reset_s after the last request', () => {
    const { decisions, state } = burst(null, T0, 60, 10);
    expect(decisions[9]!.reset_s).toBe(10);
    expect(decide(state, T0 + 9_999, 60).remaining).toBe(58);
    expect(decide(state, T0 + 10_000, 60).remaining).toBe(59);
  });

  it('lets a steady client at exactly the rate through forever', () => {
    let state: GcraState | null = null;
    for (let i = 0; i < 1000; i++) {
      const decision = decide(state, T0 + i * 1000, 60);
      expect(decision.allowed).toBe(true);
      state = decision.state;
    }
  });

  it('has no boundary burst, but a full bucket after a quiet minute adds to the refill', () => {
    // The token-bucket bound: limit + floor(d * limit / 60 s) in any interval of length d. A
    // rolling 60 s window can therefore hold 2 * limit - 1 (60 at once, then one per second).
    let { decisions, state } = burst(null, T0, 60, 120);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    let accepted = 60;
    for (let s = 1; s < 60; s++) {
      ({ decisions, state } = burst(state, T0 + s * 1000, 60, 3));
      accepted += decisions.filter((d) => d.allowed).length;
    }
    expect(accepted).toBe(119);
  });

  it('caps the wait at one window when the clock stepped back or the limit was lowered', () => {
    const decision = decide({ tat_ms: T0 + 3_600_000 }, T0, 60);
    expect(decision).toMatchObject({ allowed: false, retry_after_s: 1, reset_s: 60 });
  });

  it('rejects limits that are not whole numbers of requests from 1', () => {
    for (const limit of [0, -1, 1.5, Number.NaN, 2_000_000])
      expect(() => decide(null, T0, limit)).toThrow(RangeError);
  });
});

/** The reference: a log of accepted timestamps and the token-bucket bound, checked on every interval. */
class SlidingLogModel {
  readonly accepted: number[] = [];
  readonly #gridInterval: number;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
    // One request per 60 s / limit, rounded up to the limiter's 1/1024 ms time grid.
    this.#gridInterval = Math.ceil((60_000 * 1024) / limit);
  }

  /** True if one more request at `now` keeps every interval [a, now] within its quota. */
  allows(now: number): boolean {
    for (let i = 0; i < this.accepted.length; i++) {
      const a = this.accepted[i]!;
      if (i > 0 && this.accepted[i - 1] === a) continue;
      const inInterval = this.accepted.length - i + 1;
      if (inInterval > this.#limit + Math.floor(((now - a) * 1024) / this.#gridInterval)) return false;
    }
    return true;
  }

  /** Largest count in an interval [a, b] minus what the nominal rate allows there; <= 0 is within limits. */
  worstExcess(): number {
    let worst = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.accepted.length; i++) {
      for (let j = i; j < this.accepted.length; j++) {
        const span = this.accepted[j]! - this.accepted[i]!;
        worst = Math.max(worst, j - i + 1 - (this.#limit + Math.floor((span * this.#limit) / 60_000)));
      }
    }
    return worst;
  }
}

const step = fc.record({
  advanceMs: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 3_000 }),
    fc.integer({ min: 0, max: 90_000 }),
  ),
  requests: fc.integer({ min: 1, max: 8 }),
});

describe('decide against a sliding-log model (fake clock)', () => {
  it('agrees with the model, and every number it reports is honest', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(7, 13, 60, 61, 97, 1000, 100_000)),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.array(step, { maxLength: 60 }),
        (limit, start, steps) => {
          const model = new SlidingLogModel(limit);
          let state: GcraState | null = null;
          let now = start;
          for (const { advanceMs, requests } of steps) {
            now += advanceMs;
            for (let r = 0; r < requests; r++) {
              const decision = decide(state, now, limit);
              expect(decision.allowed).toBe(model.allows(now));
              expect(decision.remaining).toBeGreaterThanOrEqual(0);
              expect(decision.limit).toBe(limit);
              if (decision.allowed) {
                expect(decision.retry_after_s).toBe(0);
                // `remaining` more requests fit at this instant, and not one more (probed where cheap).
                if (decision.remaining <= 100) {
                  const after = burst(decision.state, now, limit, decision.remaining + 1).decisions;
                  expect(after.filter((d) => d.allowed)).toHaveLength(decision.remaining);
                  expect(after.at(-1)!.allowed).toBe(false);
                }
                // reset_s is when the quota is whole again, and not a second earlier.
                expect(decide(decision.state, now + decision.reset_s * 1000, limit).remaining).toBe(
                  limit - 1,
                );
                if (decision.reset_s > 0) {
                  const early = decide(decision.state, now + (decision.reset_s - 1) * 1000, limit);
                  expect(early.allowed && early.remaining === limit - 1).toBe(false);
                }
                state = decision.state;
                model.accepted.push(now);
              } else {
                // Retry-After is exactly when the next request is accepted.
                expect(decision.retry_after_s).toBeGreaterThanOrEqual(1);
                expect(decide(state, now + decision.retry_after_s * 1000, limit).allowed).toBe(true);
                if (decision.retry_after_s > 1) {
                  expect(decide(state, now + (decision.retry_after_s - 1) * 1000, limit).allowed).toBe(false);
                }
              }
            }
          }
          expect(model.worstExcess()).toBeLessThanOrEqual(0);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

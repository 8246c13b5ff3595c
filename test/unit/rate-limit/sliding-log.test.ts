import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, type LogDecision } from '../../../src/rate-limit/sliding-log.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const MINUTE = 60_000;

/** Sends requests at the given times, one after the other, returning every decision and the final log. */
function send(times: readonly number[], limit: number, log: readonly number[] = []) {
  const decisions: LogDecision[] = [];
  for (const now of times) {
    const decision = decide(log, now, limit);
    log = decision.log;
    decisions.push(decision);
  }
  return { decisions, log };
}

/** Most accepted requests in any rolling window (e - 60 s, e]; the worst window ends at an accepted time. */
function busiestMinute(accepted: readonly number[]): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < accepted.length; last++) {
    while (accepted[first]! <= accepted[last]! - MINUTE) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

const repeat = (count: number, at: (i: number) => number) => Array.from({ length: count }, (_, i) => at(i));

describe('decide, limit 60', () => {
  it('allows 60 requests at once and refuses the 61st until the first has left the window', () => {
    const { decisions, log } = send(
      repeat(61, () => T0),
      60,
    );
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(repeat(60, (i) => 59 - i));
    expect(decisions[60]).toMatchObject({ allowed: false, remaining: 0, retry_after_s: 60, reset_s: 60 });
    expect(decide(log, T0 + MINUTE - 1, 60).allowed).toBe(false);
    // The window is (now - 60 s, now]: the entries at T0 are gone at exactly T0 + 60 s.
    expect(decide(log, T0 + MINUTE, 60)).toMatchObject({ allowed: true, remaining: 59, reset_s: 60 });
  });

  it('rounds a refusal 200 ms after a full burst up to the next whole second', () => {
    const { log } = send(
      repeat(60, () => T0),
      60,
    );
    const refused = decide(log, T0 + 200, 60);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retry_after_s: 60, reset_s: 60 });
    expect(decide(refused.log, T0 + 200 + 59_000, 60).allowed).toBe(false);
    expect(decide(refused.log, T0 + 200 + 60_000, 60).allowed).toBe(true);
  });

  it('gives a client that was quiet for a minute 60 in its next minute, not 119', () => {
    // 120 at once, then 3 a second for 59 s: a token bucket with burst 60 accepts 60 + 59.
    const times = [...repeat(120, () => T0), ...repeat(59 * 3, (i) => T0 + (Math.floor(i / 3) + 1) * 1000)];
    const { decisions } = send(times, 60);
    const accepted = times.filter((_, i) => decisions[i]!.allowed);
    expect(accepted).toHaveLength(60);
    expect(accepted.every((t) => t === T0)).toBe(true);
  });

  it('grants a client sending at twice the rate exactly 60 in every rolling minute', () => {
    const times = repeat(120, (i) => T0 + i * 500);
    const { decisions } = send(times, 60);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);

    // Kept up for five minutes: every window that ends at an accepted request after the first
    // minute holds exactly 60, and no window anywhere holds more.
    const longer = repeat(600, (i) => T0 + i * 500);
    const all = send(longer, 60).decisions;
    const accepted = longer.filter((_, i) => all[i]!.allowed);
    expect(busiestMinute(accepted)).toBe(60);
    for (const end of accepted.filter((t) => t >= T0 + MINUTE)) {
      expect(accepted.filter((t) => t > end - MINUTE && t <= end)).toHaveLength(60);
    }
    expect(accepted).toHaveLength(300);
  });

  it('lets a steady client at exactly the rate through forever', () => {
    const { decisions } = send(
      repeat(1000, (i) => T0 + i * 1000),
      60,
    );
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.at(-1)).toMatchObject({ remaining: 0, reset_s: 60 });
  });

  it('never reports negative remaining, however often a refused client retries', () => {
    const { decisions } = send(
      repeat(560, (i) => T0 + i * 7),
      60,
    );
    expect(decisions.every((d) => d.remaining >= 0)).toBe(true);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
  });

  it('is whole again reset_s after the newest request, not a second earlier', () => {
    const { decisions, log } = send([...repeat(9, () => T0), T0 + 500], 60);
    expect(decisions[9]).toMatchObject({ remaining: 50, reset_s: 60 });
    expect(decide(log, T0 + 59_500, 60).remaining).toBe(49);
    expect(decide(log, T0 + 60_000, 60).remaining).toBe(58);
    expect(decide(log, T0 + 60_500, 60).remaining).toBe(59);
  });
});

describe('decide, unusual logs', () => {
  it('keeps the newest `limit` entries of a log written under a higher limit', () => {
    const log = repeat(10, (i) => T0 + i * 1000);
    const refused = decide(log, T0 + 10_000, 5);
    // Five entries must leave before a place is free: the sixth oldest, at T0 + 5 s, leaves last.
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retry_after_s: 55, reset_s: 59 });
    expect(refused.log).toEqual(log.slice(5));
    expect(decide(log, T0 + 64_999, 5).allowed).toBe(false);
    expect(decide(log, T0 + 65_000, 5)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('counts entries from a clock that stepped back as now, so no wait exceeds one window', () => {
    const refused = decide([T0 + 3_600_000], T0, 1);
    expect(refused).toMatchObject({ allowed: false, retry_after_s: 60, reset_s: 60 });
    expect(refused.log).toEqual([T0]);
    expect(decide(refused.log, T0 + MINUTE, 1).allowed).toBe(true);
  });

  it('rejects limits that are not whole numbers of requests from 1', () => {
    for (const limit of [0, -1, 1.5, Number.NaN, 2_000_000])
      expect(() => decide([], T0, limit)).toThrow(RangeError);
  });
});

const step = fc.record({
  advanceMs: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 3_000 }),
    fc.integer({ min: 0, max: 90_000 }),
    // Waits one ms either side of a window or a whole second, where rounding mistakes show.
    fc.constantFrom(MINUTE - 1, MINUTE, MINUTE + 1, 58_999, 999, 1_001),
  ),
  requests: fc.integer({ min: 1, max: 8 }),
});

describe('decide against an exact model (fake clock)', () => {
  it('never exceeds the limit in any rolling minute, and every number it reports is honest', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(7, 13, 60, 61, 97, 1000, 100_000)),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.array(step, { maxLength: 60 }),
        (limit, start, steps) => {
          // The model: every accepted time, never pruned.
          const accepted: number[] = [];
          let log: number[] = [];
          let now = start;
          for (const { advanceMs, requests } of steps) {
            now += advanceMs;
            for (let r = 0; r < requests; r++) {
              const inWindow = accepted.filter((t) => t > now - MINUTE);
              const decision = decide(log, now, limit);
              expect(decision.allowed).toBe(inWindow.length < limit);
              expect(decision.limit).toBe(limit);
              expect(decision.remaining).toBe(limit - inWindow.length - (decision.allowed ? 1 : 0));
              expect(decision.remaining).toBeGreaterThanOrEqual(0);
              if (decision.allowed) {
                expect(decision.retry_after_s).toBe(0);
                // reset_s is when the quota is whole again, and not a second earlier.
                expect(decide(decision.log, now + decision.reset_s * 1000, limit).remaining).toBe(limit - 1);
                const early = decide(decision.log, now + (decision.reset_s - 1) * 1000, limit);
                expect(early.allowed && early.remaining === limit - 1).toBe(false);
                accepted.push(now);
              } else {
                // The exact wait: until the entry whose leaving frees a place is out of the window.
                const waitMs = inWindow[inWindow.length - limit]! + MINUTE - now;
                expect(decision.retry_after_s).toBe(Math.max(1, Math.ceil(waitMs / 1000)));
                // Retry-After is honest: a request then is accepted if nothing happened in between.
                expect(decide(decision.log, now + decision.retry_after_s * 1000, limit).allowed).toBe(true);
                expect(decide(decision.log, now + waitMs, limit).allowed).toBe(true);
                expect(decide(decision.log, now + waitMs - 1, limit).allowed).toBe(false);
                if (decision.retry_after_s > 1) {
                  const early = decide(decision.log, now + (decision.retry_after_s - 1) * 1000, limit);
                  expect(early.allowed).toBe(false);
                }
              }
              expect(decision.log.length).toBeLessThanOrEqual(limit);
              log = decision.log;
            }
          }
          expect(busiestMinute(accepted)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  RATE_LIMIT_FIELDS,
  rateLimitHeaders,
  writeRateLimitValues,
} from '../../../src/rate-limit/headers.ts';
import { decide } from '../../../src/rate-limit/sliding-log.ts';

const T0 = Date.UTC(2026, 10, 23);

describe('rateLimitHeaders', () => {
  it('describes an allowed request', () => {
    let log: number[] = [];
    for (let i = 0; i < 17; i++) log = decide(log, T0, 60).log;
    expect(rateLimitHeaders(decide(log, T0 + 500, 60))).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '60',
      'RateLimit-Policy': '"default";q=60;w=60',
      RateLimit: '"default";r=42;t=60',
    });
  });

  it('adds Retry-After to a refusal, and keeps the effective window within it', () => {
    let log: number[] = [];
    for (let i = 0; i < 60; i++) log = decide(log, T0, 60).log;
    const headers = rateLimitHeaders(decide(log, T0 + 200, 60), 60, 'anonymous');
    expect(headers).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '60',
      'RateLimit-Policy': '"anonymous";q=60;w=60',
      RateLimit: '"anonymous";r=0;t=60',
      'Retry-After': '60',
    });
  });

  it('puts the Retry-After value, not the reset time, in `t` of a refusal', () => {
    // 30 requests at T0 and 30 at T0 + 10 s: at T0 + 20 s a place frees in 40 s, the quota in 50 s.
    let log: number[] = [];
    for (let i = 0; i < 60; i++) log = decide(log, i < 30 ? T0 : T0 + 10_000, 60).log;
    expect(rateLimitHeaders(decide(log, T0 + 20_000, 60))).toMatchObject({
      'X-RateLimit-Reset': '50',
      RateLimit: '"default";r=0;t=40',
      'Retry-After': '40',
    });
  });

  it('escapes the policy name as a structured-field string and refuses control characters', () => {
    const decision = decide([], T0, 5);
    expect(rateLimitHeaders(decision, 60, 'a"b\\c')['RateLimit-Policy']).toBe('"a\\"b\\\\c";q=5;w=60');
    expect(() => rateLimitHeaders(decision, 60, 'a\r\nb')).toThrow(RangeError);
  });

  it('fills a flat header list with exactly the values of rateLimitHeaders (the fast path does)', () => {
    let log: number[] = [];
    for (let i = 0; i < 75; i++) {
      const decision = decide(log, T0 + i * 100, 60);
      log = decision.log;
      const list = ['x', 'y', ...RATE_LIMIT_FIELDS.flatMap((name) => [name, ''])];
      writeRateLimitValues(list, 3, decision);
      const expected = rateLimitHeaders(decision);
      for (const name of RATE_LIMIT_FIELDS) expect(list[list.indexOf(name) + 1], name).toBe(expected[name]);
      expect(list.slice(0, 2)).toEqual(['x', 'y']);
    }
  });
});

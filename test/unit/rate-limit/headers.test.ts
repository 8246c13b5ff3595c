import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/rate-limit/gcra.ts';
import { rateLimitHeaders } from '../../../src/rate-limit/headers.ts';

const T0 = Date.UTC(2026, 10, 23);

describe('rateLimitHeaders', () => {
  it('describes an allowed request', () => {
    let state = null;
    for (let i = 0; i < 17; i++) state = decide(state, T0, 60).state;
    expect(rateLimitHeaders(decide(state, T0 + 500, 60))).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '18',
      'RateLimit-Policy': '"default";q=60;w=60',
      RateLimit: '"default";r=42;t=18',
    });
  });

  it('adds Retry-After to a refusal, and keeps the effective window within it', () => {
    let state = null;
    for (let i = 0; i < 60; i++) state = decide(state, T0, 60).state;
    const headers = rateLimitHeaders(decide(state, T0 + 200, 60), 60, 'anonymous');
    expect(headers).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '60',
      'RateLimit-Policy': '"anonymous";q=60;w=60',
      RateLimit: '"anonymous";r=0;t=1',
      'Retry-After': '1',
    });
  });

  it('escapes the policy name as a structured-field string and refuses control characters', () => {
    const decision = decide(null, T0, 5);
    expect(rateLimitHeaders(decision, 60, 'a"b\\c')['RateLimit-Policy']).toBe('"a\\"b\\\\c";q=5;w=60');
    expect(() => rateLimitHeaders(decision, 60, 'a\r\nb')).toThrow(RangeError);
  });
});

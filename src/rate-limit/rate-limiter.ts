import type { Decision } from './gcra.ts';

export type { Decision } from './gcra.ts';

/**
 * What the server calls once per request: count one request for `key` (an IP or a key id,
 * namespaced by the caller) under a limit of `limitPerMinute`, and return the decision that every
 * rate-limit header is computed from. Refused requests are not counted.
 */
export interface RateLimiter {
  consume(key: string, limitPerMinute: number): Promise<Decision>;
}

/** Strips the stored state from a GCRA decision, leaving what the caller may see. */
export function toDecision(decision: Decision): Decision {
  const { allowed, limit, remaining, retry_after_s, reset_s } = decision;
  return { allowed, limit, remaining, retry_after_s, reset_s };
}

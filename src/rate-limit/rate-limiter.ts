import type { Decision } from './sliding-log.ts';

export type { Decision } from './sliding-log.ts';

/**
 * What the server calls once per request: count one request for `key` (an IP or a key id,
 * namespaced by the caller) under a limit of `limitPerMinute`, and return the decision that every
 * rate-limit header is computed from. Refused requests are not counted.
 */
export interface RateLimiter {
  consume(key: string, limitPerMinute: number): Promise<Decision>;
}

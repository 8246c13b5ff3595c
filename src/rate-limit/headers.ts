import type { Decision } from './sliding-log.ts';

/**
 * The IETF fields follow draft-ietf-httpapi-ratelimit-headers-11 (May 2026), where both fields
 * are Structured Field Lists of named items:
 *
 *   RateLimit-Policy: "default";q=60;w=60      quota q per window w seconds
 *   RateLimit: "default";r=42;t=18              r available now, t seconds of effective window
 *
 * (Drafts up to -07 used `RateLimit-Policy: 60;w=60` and `RateLimit: limit=60, remaining=42,
 * reset=18`; clients written for those will not parse -08 and later, and vice versa.)
 *
 * `t` is the reset time on allowed responses. On a refusal it is the Retry-After value: the draft
 * says Retry-After should not point earlier than the end of the effective window, and r=0 holds
 * exactly until the next request is allowed.
 */
export const RATELIMIT_DRAFT = 'draft-ietf-httpapi-ratelimit-headers-11';

const POLICY_NAME = /^[\x20-\x7e]{1,64}$/;

/**
 * The rate-limit fields of an allowed response, in the order `rateLimitHeaders` gives them (a
 * refusal adds Retry-After). `writeRateLimitValues` fills the values of a flat name/value list.
 */
export const RATE_LIMIT_FIELDS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
] as const;

const DEFAULT_POLICY = '"default"';

/**
 * Writes the values of the five RATE_LIMIT_FIELDS for a decision under the default policy (60 s,
 * "default") into a flat `[name, value, name, value, ...]` list whose first value slot is `index`:
 * the server's public fast path fills precomputed header lists this way, without an object per
 * request. The values are exactly those of `rateLimitHeaders(decision)`.
 */
export function writeRateLimitValues(target: string[], index: number, decision: Decision): void {
  const remaining = Math.max(0, decision.remaining);
  target[index] = String(decision.limit);
  target[index + 2] = String(remaining);
  target[index + 4] = String(decision.reset_s);
  target[index + 6] = `${DEFAULT_POLICY};q=${decision.limit};w=60`;
  target[index + 8] =
    `${DEFAULT_POLICY};r=${remaining};t=${decision.allowed ? decision.reset_s : decision.retry_after_s}`;
}

/**
 * Returns the rate-limit response headers of one decision: X-RateLimit-Limit, -Remaining and
 * -Reset, the draft's RateLimit-Policy and RateLimit, and Retry-After when it was refused.
 */
export function rateLimitHeaders(
  decision: Decision,
  policyWindowS = 60,
  policyName = 'default',
): Record<string, string> {
  if (!POLICY_NAME.test(policyName)) throw new RangeError(`bad rate-limit policy name: ${policyName}`);
  const name = `"${policyName.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const remaining = Math.max(0, decision.remaining);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(decision.reset_s),
    'RateLimit-Policy': `${name};q=${decision.limit};w=${policyWindowS}`,
    RateLimit: `${name};r=${remaining};t=${decision.allowed ? decision.reset_s : decision.retry_after_s}`,
  };
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, decision.retry_after_s));
  return headers;
}

/**
 * Sliding log: the rate limiter's one decision rule.
 *
 * Per key the limiter keeps the times of its accepted requests. The window of a request at `now`
 * is (now - 60 s, now]: an entry at `t <= now - 60 s` has left it. A request is accepted when
 * fewer than `limit` entries are in the window, and only accepted requests are logged. So no
 * rolling 60 s window ever holds more than `limit` accepted requests, and `limit` requests at one
 * instant all pass. The price is memory: up to `limit` timestamps per key.
 *
 * The same rule runs as Lua inside Redis (redis-limiter.ts); keep the two in step.
 */

/** The policy window: `limit` requests in any rolling window of this many milliseconds. */
export const WINDOW_MS = 60_000;

/** Largest limit accepted: a key's log holds up to `limit` timestamps, so this bounds its memory. */
export const MAX_LIMIT_PER_MINUTE = 100_000;

/** One rate-limit decision, the single source of every rate-limit header. */
export interface Decision {
  allowed: boolean;
  /** Requests per minute of the policy that decided. */
  limit: number;
  /** Requests that would be allowed right now after this one; never negative. */
  remaining: number;
  /** Refused: whole seconds until a request will be allowed (at least 1). Allowed: 0. */
  retry_after_s: number;
  /** Whole seconds until the quota is whole again (`remaining` back at `limit`). */
  reset_s: number;
}

/** A decision plus the log to store for the key. */
export interface LogDecision extends Decision {
  /** Accepted times still in the window, ascending, at most `limit`, plus `now` if allowed. */
  log: number[];
}

/**
 * Decides one request at `nowMs` (epoch ms) against the key's log of accepted times (ascending).
 * Pure: the caller stores the returned `log`. Entries later than `now` (a clock that stepped back)
 * count as `now`, so a wait never exceeds one window; only the newest `limit` entries are kept,
 * which decides every later request under the same limit exactly as the full log would.
 */
export function decide(log: readonly number[], nowMs: number, limitPerMinute: number): LogDecision {
  assertLimit(limitPerMinute);
  const cutoff = nowMs - WINDOW_MS;
  let first = 0;
  while (first < log.length && log[first]! <= cutoff) first++;
  first = Math.max(first, log.length - limitPerMinute);
  const kept = log.slice(first).map((t) => Math.min(t, nowMs));
  const allowed = kept.length < limitPerMinute;
  if (allowed) kept.push(nowMs);
  const decision = summarizeWindow(kept.length, kept[0]!, kept.at(-1)!, nowMs, limitPerMinute, allowed);
  return { ...decision, log: kept };
}

/**
 * Returns the decision for a window that, after this request, holds `count` accepted times from
 * `oldestMs` to `newestMs` (all within (now - 60 s, now], `count` at most `limit`, including `now`
 * if this request was allowed). Shared by `decide` and the in-process limiter, which keeps its log
 * in place.
 */
export function summarizeWindow(
  count: number,
  oldestMs: number,
  newestMs: number,
  nowMs: number,
  limitPerMinute: number,
  allowed: boolean,
): Decision {
  // Refused means the window is full: the oldest entry is the one whose leaving frees a place.
  const retryAfterMs = allowed ? 0 : oldestMs + WINDOW_MS - nowMs;
  const resetMs = count === 0 ? 0 : newestMs + WINDOW_MS - nowMs;
  return makeDecision(allowed, limitPerMinute, limitPerMinute - count, retryAfterMs, resetMs);
}

/**
 * Returns the decision from its millisecond figures: the TypeScript and Redis limiters both end
 * here, so they round the same way.
 */
export function makeDecision(
  allowed: boolean,
  limitPerMinute: number,
  remaining: number,
  retryAfterMs: number,
  resetMs: number,
): Decision {
  return {
    allowed,
    limit: limitPerMinute,
    remaining: Math.max(0, remaining),
    retry_after_s: allowed ? 0 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
    reset_s: Math.max(0, Math.ceil(resetMs / 1000)),
  };
}

/** Throws unless the limit is a whole number of requests per minute from 1 to MAX_LIMIT_PER_MINUTE. */
export function assertLimit(limitPerMinute: number): void {
  if (!Number.isInteger(limitPerMinute) || limitPerMinute < 1 || limitPerMinute > MAX_LIMIT_PER_MINUTE) {
    throw new RangeError(
      `rate limit must be a whole number of requests per minute from 1 to ${MAX_LIMIT_PER_MINUTE}, got ${limitPerMinute}`,
    );
  }
}

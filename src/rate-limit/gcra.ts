/**
 * GCRA (generic cell rate algorithm): the rate limiter's one decision function.
 *
 * It behaves as a token bucket that holds `limit` requests and refills `limit` per 60 s, but it
 * stores a single number per key, the theoretical arrival time (TAT): the instant at which the
 * bucket would be full again if nothing else arrived. A request is allowed when, after adding one
 * emission interval T = 60 s / limit to the TAT, the TAT is at most 60 s ahead of now.
 *
 * Bounds: at most `limit` requests at one instant (no 2x burst at a window boundary), and at most
 * `limit + floor(d * limit / 60 s)` in any interval of length d. That is the token bucket bound:
 * after a quiet minute a client may spend its full bucket and then the refill, so a rolling
 * 60 s window can see up to 2 * limit - 1; the sustained rate is `limit` per minute.
 *
 * The same arithmetic runs as Lua inside Redis (redis-limiter.ts); keep the two in step.
 */

/** The policy window: `limit` requests per this many milliseconds. */
export const WINDOW_MS = 60_000;

/**
 * Times inside the algorithm are multiples of 1/1024 ms, so every sum and comparison is exact in
 * a double (and in Redis' Lua doubles) until the year 2248, and the TS and Lua versions agree to
 * the bit. The emission interval is rounded up to that grid, which never grants more than the
 * nominal rate (at the largest key limit, 100 000/min, it grants 0.1% less).
 */
export const TIME_GRID_PER_MS = 1024;

/** Above this the 1/1024 ms grid would round the emission interval by more than 2%. */
export const MAX_LIMIT_PER_MINUTE = 1_000_000;

/** What the limiter keeps per key: the theoretical arrival time in epoch milliseconds. */
export interface GcraState {
  tat_ms: number;
}

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

/** A decision plus the state to store for the key. */
export interface GcraDecision extends Decision {
  state: GcraState;
}

/** Returns the emission interval (milliseconds per request) of a limit, on the exact time grid. */
export function getEmissionIntervalMs(limitPerMinute: number): number {
  assertLimit(limitPerMinute);
  return Math.ceil((WINDOW_MS * TIME_GRID_PER_MS) / limitPerMinute) / TIME_GRID_PER_MS;
}

/**
 * Decides one request at `nowMs` (integer epoch ms) against the key's state (`null` for a key
 * never seen or expired). Pure: the caller stores `state` only when it wants the request counted,
 * which the limiters do for allowed requests only (a refused request costs nothing).
 */
export function decide(state: GcraState | null, nowMs: number, limitPerMinute: number): GcraDecision {
  const interval = getEmissionIntervalMs(limitPerMinute);
  const burst = interval * limitPerMinute;
  // A clock that stepped back, or a lowered limit, must not push the penalty past one full window.
  const tat = Math.min(Math.max(state?.tat_ms ?? nowMs, nowMs), nowMs + burst);
  const nextTat = tat + interval;
  const allowAt = nextTat - burst;
  if (nowMs < allowAt) {
    return {
      allowed: false,
      limit: limitPerMinute,
      remaining: 0,
      retry_after_s: Math.ceil((allowAt - nowMs) / 1000),
      reset_s: Math.ceil((tat - nowMs) / 1000),
      state: { tat_ms: tat },
    };
  }
  return {
    allowed: true,
    limit: limitPerMinute,
    remaining: Math.floor((burst - (nextTat - nowMs)) / interval),
    retry_after_s: 0,
    reset_s: Math.ceil((nextTat - nowMs) / 1000),
    state: { tat_ms: nextTat },
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

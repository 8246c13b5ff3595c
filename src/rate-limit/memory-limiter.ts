import type { Decision } from './gcra.ts';
import { decide } from './gcra.ts';
import { type RateLimiter, toDecision } from './rate-limiter.ts';

/** Options of a MemoryLimiter. */
export interface MemoryLimiterOptions {
  /** The clock, epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** Most keys held at once (default 100 000). */
  maxKeys?: number;
}

/** Most expired entries dropped per call by the incremental sweep, to bound one call's latency. */
const SWEEP_STEP = 256;
/** A full scan for expired entries at the cap runs at most this often. */
const FULL_SWEEP_INTERVAL_MS = 1_000;

/**
 * GCRA counters of one process, in a Map from key to TAT (epoch ms). An entry whose TAT has
 * passed means the same as no entry (a whole quota), so expired entries are dropped:
 *
 * - each allowed request moves its key to the end of the Map, so the front holds the keys
 *   counted longest ago; every call drops expired entries from the front until it meets a live
 *   one. An entry outlives its expiry by at most one window, so memory follows the key rate.
 * - at `maxKeys`, a new key first triggers a full scan for expired entries (at most once a second,
 *   so a flood of new keys cannot make every request O(n)), then evicts the least recently counted
 *   keys. Evicting a live key forgets its count: bounded memory wins over exactness under a flood
 *   of distinct keys.
 */
export class MemoryLimiter implements RateLimiter {
  readonly #tats = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxKeys: number;
  #lastFullSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxKeys = Math.max(1, options.maxKeys ?? 100_000);
  }

  /** Counts one request for the key and returns the decision. */
  consume(key: string, limitPerMinute: number): Promise<Decision> {
    try {
      return Promise.resolve(this.consumeNow(key, limitPerMinute));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The synchronous form of `consume`, for callers that already hold the event loop. */
  consumeNow(key: string, limitPerMinute: number): Decision {
    const now = this.#now();
    this.#sweepFront(now);
    const tat = this.#tats.get(key);
    const result = decide(tat !== undefined && tat > now ? { tat_ms: tat } : null, now, limitPerMinute);
    if (result.allowed) {
      if (tat === undefined) this.#makeRoom(now);
      else this.#tats.delete(key);
      this.#tats.set(key, result.state.tat_ms);
    }
    return toDecision(result);
  }

  /** Number of keys held (expired ones may linger until swept). */
  get size(): number {
    return this.#tats.size;
  }

  #sweepFront(now: number): void {
    let steps = 0;
    for (const [key, tat] of this.#tats) {
      if (tat > now || steps++ >= SWEEP_STEP) return;
      this.#tats.delete(key);
    }
  }

  #makeRoom(now: number): void {
    if (this.#tats.size < this.#maxKeys) return;
    if (now - this.#lastFullSweepMs >= FULL_SWEEP_INTERVAL_MS) {
      this.#lastFullSweepMs = now;
      for (const [key, tat] of this.#tats) if (tat <= now) this.#tats.delete(key);
    }
    for (const key of this.#tats.keys()) {
      if (this.#tats.size < this.#maxKeys) return;
      this.#tats.delete(key);
    }
  }
}

import type { RateLimiter } from './rate-limiter.ts';
import type { Decision } from './sliding-log.ts';
import { assertLimit, summarizeWindow, WINDOW_MS } from './sliding-log.ts';

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
/** At `maxKeys`, a new key evicts this fraction of the keys (at least one) at once. */
const EVICT_FRACTION = 64;
/** Pruned slots at the front of a log are cut off once there are this many and at least as many as live ones. */
const COMPACT_AT = 64;

/**
 * One key's log: accepted times `times[head..]`, ascending; slots before `head` are pruned. Logs
 * are also linked in the order their keys were last counted (`older` at the front).
 */
interface KeyLog {
  key: string;
  times: number[];
  head: number;
  older: KeyLog | null;
  newer: KeyLog | null;
}

/**
 * Sliding logs of one process, in a Map from key to the times of its accepted requests (the
 * rule is `decide` in sliding-log.ts, applied in place so a request costs O(1) amortised even at
 * large limits). A key holds at most `limit` live timestamps. A key whose newest entry has left
 * the window means the same as no entry (a whole quota), so such keys are dropped:
 *
 * - each allowed request moves its key to the end of a linked list of the logs, so the front
 *   holds the keys counted longest ago; a call at or after the front key's expiry drops expired
 *   keys from the front until it meets a live one. A key outlives its expiry by at most one
 *   window, so memory follows the key rate. (The order was once the Map's own, each request
 *   deleting and re-adding its key: V8 keeps deleted entries in their hash chain until it
 *   rehashes, so in a Map of 40,000 client addresses re-adding a busy key cost microseconds,
 *   most of a keyed request's CPU in the benchmark.)
 * - at `maxKeys`, a new key first triggers a full scan for expired keys (at most once a second,
 *   so a flood of new keys cannot make every request O(n); it finds what the front sweep cannot
 *   after the clock stepped back), then evicts the least recently counted 1/64 of the keys (at
 *   least one). Evicting a live
 *   key forgets its count: bounded memory wins over exactness under a flood of distinct keys.
 */
export class MemoryLimiter implements RateLimiter {
  readonly #logs = new Map<string, KeyLog>();
  readonly #now: () => number;
  readonly #maxKeys: number;
  /** The log counted longest ago, and the one counted last. */
  #oldest: KeyLog | null = null;
  #newest: KeyLog | null = null;
  #lastFullSweepMs = Number.NEGATIVE_INFINITY;
  /** No key expires before this while the clock runs forward: until then the sweep has nothing to do. */
  #sweepAtMs = Number.POSITIVE_INFINITY;

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
    assertLimit(limitPerMinute);
    const now = this.#now();
    this.#sweepFront(now);
    let log = this.#logs.get(key);
    if (log) prune(log, now, limitPerMinute);
    const allowed = !log || log.times.length - log.head < limitPerMinute;
    if (allowed) {
      if (log) this.#unlink(log);
      else {
        this.#makeRoom(now);
        log = { key, times: [], head: 0, older: null, newer: null };
        this.#logs.set(key, log);
      }
      log.times.push(now);
      this.#append(log);
    }
    const { times, head } = log!;
    this.#sweepAtMs = Math.min(this.#sweepAtMs, times.at(-1)! + WINDOW_MS);
    return summarizeWindow(times.length - head, times[head]!, times.at(-1)!, now, limitPerMinute, allowed);
  }

  /** Number of keys held (expired ones may linger until swept). */
  get size(): number {
    return this.#logs.size;
  }

  #sweepFront(now: number): void {
    // Runs only when the front key may have expired: most calls do nothing here.
    if (now < this.#sweepAtMs) return;
    let steps = 0;
    for (let log = this.#oldest; log !== null; log = this.#oldest) {
      if (!isExpired(log, now)) {
        this.#sweepAtMs = log.times.at(-1)! + WINDOW_MS;
        return;
      }
      if (steps++ >= SWEEP_STEP) {
        this.#sweepAtMs = now;
        return;
      }
      this.#drop(log);
    }
    this.#sweepAtMs = Number.POSITIVE_INFINITY;
  }

  #makeRoom(now: number): void {
    if (this.#logs.size < this.#maxKeys) return;
    if (now - this.#lastFullSweepMs >= FULL_SWEEP_INTERVAL_MS) {
      this.#lastFullSweepMs = now;
      for (let log = this.#oldest; log !== null; ) {
        const newer: KeyLog | null = log.newer;
        if (isExpired(log, now)) this.#drop(log);
        log = newer;
      }
    }
    // Evict a batch: the least recently counted keys, from the front.
    const keep = this.#maxKeys - Math.ceil(this.#maxKeys / EVICT_FRACTION);
    while (this.#logs.size > keep && this.#oldest !== null) this.#drop(this.#oldest);
  }

  #drop(log: KeyLog): void {
    this.#unlink(log);
    this.#logs.delete(log.key);
  }

  #unlink(log: KeyLog): void {
    if (log.older) log.older.newer = log.newer;
    else this.#oldest = log.newer;
    if (log.newer) log.newer.older = log.older;
    else this.#newest = log.older;
    log.older = null;
    log.newer = null;
  }

  #append(log: KeyLog): void {
    log.older = this.#newest;
    if (this.#newest) this.#newest.newer = log;
    else this.#oldest = log;
    this.#newest = log;
  }
}

/** True once the newest entry has left the window: the key's quota is whole. */
function isExpired(log: KeyLog, now: number): boolean {
  return log.times.length === log.head || log.times.at(-1)! <= now - WINDOW_MS;
}

/** Drops entries that left the window or exceed the limit, and counts later entries as now, as `decide` does. */
function prune(log: KeyLog, now: number, limitPerMinute: number): void {
  const { times } = log;
  const cutoff = now - WINDOW_MS;
  let head = log.head;
  while (head < times.length && times[head]! <= cutoff) head++;
  head = Math.max(head, times.length - limitPerMinute);
  // A clock that stepped back: entries after now count as now, so no wait exceeds one window.
  for (let i = times.length - 1; i >= head && times[i]! > now; i--) times[i] = now;
  if (head === times.length) {
    times.length = 0;
    head = 0;
  } else if (head >= COMPACT_AT && head * 2 >= times.length) {
    // Copies at most as many live entries as were pruned since the last cut: O(1) amortised.
    times.splice(0, head);
    head = 0;
  }
  log.head = head;
}

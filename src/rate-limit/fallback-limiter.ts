import { MemoryLimiter } from './memory-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Decision } from './sliding-log.ts';
import { assertLimit } from './sliding-log.ts';

/** What the fallback limiter reports: once when the shared store fails, once when it is back. */
export type RateLimitEvent =
  | { event: 'rate_limit_store_down'; error: string }
  | { event: 'rate_limit_store_up'; down_ms: number };

/** Options of a FallbackLimiter. */
export interface FallbackLimiterOptions {
  /** The local limiter used while the primary is down (default: a MemoryLimiter on `now`). */
  local?: RateLimiter;
  /** A primary answer slower than this counts as a failure (default 200 ms). */
  timeoutMs?: number;
  /** While down, try the primary again at most this often (default 5 000 ms). */
  probeIntervalMs?: number;
  /** The clock, epoch ms (default `Date.now`). */
  now?: () => number;
  /** Receives the outage events; whatever it throws is ignored. */
  log?: (event: RateLimitEvent) => void;
}

/**
 * Wraps the shared limiter (Redis) so that it can never fail a request: on an error or a slow
 * answer the instance decides with its own local limiter, logs the outage once, and while down
 * sends one probe request to the primary at most every `probeIntervalMs` (never a queue of them,
 * which would pile up in the client's offline queue); the first probe that succeeds switches back.
 * Local decisions are per instance, so during an outage the effective limit is `limit` per
 * instance. It rejects only for an invalid limit (a programming error), never for a store fault.
 */
export class FallbackLimiter implements RateLimiter {
  readonly #primary: RateLimiter;
  readonly #local: RateLimiter;
  readonly #timeoutMs: number;
  readonly #probeIntervalMs: number;
  readonly #now: () => number;
  readonly #log: (event: RateLimitEvent) => void;
  #downSinceMs: number | null = null;
  #lastProbeMs = 0;
  #probing = false;

  constructor(primary: RateLimiter, options: FallbackLimiterOptions = {}) {
    this.#primary = primary;
    this.#now = options.now ?? Date.now;
    this.#local = options.local ?? new MemoryLimiter({ now: this.#now });
    this.#timeoutMs = options.timeoutMs ?? 200;
    this.#probeIntervalMs = options.probeIntervalMs ?? 5_000;
    this.#log = options.log ?? (() => {});
  }

  /** True while decisions are made locally because the primary failed. */
  get degraded(): boolean {
    return this.#downSinceMs !== null;
  }

  /** Counts one request, in the primary when it answers in time, else locally. */
  async consume(key: string, limitPerMinute: number): Promise<Decision> {
    assertLimit(limitPerMinute);
    const probe = this.#downSinceMs !== null;
    if (probe) {
      if (this.#probing || this.#now() - this.#lastProbeMs < this.#probeIntervalMs) {
        return this.#local.consume(key, limitPerMinute);
      }
      this.#probing = true;
      this.#lastProbeMs = this.#now();
    }
    try {
      const decision = await this.#callPrimary(key, limitPerMinute);
      // Only a probe ends an outage: a call that was already in flight when it began proves little.
      if (probe && this.#downSinceMs !== null) {
        this.#emit({ event: 'rate_limit_store_up', down_ms: this.#now() - this.#downSinceMs });
        this.#downSinceMs = null;
      }
      return decision;
    } catch (error) {
      if (this.#downSinceMs === null) {
        this.#downSinceMs = this.#now();
        this.#lastProbeMs = this.#downSinceMs;
        this.#emit({ event: 'rate_limit_store_down', error: describe(error) });
      }
      return this.#local.consume(key, limitPerMinute);
    } finally {
      if (probe) this.#probing = false;
    }
  }

  #callPrimary(key: string, limitPerMinute: number): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      // Timers run before the event loop reads its sockets: after a busy stretch of this process
      // (a burst of requests), the timer would fire while the primary's answer already waits to be
      // read, and a busy server would count a healthy Redis as down (and its limits locally).
      // The refusal waits for the loop's next check phase, after the answers waiting were read.
      const timer = setTimeout(
        () => setImmediate(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`))),
        this.#timeoutMs,
      );
      let call: Promise<Decision>;
      try {
        call = this.#primary.consume(key, limitPerMinute);
      } catch (error) {
        call = Promise.reject(error);
      }
      // A late answer or failure after the timeout settles nothing and is dropped here.
      call.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  #emit(event: RateLimitEvent): void {
    try {
      this.#log(event);
    } catch {
      // Logging must not turn a degraded limiter into a failing one.
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { assertLimit, type Decision, TIME_GRID_PER_MS, WINDOW_MS } from './gcra.ts';
import type { RateLimiter } from './rate-limiter.ts';

/** Options of a RedisLimiter. */
export interface RedisLimiterOptions {
  /** Prefix of every counter key (default `mmds:rl:`). */
  prefix?: string;
  /**
   * A clock in epoch ms to use instead of Redis server time. Only for tests that need to move
   * time; in service, leave it unset so that instances with skewed clocks agree.
   */
  now?: () => number;
}

/**
 * gcra.ts `decide` in Lua, so that read, decide and write happen atomically on the server: two
 * instances can never both spend the last token. Keep it in step with gcra.ts (the integration
 * test compares the two on random sequences). Numbers are Lua doubles; the times sit on the same
 * 1/1024 ms grid as in TypeScript, so the results are identical.
 *
 * KEYS[1] the counter key. ARGV[1] limit per minute, ARGV[2] the window in ms, ARGV[3] the grid,
 * ARGV[4] now in epoch ms or '' for Redis server time.
 * Returns {allowed 0|1, remaining, retry_after_s, reset_s}.
 */
export const GCRA_SCRIPT = `
local limit = tonumber(ARGV[1])
local interval = math.ceil(tonumber(ARGV[2]) * tonumber(ARGV[3]) / limit) / tonumber(ARGV[3])
local burst = interval * limit
local now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local tat = tonumber(redis.call('GET', KEYS[1]) or '') or now
if tat < now then tat = now end
if tat > now + burst then tat = now + burst end
local next_tat = tat + interval
local allow_at = next_tat - burst
if now < allow_at then
  return {0, 0, math.ceil((allow_at - now) / 1000), math.ceil((tat - now) / 1000)}
end
redis.call('SET', KEYS[1], string.format('%.17g', next_tat), 'PX', math.ceil(next_tat - now))
return {1, math.floor((burst - (next_tat - now)) / interval), 0, math.ceil((next_tat - now) / 1000)}
`;

const SCRIPT_SHA = createHash('sha1').update(GCRA_SCRIPT).digest('hex');

/**
 * GCRA counters shared by every instance through Redis: one Lua script per decision, run with
 * EVALSHA (EVAL when the server does not have it cached yet, e.g. after a restart). Each key
 * expires when its quota is whole again. Errors are not caught here: wrap it in a FallbackLimiter.
 */
export class RedisLimiter implements RateLimiter {
  readonly #client: Redis | Cluster;
  readonly #prefix: string;
  readonly #now: (() => number) | undefined;

  constructor(client: Redis | Cluster, options: RedisLimiterOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'mmds:rl:';
    this.#now = options.now;
  }

  /** Counts one request for the key in Redis and returns the decision. */
  async consume(key: string, limitPerMinute: number): Promise<Decision> {
    assertLimit(limitPerMinute);
    const args = [
      this.#prefix + key,
      limitPerMinute,
      WINDOW_MS,
      TIME_GRID_PER_MS,
      this.#now ? String(this.#now()) : '',
    ] as const;
    let reply: unknown;
    try {
      reply = await this.#client.evalsha(SCRIPT_SHA, 1, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      reply = await this.#client.eval(GCRA_SCRIPT, 1, ...args);
    }
    return parseReply(reply, limitPerMinute);
  }
}

function parseReply(reply: unknown, limit: number): Decision {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => Number.isInteger(n))) {
    throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
  }
  const [allowed, remaining, retryAfter, reset] = reply as number[];
  return {
    allowed: allowed === 1,
    limit,
    remaining: remaining!,
    retry_after_s: retryAfter!,
    reset_s: reset!,
  };
}

import { createHash, randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { RateLimiter } from './rate-limiter.ts';
import { assertLimit, type Decision, makeDecision, WINDOW_MS } from './sliding-log.ts';

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
 * sliding-log.ts `decide` in Lua on a sorted set per key (score: the accepted time in ms, with
 * the microseconds of Redis TIME as a fraction; member: a unique id from the caller), so that
 * read, decide and write happen atomically on the server: two instances can never both take the
 * last place. Keep it in step with sliding-log.ts (the integration test compares the two on random
 * sequences). Scores are formatted with %.17g: Lua's own number to string (`'(' .. now`) keeps
 * 14 digits, too few for epoch ms with a fraction.
 *
 * KEYS[1] the log key. ARGV[1] limit per minute, ARGV[2] the window in ms, ARGV[3] now in epoch ms
 * or '' for Redis server time, ARGV[4] the member for this request.
 * Returns {allowed 0|1, remaining, retry_after_ms, reset_ms}, the times rounded up to whole ms.
 */
export const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now
if ARGV[3] ~= '' then
  now = tonumber(ARGV[3])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
end
local function score(ms) return string.format('%.17g', ms) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', score(now - window))
local ahead = redis.call('ZRANGEBYSCORE', key, '(' .. score(now), '+inf')
for _, member in ipairs(ahead) do
  redis.call('ZADD', key, score(now), member)
end
local count = redis.call('ZCARD', key)
if count > limit then
  redis.call('ZREMRANGEBYRANK', key, 0, count - limit - 1)
  count = limit
end
if count < limit then
  redis.call('ZADD', key, score(now), ARGV[4])
  redis.call('PEXPIRE', key, window + 1)
  return {1, limit - count - 1, 0, window}
end
if #ahead > 0 then redis.call('PEXPIRE', key, window + 1) end
local oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
local newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
return {0, 0, math.ceil(oldest + window - now), math.ceil(newest + window - now)}
`;

const SCRIPT_SHA = createHash('sha1').update(SLIDING_LOG_SCRIPT).digest('hex');

/**
 * Sliding logs shared by every instance through Redis: one Lua script per decision, run with
 * EVALSHA (EVAL when the server does not have it cached yet, e.g. after a restart). A key holds at
 * most `limit` entries and expires one window (plus 1 ms, as Redis expires on a whole-ms clock)
 * after its newest entry. Errors are not caught here: wrap it in a FallbackLimiter.
 */
export class RedisLimiter implements RateLimiter {
  readonly #client: Redis | Cluster;
  readonly #prefix: string;
  readonly #now: (() => number) | undefined;
  /** Members are this instance's id plus a counter: unique across instances without a second key. */
  readonly #instanceId = randomBytes(8).toString('base64url');
  #sequence = 0;

  constructor(client: Redis | Cluster, options: RedisLimiterOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'mmds:rl:';
    this.#now = options.now;
  }

  /** Counts one request for the key in Redis and returns the decision. */
  async consume(key: string, limitPerMinute: number): Promise<Decision> {
    assertLimit(limitPerMinute);
    const member = `${this.#instanceId}.${(this.#sequence++).toString(36)}`;
    const args = [
      this.#prefix + key,
      limitPerMinute,
      WINDOW_MS,
      this.#now ? String(this.#now()) : '',
      member,
    ] as const;
    let reply: unknown;
    try {
      reply = await this.#client.evalsha(SCRIPT_SHA, 1, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      reply = await this.#client.eval(SLIDING_LOG_SCRIPT, 1, ...args);
    }
    return parseReply(reply, limitPerMinute);
  }
}

function parseReply(reply: unknown, limit: number): Decision {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => Number.isInteger(n))) {
    throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
  }
  const [allowed, remaining, retryAfterMs, resetMs] = reply as number[];
  return makeDecision(allowed === 1, limit, remaining!, retryAfterMs!, resetMs!);
}

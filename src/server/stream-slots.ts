import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { REDIS_BASE } from '../lib/redis-url.ts';

/**
 * Open-stream limits across a fleet (issue 38): with Redis as the state storage, each stream an
 * instance opens takes a place in a sorted set per slot (`mmds:streams:<key:id | ip:bucket>`,
 * members scored by when they lapse), so that MMDS_EVENTS_STREAMS_PER_KEY and _PER_ADDRESS hold
 * for all instances together, not for each. A place is given back when the stream closes, and
 * renewed while it is open; an instance that dies stops renewing, and its places lapse after
 * `ttlMs`. Redis's own clock (TIME) scores the places, so instances' clocks need not agree.
 * Without Redis the limits are per instance (event-streams.ts counts them in memory).
 */
export interface SharedStreamSlots {
  /** Takes a place in `slot` if fewer than `limit` are taken fleet-wide; null when full. Throws when Redis fails. */
  take(slot: string, limit: number): Promise<string | null>;
  /** Gives a place back (its stream closed). */
  release(slot: string, place: string): Promise<void>;
  /** Stops renewing (the server is closing; its streams end and give their places back). */
  close(): void;
}

// KEYS[1] the slot's set; ARGV: 1 = limit, 2 = place, 3 = ttl (ms). Lapsed places go first.
const TAKE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

// KEYS: slot sets; ARGV: 1 = ttl (ms), then one place per key. Only places still there are renewed.
const RENEW = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', ms + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 1`;

/** How long a place lasts unrenewed (default); renewed every third of it. */
export const STREAM_PLACE_TTL_MS = 60_000;

/** Creates the shared places over an ioredis client (the state storage's). */
export function createRedisStreamSlots(
  client: Redis | Cluster,
  options: { ttlMs?: number; log?: (entry: Record<string, unknown>) => void } = {},
): SharedStreamSlots {
  const ttlMs = options.ttlMs ?? STREAM_PLACE_TTL_MS;
  const instance = randomBytes(6).toString('base64url');
  let counter = 0;
  /** Places held by this instance: place -> slot key. */
  const held = new Map<string, string>();
  const keyOf = (slot: string) => `${REDIS_BASE}:streams:${slot}`;
  const renew = async () => {
    if (held.size === 0) return;
    const entries = [...held.entries()];
    // One script per few hundred places keeps each call short.
    for (let start = 0; start < entries.length; start += 200) {
      const part = entries.slice(start, start + 200);
      await client.eval(
        RENEW,
        part.length,
        ...part.map(([, key]) => key),
        ttlMs,
        ...part.map(([place]) => place),
      );
    }
  };
  const timer = setInterval(() => {
    renew().catch((error: unknown) =>
      options.log?.({ event: 'stream_places_renew_failed', error: (error as Error).message }),
    );
  }, ttlMs / 3);
  timer.unref();
  return {
    async take(slot, limit) {
      const place = `${instance}:${++counter}`;
      const key = keyOf(slot);
      const done = await client.eval(TAKE, 1, key, limit, place, ttlMs);
      if (Number(done) !== 1) return null;
      held.set(place, key);
      return place;
    },
    async release(slot, place) {
      held.delete(place);
      await client.zrem(keyOf(slot), place);
    },
    close() {
      clearInterval(timer);
    },
  };
}

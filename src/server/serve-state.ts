/**
 * The state a serving process reads besides the snapshot: its key store (with a per-process
 * cache wherever key changes can be followed) and its rate limiter (in process, a primary's over
 * IPC, or Redis with one of those as the fallback), and the caller a verified key stands for.
 * `mmds serve` composes them (start-server.ts); `mmds mcp` takes the caller rule.
 */
import type { Storage } from 'unstorage';
import type { Caller } from '../contract/authorise.ts';
import { type getRedisClient, keyRecordDirectory } from '../keys/create-storage.ts';
import { followKeyChanges, type KeyChangeFeed, type KeyChangeSource } from '../keys/follow-key-changes.ts';
import type { KeyRecord } from '../keys/key-record.ts';
import { KeyRecordCache } from '../keys/key-record-cache.ts';
import { createKeyStore, type KeyStore } from '../keys/key-store.ts';
import { FallbackLimiter } from '../rate-limit/fallback-limiter.ts';
import { MemoryLimiter } from '../rate-limit/memory-limiter.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { RedisLimiter } from '../rate-limit/redis-limiter.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import type { ServeConfig } from './serve-config.ts';

type Redis = ReturnType<typeof getRedisClient>;
type Log = (entry: Record<string, unknown>) => void;

/**
 * The key store, reading records through a per-process cache wherever key changes can be
 * followed: the `file` store's directory (fs.watch) or Redis (a channel that `mmds keys`
 * publishes on). `memory` has no cache (one process; reads are already in memory).
 */
export function openKeyStore(
  config: Readonly<ServeConfig>,
  storage: Storage,
  redis: Redis,
  log: Log,
): { keys: KeyStore; keyChanges: KeyChangeFeed | null } {
  const source: KeyChangeSource | null = redis
    ? { kind: 'redis', client: redis }
    : config.storage === 'file'
      ? { kind: 'directory', path: keyRecordDirectory(config.dataDir) }
      : null;
  if (!source) return { keys: createKeyStore(storage), keyChanges: null };
  const cache = new KeyRecordCache();
  return { keys: createKeyStore(storage, { cache }), keyChanges: followKeyChanges(source, cache, { log }) };
}

/** The caller a verified key record stands for (never the key itself). */
export function callerOf(record: KeyRecord): Caller {
  return { keyId: record.id, org: record.org, scopes: record.scopes, rateLimit: record.rate_limit };
}

/** A process's limiter, and the same decisions without a promise where they can be had. */
export interface ServeLimiters {
  limiter: RateLimiter;
  /** The in-process limiter decides synchronously: no promise on the fast paths. */
  consumeFast: (bucket: string, limit: number) => Decision | Promise<Decision>;
}

/**
 * The limiter of a serving process: with Redis, Redis's counters, falling back to the local ones
 * while it is down; the local ones are this process's own, or `shared` (the primary's counters of
 * `mmds serve --workers N`, over IPC).
 */
export function openLimiters(redis: Redis, shared: RateLimiter | undefined, log: Log): ServeLimiters {
  const memory = shared ? null : new MemoryLimiter();
  const local: RateLimiter = shared ?? memory!;
  const limiter: RateLimiter = redis
    ? new FallbackLimiter(new RedisLimiter(redis), { local, log: (event) => log({ ...event }) })
    : local;
  const consumeFast =
    !redis && memory
      ? (bucket: string, limit: number) => memory.consumeNow(bucket, limit)
      : (bucket: string, limit: number) => limiter.consume(bucket, limit);
  return { limiter, consumeFast };
}

import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { createStorage, type Storage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import memoryDriver from 'unstorage/drivers/memory';
import redisDriver from 'unstorage/drivers/redis';
import { ConfigError } from '../lib/config-error.ts';
import { MmdsError } from '../lib/errors.ts';
import { isRedisUrl, REDIS_BASE, redisAddress } from '../lib/redis-url.ts';
import { resolveLayout } from '../store/layout.ts';

/**
 * Creates the storage for key records and other server state from MMDS_STORAGE: `file` (the fs
 * driver under `<dataDir>/state`), `memory` (one process only), or a `redis://` / `rediss://` URL
 * (shared by every instance). The caller disposes it (`storage.dispose()`).
 */
export function createStateStorage(spec: string, dataDir: string): Storage {
  if (spec === 'file') return createStorage({ driver: fsDriver({ base: resolveLayout(dataDir).stateDir }) });
  if (spec === 'memory') return createStorage({ driver: memoryDriver() });
  if (isRedisUrl(spec)) {
    const storage = createStorage({
      driver: redisDriver({
        url: spec,
        base: REDIS_BASE,
        // Fail a command after a short while instead of queueing it forever while Redis is away:
        // a CLI command then exits with an error, and the server can fall back or answer 503.
        connectTimeout: 5_000,
        maxRetriesPerRequest: 2,
      }),
    });
    // Without an 'error' listener ioredis prints "[ioredis] Unhandled error event" and a stack
    // trace for every failed connection attempt. The last error is kept for checkStateStorage;
    // the server adds its own listener that logs.
    const client = getRedisClient(storage);
    client?.on('error', (error: Error) => lastRedisErrors.set(storage, error));
    return storage;
  }
  throw new ConfigError('MMDS_STORAGE must be "file", "memory" or a redis:// URL');
}

/**
 * The directory in which the `file` storage keeps key records, one file per key id (the key
 * store's `keys:<id>` items): what a server watches to hear of key changes.
 */
export function keyRecordDirectory(dataDir: string): string {
  return join(resolveLayout(dataDir).stateDir, 'keys');
}

/**
 * Returns the ioredis client behind a storage made by `createStateStorage` for a `redis://` spec
 * (for atomic scripts such as the rate limiter's), or null for the other drivers. The client
 * connects on first use and is closed by `storage.dispose()`. Its keys are not under REDIS_BASE.
 */
export function getRedisClient(storage: Storage): Redis | Cluster | null {
  const { driver } = storage.getMount('');
  if (driver.name !== 'redis' || typeof driver.getInstance !== 'function') return null;
  return driver.getInstance() as Redis | Cluster;
}

/** The last connection error of each Redis-backed storage (what "unreachable" means in detail). */
const lastRedisErrors = new WeakMap<Storage, Error>();

/** Redis did not answer: the one line a command or the server prints about it. */
export class StorageUnreachableError extends MmdsError {
  override readonly name = 'StorageUnreachableError';

  constructor(message: string, options?: ErrorOptions) {
    super('storage_unreachable', message, options);
  }
}

/**
 * Resolves when the storage answers; for Redis, pings it and throws a StorageUnreachableError
 * naming the address and the socket error (ECONNREFUSED, ENOTFOUND, ...) when it does not.
 */
export async function checkStateStorage(storage: Storage, spec: string): Promise<void> {
  const client = getRedisClient(storage);
  if (client === null) return;
  try {
    await client.ping();
  } catch (error) {
    const last = lastRedisErrors.get(storage) ?? (error as Error);
    const code = (last as NodeJS.ErrnoException).code ?? last.message;
    throw new StorageUnreachableError(
      `cannot reach Redis at ${redisAddress(spec)} (${code}); start Redis or fix MMDS_STORAGE`,
      { cause: error },
    );
  }
}

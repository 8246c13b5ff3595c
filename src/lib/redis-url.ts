// A shared Redis as every part of the service names it: the namespace of its keys, whether a
// setting (MMDS_STORAGE) is a Redis URL, and the address to print without the credentials.

/** Namespace of every key the service writes to a shared Redis. */
export const REDIS_BASE = 'mmds';

/** Whether an MMDS_STORAGE value names a Redis (`redis://` or `rediss://`). */
export function isRedisUrl(spec: string): boolean {
  return /^rediss?:\/\/./.test(spec);
}

/** `redis://host:port` of a storage URL, without credentials, path or query. */
export function redisAddress(spec: string): string {
  try {
    const url = new URL(spec);
    return `${url.protocol}//${url.hostname}:${url.port || '6379'}`;
  } catch {
    return 'the MMDS_STORAGE URL';
  }
}

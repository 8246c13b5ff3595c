import type { Storage } from 'unstorage';
import { REDIS_BASE } from '../lib/redis-url.ts';
import { getRedisClient } from './create-storage.ts';

/** The Redis channel on which a key's id is published when its record changes. */
export const KEY_CHANGES_CHANNEL = `${REDIS_BASE}:keys:changed`;

/**
 * Tells every running server that a key's record changed (issued, rotated, revoked, any field),
 * so that its cached copy is dropped: a PUBLISH of the id on Redis. Nothing to do for the `file`
 * store (servers watch its directory) or `memory` (one process, nothing cached).
 */
export async function announceKeyChange(storage: Storage, id: string): Promise<void> {
  const client = getRedisClient(storage);
  if (client) await client.publish(KEY_CHANGES_CHANNEL, id);
}

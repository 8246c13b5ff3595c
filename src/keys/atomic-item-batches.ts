import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Storage } from 'unstorage';
import { backendOf, compareAndSetItem, itemPath, readItemText, redisKey } from './atomic-item.ts';

/**
 * Reads and compare-and-sets of many items at once (issue 38: a webhook deliverer's cursors),
 * on the same drivers and with the same guarantees as atomic-item.ts: on Redis one round trip
 * (MGET, one script); on the fs driver, reads are synchronous (a batch of small files in the page
 * cache takes far less than the thread pool's four trips for each) and writes go through the
 * thread pool, each under its lock file (a rename can wait on a busy disk: not on the event loop).
 */

// The same for many items at once (one round trip): ARGV holds four values per key, as above;
// answers one 0 or 1 per key.
const REDIS_CAS_MANY = `
local done = {}
for i, key in ipairs(KEYS) do
  local at = (i - 1) * 4
  local current = redis.call('GET', key)
  local ok
  if ARGV[at + 1] == 'absent' then ok = not current else ok = current == ARGV[at + 2] end
  if ok then
    if ARGV[at + 3] == 'del' then redis.call('DEL', key) else redis.call('SET', key, ARGV[at + 4]) end
    done[i] = 1
  else
    done[i] = 0
  end
end
return done`;

/**
 * The texts of several items (null: none), in one round trip on Redis (MGET). On the fs driver
 * they are read synchronously: a batch of small files in the page cache is read in well under a
 * millisecond each, where each asynchronous read costs four trips through the thread pool.
 */
export async function readItemTexts(
  storage: Storage,
  keys: readonly string[],
): Promise<Array<string | null>> {
  if (keys.length === 0) return [];
  const backend = backendOf(storage);
  if (backend.kind === 'redis') return backend.client.mget(...keys.map((key) => redisKey(backend.base, key)));
  if (backend.kind === 'fs') return keys.map((key) => readFileSyncOrNull(itemPath(backend.base, key)));
  return Promise.all(keys.map((key) => readItemText(storage, key)));
}

/** The keys of the items under `prefix` (`hooks` gives `hooks:<id>`, …), without reading them. */
export async function listItemKeys(storage: Storage, prefix: string): Promise<string[]> {
  const backend = backendOf(storage);
  if (backend.kind !== 'fs') return storage.getKeys(prefix);
  // One directory, not the driver's walk of the whole state directory (keys, leases, locks).
  const entries = await readdir(join(backend.base, prefix), { withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );
  return entries.filter((entry) => entry.isFile()).map((entry) => `${prefix}:${entry.name}`);
}

/** One compare-and-set of compareAndSetItems. */
export interface ItemChange {
  key: string;
  expected: string | null;
  next: string | null;
}

/**
 * compareAndSetItem for several items, each decided alone (one refused does not stop the
 * others); on Redis in one script, so one round trip. Returns whether each was written.
 */
export async function compareAndSetItems(
  storage: Storage,
  changes: readonly ItemChange[],
): Promise<boolean[]> {
  if (changes.length === 0) return [];
  const backend = backendOf(storage);
  if (backend.kind !== 'redis')
    return Promise.all(
      changes.map((change) => compareAndSetItem(storage, change.key, change.expected, change.next)),
    );
  const args = changes.flatMap((change) => [
    change.expected === null ? 'absent' : 'value',
    change.expected ?? '',
    change.next === null ? 'del' : 'set',
    change.next ?? '',
  ]);
  const done = (await backend.client.eval(
    REDIS_CAS_MANY,
    changes.length,
    ...changes.map((change) => redisKey(backend.base, change.key)),
    ...args,
  )) as number[];
  return done.map((value) => Number(value) === 1);
}

function readFileSyncOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

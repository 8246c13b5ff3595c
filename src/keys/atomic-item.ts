import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Storage } from 'unstorage';
import { getRedisClient } from './create-storage.ts';

/**
 * Whole-item writes and compare-and-set on the state storage drivers in use (fs, memory, Redis),
 * for key records: a rotation and a revocation of one key read, change and write the same record,
 * and without compare-and-set the later write silently undid the earlier one (a lost revocation).
 *
 * Items are JSON texts, as unstorage writes them (`storage.getItem` reads them back). On the `fs`
 * driver a write goes to a temporary file of mode 0600 that is renamed over the item (readers never
 * see half a record; key records are not world-readable), under a lock file for compare-and-set.
 */

/** Longest a compare-and-set waits for another process's fs lock before it gives up. */
const LOCK_WAIT_MS = 5_000;
/** A lock file older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 10_000;

// Compare-and-set in one step on the server: GET, compare with the expected text (or absence),
// then SET the next text or DEL. ARGV: 1 = "absent" | "value", 2 = expected, 3 = "set" | "del", 4 = next.
const REDIS_CAS = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if ARGV[3] == 'del' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[4]) end
return 1`;

/** The driver behind a storage, as this module uses it. */
export type Backend =
  | { kind: 'fs'; base: string }
  | { kind: 'memory'; data: Map<string, unknown> }
  | { kind: 'redis'; client: NonNullable<ReturnType<typeof getRedisClient>>; base: string };

/** The driver behind a storage (for atomic-item-batches.ts too). */
export function backendOf(storage: Storage): Backend {
  const { driver } = storage.getMount('');
  const options = (driver as { options?: { base?: string } }).options;
  if (driver.name === 'fs' && options?.base) return { kind: 'fs', base: resolve(options.base) };
  const client = getRedisClient(storage);
  if (client) return { kind: 'redis', client, base: (options?.base ?? '').replace(/:$/, '') };
  if (driver.name === 'memory' && typeof driver.getInstance === 'function')
    return { kind: 'memory', data: driver.getInstance() as Map<string, unknown> };
  throw new Error(`the state storage driver ${driver.name ?? '(unnamed)'} has no compare-and-set`);
}

/** The text of an item, or null when there is none. */
export async function readItemText(storage: Storage, key: string): Promise<string | null> {
  const backend = backendOf(storage);
  if (backend.kind === 'fs') return readFileOrNull(itemPath(backend.base, key));
  if (backend.kind === 'redis') return backend.client.get(redisKey(backend.base, key));
  const value = backend.data.get(key);
  return typeof value === 'string' ? value : null;
}

/** Writes an item whatever it held (0600 on the fs driver, replaced by a rename). */
export async function writeItemText(storage: Storage, key: string, text: string): Promise<void> {
  const backend = backendOf(storage);
  if (backend.kind === 'fs') await replaceFile(backend.base, key, text);
  else if (backend.kind === 'redis') await backend.client.set(redisKey(backend.base, key), text);
  else backend.data.set(key, text);
}

/**
 * Replaces an item's text by `next` (null deletes it) only if it still is `expected` (null: there
 * is none). Returns whether it did; false means another writer came first, and the caller reads
 * again and decides again.
 */
export async function compareAndSetItem(
  storage: Storage,
  key: string,
  expected: string | null,
  next: string | null,
): Promise<boolean> {
  const backend = backendOf(storage);
  if (backend.kind === 'redis') {
    const done = await backend.client.eval(
      REDIS_CAS,
      1,
      redisKey(backend.base, key),
      expected === null ? 'absent' : 'value',
      expected ?? '',
      next === null ? 'del' : 'set',
      next ?? '',
    );
    return Number(done) === 1;
  }
  if (backend.kind === 'memory') {
    // No await between the read and the write: nothing else runs in between in this process.
    const current = backend.data.get(key);
    if ((typeof current === 'string' ? current : null) !== expected) return false;
    if (next === null) backend.data.delete(key);
    else backend.data.set(key, next);
    return true;
  }
  return withFileLock(backend.base, key, async () => {
    const path = itemPath(backend.base, key);
    if ((await readFileOrNull(path)) !== expected) return false;
    if (next === null) await unlink(path);
    else await replaceFile(backend.base, key, next);
    return true;
  });
}

/** The file of an item on the fs driver. */
export function itemPath(base: string, key: string): string {
  return join(base, key.replace(/:/g, '/'));
}

/** The Redis key of an item. */
export function redisKey(base: string, key: string): string {
  return base ? `${base}:${key}` : key;
}

async function readFileOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Writes a temporary file of mode 0600 beside the store's items (same file system, outside the
 * watched key directory) and renames it over the item: a reader or a watch sees the old record
 * or the new one, never a partial one. Directories this creates are 0700.
 */
async function replaceFile(base: string, key: string, text: string): Promise<void> {
  const path = itemPath(base, key);
  const temporary = join(base, '.tmp', `${randomBytes(8).toString('hex')}.tmp`);
  for (let fresh = false; ; fresh = true) {
    await makeDirectory(dirname(path), fresh);
    await makeDirectory(dirname(temporary), fresh);
    try {
      await writeFile(temporary, text, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
      await rename(temporary, path);
      return;
    } catch (error) {
      await rm(temporary, { force: true });
      // A directory removed since this process made it: made again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || fresh) throw error;
    }
  }
}

/**
 * Directories this process has made or found (0700), so that each write does not ask again: a
 * deliverer writes thousands of records a release. One removed meanwhile is made again on ENOENT.
 */
const madeDirectories = new Set<string>();

async function makeDirectory(path: string, again = false): Promise<void> {
  if (madeDirectories.has(path) && !again) return;
  await mkdir(path, { recursive: true, mode: 0o700 });
  madeDirectories.add(path);
}

/** Runs `work` holding `<base>/.locks/<key>.lock` (created exclusively), across processes. */
async function withFileLock<T>(base: string, key: string, work: () => Promise<T>): Promise<T> {
  const lock = join(base, '.locks', `${key.replace(/[:/]/g, '_')}.lock`);
  await makeDirectory(dirname(lock));
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        await makeDirectory(dirname(lock), true);
        continue;
      }
      if (code !== 'EEXIST') throw error;
    }
    const age = await stat(lock).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) await rm(lock, { force: true });
    else if (Date.now() > deadline) throw new Error(`the key store lock ${lock} is held by another process`);
    else await new Promise((resume) => setTimeout(resume, 2 + Math.random() * 8));
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

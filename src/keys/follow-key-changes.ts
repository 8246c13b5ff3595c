import { type FSWatcher, statSync, watch } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';
import { KEY_CHANGES_CHANNEL } from './key-changes.ts';
import { isKeyId } from './key-codec.ts';
import type { KeyRecordCache } from './key-record-cache.ts';

/** Where a server learns of key changes: the `file` store's key directory, or a Redis channel. */
export type KeyChangeSource =
  | { kind: 'directory'; path: string }
  | { kind: 'redis'; client: Redis | Cluster };

/** Told a key's id when its record changed, or null when any record may have changed unheard. */
export type KeyChangeListener = (id: string | null) => void;

/** A running subscription to key changes. */
export interface KeyChangeFeed {
  /**
   * Adds a listener besides the cache (the open event streams, which end when their key is
   * revoked); returns the function that removes it.
   */
  subscribe(listener: KeyChangeListener): () => void;
  close(): Promise<void>;
}

/** Options of followKeyChanges. */
export interface FollowKeyChangesOptions {
  log: (entry: Record<string, unknown>) => void;
  /** How often a missing or replaced key directory is looked for again, in ms (default 1000). */
  retryMs?: number;
}

/**
 * Feeds a key cache with the changes of the key store, and keeps it enabled only while it is sure
 * to hear of them: invalidates a key's record on each change, and disables the cache (every
 * request reads the store) whenever the watch or the subscription is not in place. The cache's
 * own max age bounds what a lost notification could cost. Subscribers hear the same changes.
 */
export function followKeyChanges(
  source: KeyChangeSource,
  cache: KeyRecordCache,
  options: FollowKeyChangesOptions,
): KeyChangeFeed {
  const listeners = new Set<KeyChangeListener>();
  const tell = (id: string | null) => {
    for (const listener of listeners) listener(id);
  };
  const report = (enabled: boolean, reason: string) => {
    if (enabled === cache.enabled) return;
    cache.setEnabled(enabled);
    options.log({ event: 'key_cache', enabled, source: source.kind, reason });
    // Changes made while the feed was down were not heard: every listener looks again.
    if (enabled) tell(null);
  };
  const onChange = (id: string | null) => {
    const known = id !== null && isKeyId(id) ? id : null;
    if (known !== null) cache.invalidate(known);
    else cache.clear();
    tell(known);
  };
  const feed =
    source.kind === 'directory'
      ? followDirectory(source.path, onChange, report, options.retryMs ?? 1000)
      : followChannel(source.client, onChange, report);
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close: () => feed.close(),
  };
}

/**
 * fs.watch on the key directory (one file per key, which `mmds keys` replaces by a rename): an event
 * names the file, that is the key id. The directory may not exist yet (no key issued) or be
 * replaced; it is looked for again every `retryMs`, and watched again when its inode changes.
 */
function followDirectory(
  path: string,
  onChange: (id: string | null) => void,
  report: (enabled: boolean, reason: string) => void,
  retryMs: number,
): Pick<KeyChangeFeed, 'close'> {
  let watcher: FSWatcher | null = null;
  let watchedInode = -1;
  const stop = (reason: string) => {
    watcher?.close();
    watcher = null;
    report(false, reason);
  };
  const check = () => {
    let inode = -1;
    try {
      inode = statSync(path).ino;
    } catch {
      inode = -1;
    }
    if (watcher && inode === watchedInode) return;
    if (watcher) stop('the key directory was replaced');
    if (inode === -1) return;
    try {
      watcher = watch(path, { persistent: false }, (_event, filename) =>
        onChange(typeof filename === 'string' ? filename : null),
      );
      watcher.on('error', (error) => stop(`watch failed: ${error.message}`));
      watchedInode = inode;
      report(true, 'watching the key directory');
    } catch (error) {
      stop(`watch failed: ${(error as Error).message}`);
    }
  };
  check();
  const timer = setInterval(check, retryMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      watcher?.close();
      watcher = null;
    },
  };
}

/**
 * A SUBSCRIBE on its own connection (a subscribed connection can run no other command). The cache
 * is enabled once the subscription is confirmed, and disabled the moment the connection drops:
 * a message published while it was down is lost, and after the reconnection every record is
 * read again.
 */
function followChannel(
  client: Redis | Cluster,
  onChange: (id: string | null) => void,
  report: (enabled: boolean, reason: string) => void,
): Pick<KeyChangeFeed, 'close'> {
  const subscriber = client.duplicate();
  let closing = false;
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === KEY_CHANGES_CHANNEL) onChange(message);
  });
  const down = (reason: string) => () => report(false, reason);
  subscriber.on('error', () => report(false, 'the subscription connection failed'));
  subscriber.on('close', down('the subscription connection closed'));
  subscriber.on('end', down('the subscription connection ended'));
  subscriber.on('ready', () => {
    subscriber.subscribe(KEY_CHANGES_CHANNEL).then(
      () => {
        if (!closing && subscriber.status === 'ready') report(true, 'subscribed');
      },
      () => report(false, 'subscribe failed'),
    );
  });
  return {
    async close() {
      closing = true;
      report(false, 'closing');
      subscriber.disconnect();
    },
  };
}

import { Redis } from 'ioredis';
import { REDIS_BASE, redisAddress } from '../../lib/redis-url.ts';

/**
 * Redis pub/sub between `mmds publish --to` and the `mmds serve --from` instances of one bucket:
 * after each commit the publisher sends one message, and the instances read the log at once
 * instead of at their next poll. A hint only, like the bucket's CURRENT: a lost message (Redis
 * down, an instance reconnecting) costs one poll interval, never a wrong snapshot, because an
 * instance that wakes reads the log itself.
 */

/** What the publisher says after a commit. */
export interface CommitMessage {
  seq: number;
  snapshot_id: string;
}

/** The channel of one store, so that two stores (two prefixes, two buckets) sharing a Redis do not wake each other. */
export function commitChannel(storeUrl: string): string {
  return `${REDIS_BASE}:snapshots:committed:${storeUrl}`;
}

/** How long the publisher gives Redis to connect and to take the message. */
const ANNOUNCE_TIMEOUT_MS = 2_000;

/**
 * Publishes one commit message on the store's channel: one connection, no retry, bounded time
 * (the publisher has committed already; Redis only saves followers a poll interval). Resolves
 * with the number of instances subscribed; throws one line naming Redis without credentials.
 */
export async function announceCommit(
  redisUrl: string,
  storeUrl: string,
  message: CommitMessage,
): Promise<number> {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: ANNOUNCE_TIMEOUT_MS,
    commandTimeout: ANNOUNCE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Without a listener ioredis prints its connection errors on stderr; the throw below says it.
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.publish(commitChannel(storeUrl), JSON.stringify(message));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot reach Redis at ${redisAddress(redisUrl)} (${reason})`, { cause: error });
  } finally {
    client.disconnect();
  }
}

/** A running subscription to a store's commit messages. */
export interface CommitSubscription {
  close(): Promise<void>;
}

/**
 * Subscribes to the store's channel on a connection of its own (a subscribed connection can run
 * no other command) and calls `onCommit` for each well-formed message. ioredis reconnects and
 * subscribes again by itself; whether the subscription is in place is logged when it changes
 * (`store_wake`), so a Redis outage is one line, not one per reconnect attempt.
 */
export function subscribeCommits(
  redisUrl: string,
  storeUrl: string,
  onCommit: (message: CommitMessage) => void,
  log: (entry: Record<string, unknown>) => void,
): CommitSubscription {
  const channel = commitChannel(storeUrl);
  const subscriber = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  let subscribed: boolean | null = null;
  let closing = false;
  const report = (now: boolean, reason: string) => {
    if (closing || now === subscribed) return;
    subscribed = now;
    log({ event: 'store_wake', subscribed: now, redis: redisAddress(redisUrl), reason });
  };
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const message = parseCommitMessage(text);
    if (message) onCommit(message);
  });
  subscriber.on('error', (error: NodeJS.ErrnoException) =>
    report(false, `Redis unreachable (${error.code ?? error.message}); polling only`),
  );
  subscriber.on('close', () => report(false, 'the connection closed; polling only'));
  subscriber.on('ready', () => {
    // After a reconnection ioredis subscribes again by itself before 'ready'; subscribing once
    // more is harmless and confirms it.
    subscriber.subscribe(channel).then(
      () => {
        if (subscriber.status === 'ready') report(true, 'subscribed');
      },
      (error: Error) => report(false, `subscribe failed (${error.message}); polling only`),
    );
  });
  subscriber.connect().catch(() => {});
  return {
    async close() {
      closing = true;
      subscriber.disconnect();
    },
  };
}

/** A commit message, or null for anything else on the channel. */
function parseCommitMessage(text: string): CommitMessage | null {
  try {
    const value = JSON.parse(text) as Partial<CommitMessage>;
    return Number.isInteger(value.seq) && typeof value.snapshot_id === 'string'
      ? { seq: value.seq!, snapshot_id: value.snapshot_id }
      : null;
  } catch {
    return null;
  }
}

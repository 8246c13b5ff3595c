import type { Storage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/events/event.ts';
import { parseAllowHosts } from '../../src/hooks/address-policy.ts';
import { createDeliverer } from '../../src/hooks/deliverer.ts';
import { deliveryLeaseName } from '../../src/hooks/delivery-shards.ts';
import { createHookStore } from '../../src/hooks/hook-store.ts';
import { createLease } from '../../src/hooks/lease.ts';
import { addHook } from '../../src/hooks/manage-hooks.ts';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { issueKey } from '../../src/keys/manage-keys.ts';
import { formatTimestamp } from '../../src/lib/zoned-time.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import {
  arrayFeed,
  startWebhookReceiver,
  type WebhookReceiver,
  waitUntil,
} from '../helpers/webhook-receiver.ts';

/**
 * Webhook deliverers sharing one Redis (issue 24 item 4): two deliverers, each with its own
 * connection (as two processes), post every event once per subscription and in order; a lease
 * left by a killed deliverer is taken over once it expires.
 */

const SNAPSHOT = '20261127T030000Z-1a2b3c4d';
let redis: RedisServer;
let storages: Storage[];
let receiver: WebhookReceiver;

beforeAll(async () => {
  redis = await startRedis();
  storages = [createStateStorage(redis.url, '/nonexistent'), createStateStorage(redis.url, '/nonexistent')];
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  for (const storage of storages ?? []) await storage.dispose();
  await redis?.stop();
});

describe('deliverers over Redis', () => {
  it('share subscriptions by lease: every event once, in order; a dead lease is taken over', async () => {
    const [one, two] = storages as [Storage, Storage];
    const now = new Date();
    const keys = createKeyStore(one);
    const { record: key } = await issueKey({ org: 'receiver', scopes: ['cot:history'] }, keys, now, null);
    const policy = parseAllowHosts('127.0.0.1');
    const hooks = [];
    for (const path of ['/r1', '/r2', '/r3', '/r4'])
      hooks.push(
        await addHook(
          { keyId: key.id, url: `${receiver.url}${path}`, series: ['*'], types: [] },
          { hooks: createHookStore(one), keys },
          policy,
          now,
        ),
      );
    // The last one's lease is held by a deliverer that was killed: nobody sends to it before it expires.
    const killedAt = performance.now();
    expect(await createLease(one, 'killed', 800).acquire(deliveryLeaseName(hooks[3]!.id), Date.now())).toBe(
      true,
    );
    const log: ReleaseEvent[] = Array.from({ length: 25 }, (_, i) => ({
      id: `${SNAPSHOT}:${i + 1}`,
      type: 'series.released',
      snapshot: SNAPSHOT,
      source: 'ecb',
      series: `ecb.S${i}`,
      observed_at: formatTimestamp(now),
      public: true,
      data: {},
    }));
    const options = {
      feed: arrayFeed(log),
      policy,
      schedule: [20],
      timeoutMs: 2_000,
      leaseMs: 5_000,
      pollMs: 10,
    };
    const deliverers = [
      createDeliverer({ ...options, storage: one }),
      createDeliverer({ ...options, storage: two }),
    ];
    for (const deliverer of deliverers) deliverer.start();
    try {
      await waitUntil('every delivery', () => receiver.received.length >= 100, 20_000);
    } finally {
      await Promise.all(deliverers.map((deliverer) => deliverer.stop()));
    }
    for (const path of ['/r1', '/r2', '/r3', '/r4'])
      expect(
        receiver.at(path).map((delivery) => delivery.headers['webhook-id']),
        path,
      ).toEqual(log.map((event) => event.id));
    expect(receiver.at('/r4')[0]!.at - killedAt).toBeGreaterThanOrEqual(750);
  });
});

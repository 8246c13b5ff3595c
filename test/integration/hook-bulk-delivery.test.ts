import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Storage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/events/event.ts';
import { parseAllowHosts } from '../../src/hooks/address-policy.ts';
import { createDeliverer } from '../../src/hooks/deliverer.ts';
import { createHookStore } from '../../src/hooks/hook-store.ts';
import { addHook } from '../../src/hooks/manage-hooks.ts';
import { createBatcher } from '../../src/hooks/record-batches.ts';
import { writeItemText } from '../../src/keys/atomic-item.ts';
import { compareAndSetItems, readItemTexts } from '../../src/keys/atomic-item-batches.ts';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { issueKey } from '../../src/keys/manage-keys.ts';
import { mapConcurrent } from '../../src/lib/map-concurrent.ts';
import { formatTimestamp } from '../../src/lib/zoned-time.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { createTempDir } from '../helpers/temp-dir.ts';
import { arrayFeed } from '../helpers/webhook-receiver.ts';

/**
 * Delivery in bulk (issue 38): many subscriptions of one receiver get a release through a few
 * kept-alive connections, never more attempts at once than the bound per receiver host; the
 * state storage's batched reads and compare-and-sets decide each item alone, on files and Redis.
 */

const temp = createTempDir('mmds-bulk-delivery-');
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  temp.remove();
});

describe('batched compare-and-set', () => {
  for (const kind of ['file', 'redis', 'memory'] as const)
    it(`writes each item whose text is still the expected one and refuses the others (${kind})`, async () => {
      const storage: Storage = createStateStorage(
        kind === 'redis' ? redis.url : kind,
        join(temp.dir, `data-${kind}`),
      );
      try {
        await writeItemText(storage, 'tests:a', 'one');
        await writeItemText(storage, 'tests:b', 'two');
        const done = await compareAndSetItems(storage, [
          { key: 'tests:a', expected: 'one', next: 'ONE' },
          { key: 'tests:b', expected: 'stale', next: 'TWO' },
          { key: 'tests:c', expected: null, next: 'three' },
          { key: 'tests:a-absent', expected: 'x', next: 'y' },
        ]);
        expect(done).toEqual([true, false, true, false]);
        expect(await readItemTexts(storage, ['tests:a', 'tests:b', 'tests:c', 'tests:a-absent'])).toEqual([
          'ONE',
          'two',
          'three',
          null,
        ]);
      } finally {
        await storage.dispose();
      }
    });
});

describe('group commit', () => {
  it('sends what queues during a flush with the next flush, and each caller gets its own answer', async () => {
    const flushes: number[][] = [];
    const batched = createBatcher<number, number>(async (items) => {
      flushes.push(items);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return items.map((item) => item * 10);
    });
    const first = [1, 2, 3].map((n) => batched(n));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = [4, 5].map((n) => batched(n));
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(flushes).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });
});

describe('a release to many subscriptions of one receiver', () => {
  it('reaches all through kept-alive connections, at most the bound per host at once', async () => {
    const storage = createStateStorage('file', join(temp.dir, 'data-release'));
    let active = 0;
    let most = 0;
    let connections = 0;
    const paths = new Set<string>();
    const receiver: Server = createServer((request, response) => {
      active++;
      most = Math.max(most, active);
      request.resume();
      request.on('end', () =>
        setTimeout(() => {
          paths.add(request.url ?? '');
          active--;
          response.writeHead(204).end();
        }, 2),
      );
    });
    receiver.on('connection', () => connections++);
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    const deliverer = createDeliverer({
      storage,
      feed: arrayFeed(log),
      policy: parseAllowHosts('127.0.0.1'),
      hostConcurrency: 6,
      pollMs: 10_000,
    });
    try {
      const keys = createKeyStore(storage);
      const hooks = createHookStore(storage);
      const { record: key } = await issueKey(
        { org: 'bulk', scopes: ['observations:read'] },
        keys,
        new Date(),
        null,
      );
      const policy = parseAllowHosts('127.0.0.1');
      const created = new Date(Date.now() - 60_000);
      await mapConcurrent(
        Array.from({ length: 300 }, (_, i) => i),
        8,
        (i) =>
          addHook(
            { keyId: key.id, url: `${url}/s${i}`, series: ['*'], types: [] },
            { hooks, keys },
            policy,
            created,
          ),
      );
      log.push(event(1));
      await deliverer.runOnce();
      expect(paths.size).toBe(300);
      expect(most).toBeLessThanOrEqual(6);
      expect(most).toBeGreaterThan(1);
      // Keep-alive: a handful of connections for 300 deliveries, not one each.
      expect(connections).toBeLessThanOrEqual(12);
      // Every cursor was written: a second pass has nothing to send.
      paths.clear();
      await deliverer.runOnce();
      expect(paths.size).toBe(0);
      for (const record of await hooks.list()) expect(record).toMatchObject({ cursor: 'S1:1', delivered: 1 });
    } finally {
      await deliverer.stop();
      receiver.closeAllConnections();
      receiver.close();
      await storage.dispose();
    }
  });
});

const log: ReleaseEvent[] = [];
function event(n: number): ReleaseEvent {
  return {
    id: `S${n}:1`,
    type: 'release.published',
    snapshot: `S${n}`,
    source: 'ecb',
    series: null,
    observed_at: formatTimestamp(new Date()),
    public: true,
    data: {},
  };
}

import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateStorage, keyRecordDirectory } from '../../../src/keys/create-storage.ts';
import { KEY_CHANGES_CHANNEL } from '../../../src/keys/key-changes.ts';
import { createKey, hashSecret } from '../../../src/keys/key-codec.ts';
import { createKeyStore } from '../../../src/keys/key-store.ts';
import { type RedisServer, startRedis } from '../../helpers/redis-server.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * Servers cache key records per process (src/keys/key-record-cache.ts). Whatever changes a key,
 * through the CLI or any write to the key store, every instance must apply it within a second:
 * two real servers share the store (files, or Redis), and each change is polled for on both with
 * a deadline of one second after the command returned.
 */

const REAL_CLOCK = () => new Date();
const PATH = '/api/v1/observations?series=bls.CES0000000001&limit=1';
const DEADLINE_MS = 1000;

describe.each(['file', 'redis'] as const)(
  'key changes reach two instances within a second (%s store)',
  (kind) => {
    let fixture: SnapshotFixture;
    let redis: RedisServer | undefined;
    let env: Record<string, string>;
    let servers: TestServer[] = [];

    const issue = async (): Promise<{ key: string; id: string }> => {
      const run = await runMmds(
        [
          '--json',
          'keys',
          'issue',
          '--org',
          'Cache Org',
          '--scopes',
          'observations:read',
          '--rate-limit',
          '1000',
        ],
        env,
        REAL_CLOCK,
      );
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { key: string; id: string };
    };

    const keys = async (...args: string[]) => {
      const run = await runMmds(['--json', 'keys', ...args], env, REAL_CLOCK);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { key?: string };
    };

    /** GETs a keyed endpoint with the key on one instance: status and the key's limit. */
    const get = async (server: TestServer, key: string) => {
      const response = await fetch(`${server.url}${PATH}`, { headers: { Authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      return { status: response.status, limit: response.headers.get('x-ratelimit-limit') };
    };

    /** Both instances accept the key, twice (the second answer comes from the cache). */
    const expectAcceptedTwice = async (key: string) => {
      for (let i = 0; i < 2; i++) {
        expect((await Promise.all(servers.map((server) => get(server, key)))).map((r) => r.status)).toEqual([
          200, 200,
        ]);
      }
    };

    /** Polls both instances until `done` holds for both, and fails unless it did within the deadline. */
    const expectOnBothWithin = async (
      key: string,
      since: number,
      done: (reply: { status: number; limit: string | null }) => boolean,
    ) => {
      let replies: Array<{ status: number; limit: string | null }> = [];
      while (Date.now() - since < DEADLINE_MS) {
        replies = await Promise.all(servers.map((server) => get(server, key)));
        if (replies.every(done)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(replies.every(done), JSON.stringify(replies)).toBe(true);
      expect(Date.now() - since).toBeLessThan(DEADLINE_MS);
    };

    beforeAll(async () => {
      fixture = await createSampleSnapshot();
      if (kind === 'redis') redis = await startRedis();
      env = { ...fixture.env, ...(redis ? { MMDS_STORAGE: redis.url } : {}) };
      // A first key makes the key directory exist before the servers start watching it.
      await issue();
      for (let i = 0; i < 2; i++) {
        servers.push(
          await startTestServer({
            dataDir: fixture.dataDir,
            distDir: join(fixture.dataDir, 'no-dist'),
            storage: redis?.url,
          }),
        );
      }
      // Each instance has its change feed in place (the subscription is confirmed asynchronously).
      const deadline = Date.now() + 10_000;
      while (
        !servers.every((server) => server.logs.some((line) => line.event === 'key_cache' && line.enabled))
      ) {
        if (Date.now() > deadline) throw new Error('the key cache was not enabled on both instances');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });

    afterAll(async () => {
      for (const server of servers) await server.close();
      servers = [];
      await redis?.stop();
      fixture?.remove();
    });

    it('refuses a key revoked with `mmds keys revoke` on both instances', async () => {
      const { key, id } = await issue();
      await expectAcceptedTwice(key);
      await keys('revoke', id);
      await expectOnBothWithin(key, Date.now(), (reply) => reply.status === 401);
    });

    it('refuses the old key after `mmds keys rotate --grace 0` and accepts the new one', async () => {
      const { key, id } = await issue();
      await expectAcceptedTwice(key);
      const rotated = await keys('rotate', id, '--grace', '0');
      await expectOnBothWithin(key, Date.now(), (reply) => reply.status === 401);
      await expectAcceptedTwice(rotated.key!);
    });

    it('applies any other change to a key record (here its rate limit) on both instances', async () => {
      const { key, id } = await issue();
      await expectAcceptedTwice(key);
      const storage = createStateStorage(redis?.url ?? 'file', fixture.dataDir);
      try {
        const store = createKeyStore(storage);
        await store.put({ ...(await store.get(id))!, rate_limit: 7, scopes: ['observations:read'] });
      } finally {
        await storage.dispose();
      }
      await expectOnBothWithin(key, Date.now(), (reply) => reply.status === 200 && reply.limit === '7');
    });

    it('accepts a key issued after its id was refused (a cached absence) on both instances at once', async () => {
      // Unknown ids are cached like records (the same time for both, CONTRACT section 4); a write
      // of that id must drop the absence through the same notifications. The deadline is under
      // the cache's 500 ms age limit: only the notification, not expiry, can make it in time.
      const { plaintext, id } = createKey();
      for (let i = 0; i < 2; i++) {
        expect(
          (await Promise.all(servers.map((server) => get(server, plaintext)))).map((r) => r.status),
        ).toEqual([401, 401]);
      }
      const storage = createStateStorage(redis?.url ?? 'file', fixture.dataDir);
      try {
        const store = createKeyStore(storage);
        const template = (await store.list())[0]!;
        await store.put({
          ...template,
          id,
          scopes: ['observations:read'],
          revoked_at: null,
          replaced_by: null,
          replaces: null,
          grace_until: null,
          hash: hashSecret(plaintext, null),
        });
      } finally {
        await storage.dispose();
      }
      const since = Date.now();
      let replies: Array<{ status: number }> = [];
      while (Date.now() - since < 300) {
        replies = await Promise.all(servers.map((server) => get(server, plaintext)));
        if (replies.every((reply) => reply.status === 200)) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    });

    if (kind === 'redis') {
      it('still refuses within a second when the subscription drops and the message is lost', async () => {
        const { key, id } = await issue();
        await expectAcceptedTwice(key);
        const admin = new Redis(redis!.url);
        try {
          // Every subscribed connection is cut; the revocation is then published while they reconnect.
          const killed = await admin.client('KILL', 'TYPE', 'pubsub');
          expect(Number(killed)).toBeGreaterThanOrEqual(2);
          await keys('revoke', id);
          await expectOnBothWithin(key, Date.now(), (reply) => reply.status === 401);
          // And the subscriptions come back.
          const deadline = Date.now() + 10_000;
          while (Number(((await admin.pubsub('NUMSUB', KEY_CHANGES_CHANNEL)) as [string, number])[1]) < 2) {
            if (Date.now() > deadline) throw new Error('the instances did not subscribe again');
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        } finally {
          admin.disconnect();
        }
      });
    }

    if (kind === 'file') {
      it('still refuses within a second when the key directory is replaced under the watch', async () => {
        const { key, id } = await issue();
        await expectAcceptedTwice(key);
        // The watch follows the old directory's inode: no event reaches it from the new directory.
        const dir = keyRecordDirectory(fixture.dataDir);
        cpSync(dir, `${dir}.new`, { recursive: true });
        renameSync(dir, `${dir}.old`);
        renameSync(`${dir}.new`, dir);
        rmSync(`${dir}.old`, { recursive: true, force: true });
        await keys('revoke', id);
        await expectOnBothWithin(key, Date.now(), (reply) => reply.status === 401);
      });
    }
  },
);

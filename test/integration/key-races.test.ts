import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createStorage, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateStorage, keyRecordDirectory } from '../../src/keys/create-storage.ts';
import { createKeyStore, type KeyStore } from '../../src/keys/key-store.ts';
import { issueKey, KeyManagementError, revokeKey, rotateKey } from '../../src/keys/manage-keys.ts';
import { startRedis } from '../helpers/redis-server.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Rotate and revoke of one key, raced: each round issues a key, then runs `rotateKey` and
 * `revokeKey` at the same time through two key stores on two storage instances (two connections
 * to Redis, two handles on the key directory: what two `mmds keys` processes have), and checks
 * that the revocation was never lost: the old key never authenticates afterwards, its record is
 * revoked, and a rotation either came first (its replacement works) or was refused (and left no
 * replacement behind). The outcome counts are printed for RELIABILITY.md.
 */

const T0 = new Date('2026-11-23T12:00:00Z');
const ROUNDS = 150;

interface Backend {
  /** Two stores over the same data, as two processes would have. */
  stores: [KeyStore, KeyStore];
  close(): Promise<void>;
}

const backends: Record<string, () => Promise<Backend>> = {
  memory: async () => {
    // One process only: both stores share the one in-memory storage.
    const storage = createStorage({ driver: memoryDriver() });
    return { stores: [createKeyStore(storage), createKeyStore(storage)], close: () => storage.dispose() };
  },
  file: async () => {
    const temp = createTempDir('mmds-key-races-');
    const storages = [createStateStorage('file', temp.dir), createStateStorage('file', temp.dir)];
    return {
      stores: [createKeyStore(storages[0]!), createKeyStore(storages[1]!)],
      close: async () => {
        for (const storage of storages) await storage.dispose();
        temp.remove();
      },
    };
  },
  redis: async () => {
    const redis = await startRedis();
    const storages: Storage[] = [
      createStateStorage(redis.url, '/nonexistent'),
      createStateStorage(redis.url, '/nonexistent'),
    ];
    return {
      stores: [createKeyStore(storages[0]!), createKeyStore(storages[1]!)],
      close: async () => {
        for (const storage of storages) await storage.dispose();
        await redis.stop();
      },
    };
  },
};

describe.each(Object.keys(backends))('rotate and revoke raced (%s store)', (kind) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backends[kind]!();
  });
  afterAll(async () => {
    await backend?.close();
  });

  it(`never loses the revocation in ${ROUNDS} races`, async () => {
    const [rotator, revoker] = backend.stores;
    const outcomes = { rotated_then_revoked: 0, rotation_refused: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const { plaintext, record } = await issueKey(
        { org: 'Race Org', scopes: ['observations:read'] },
        rotator,
        T0,
        null,
      );
      // Alternate which call starts first, and hold the revocation back by 0-4 ms in two rounds of three, so that it lands
      // before the rotation's read, between its read and its write, or after it, across rounds.
      const rotate = () => rotateKey(record.id, { graceSeconds: 3600 }, rotator, T0, null);
      const revoke = async () => {
        if (round % 3 !== 0) await new Promise((resume) => setTimeout(resume, round % 5));
        return revokeKey(record.id, revoker, T0);
      };
      const [rotated, revoked] =
        round % 2 === 0
          ? await Promise.allSettled([rotate(), revoke()])
          : await Promise.allSettled([revoke(), rotate()]).then(([b, a]) => [a, b] as const);
      expect(revoked.status, String((revoked as PromiseRejectedResult).reason)).toBe('fulfilled');
      // A fresh store (no cache) reads what any server would.
      const reader = kind === 'memory' ? rotator : revoker;
      expect(await reader.authenticate(plaintext, T0, null)).toEqual({
        ok: false,
        log: { reason: 'revoked', keyId: record.id },
      });
      const stored = (await reader.get(record.id))!;
      expect(stored.revoked_at).not.toBeNull();
      if (rotated.status === 'fulfilled') {
        outcomes.rotated_then_revoked++;
        expect(stored.replaced_by).toBe(rotated.value.record.id);
        expect((await reader.authenticate(rotated.value.plaintext, T0, null)).ok).toBe(true);
      } else {
        outcomes.rotation_refused++;
        expect(rotated.reason).toBeInstanceOf(KeyManagementError);
        expect((rotated.reason as KeyManagementError).kind).toBe('conflict');
        expect(stored.replaced_by).toBeNull();
        // The replacement it had written was removed: no key of the org besides the revoked ones.
        const live = (await reader.list()).filter((r) => r.replaces === record.id);
        expect(live).toEqual([]);
      }
    }
    console.log(`key races (${kind}): ${JSON.stringify(outcomes)} in ${ROUNDS} rounds, 0 revocations lost`);
    expect(outcomes.rotated_then_revoked + outcomes.rotation_refused).toBe(ROUNDS);
  });
});

describe('key files', () => {
  it('are written 0600 in a key directory of 0700 created by the store', async () => {
    const temp = createTempDir('mmds-key-mode-');
    const storage = createStateStorage('file', temp.dir);
    try {
      const store = createKeyStore(storage);
      const { record } = await issueKey({ org: 'Mode Org', scopes: ['observations:read'] }, store, T0, null);
      const file = join(keyRecordDirectory(temp.dir), record.id);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(keyRecordDirectory(temp.dir)).mode & 0o777).toBe(0o700);
      // Every later write replaces the file with one of the same mode.
      await revokeKey(record.id, store, T0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await store.put({ ...(await store.get(record.id))!, rate_limit: 5 });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await storage.dispose();
      temp.remove();
    }
  });
});

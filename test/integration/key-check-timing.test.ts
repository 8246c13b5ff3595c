import type { Storage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { composeKey, createKey, parseKey } from '../../src/keys/key-codec.ts';
import { KeyRecordCache } from '../../src/keys/key-record-cache.ts';
import { createKeyStore, type KeyStore } from '../../src/keys/key-store.ts';
import { issueKey } from '../../src/keys/manage-keys.ts';
import { startRedis } from '../helpers/redis-server.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * CONTRACT section 4: a refusal never tells whether a key id exists, so checking an unknown id
 * must take as long as checking a known id with a wrong secret, both cold (the id's record not
 * read within the cache's age limit: the storage is read) and warm (answered from the cache).
 * Measured on `authenticate` itself over each real storage, with the server's cache moved by a
 * hand clock: at this level the storage read is most of the time, so a skipped read or a skipped
 * parse shows (a missing file was answered 3 times faster than a present one), while over HTTP the
 * rest of the request would hide a Redis or memory difference. The two kinds go strictly in
 * turns (A B, B A, ...), so that load from other processes hits both alike; only the medians
 * are compared. The figures are printed for RELIABILITY.md.
 */

const T0 = new Date('2026-11-23T12:00:00Z');
const PEPPER = 'timing-pepper';
const CHECKS_EACH = 2_000;
const WARMUP_EACH = 300;
const MAX_AGE_MS = 500;
/** Largest accepted |unknown median / known median - 1|. */
const TOLERANCE = 0.05;
/** Measurements made at most before the ratio must be within TOLERANCE. */
const ATTEMPTS = 3;

interface Backend {
  storage: Storage;
  close(): Promise<void>;
}

const backends: Record<string, () => Promise<Backend>> = {
  memory: async () => {
    const storage = createStateStorage('memory', '/nonexistent');
    return { storage, close: () => storage.dispose() };
  },
  file: async () => {
    const temp = createTempDir('mmds-key-timing-');
    const storage = createStateStorage('file', temp.dir);
    return {
      storage,
      close: async () => {
        await storage.dispose();
        temp.remove();
      },
    };
  },
  redis: async () => {
    const redis = await startRedis();
    const storage = createStateStorage(redis.url, '/nonexistent');
    return {
      storage,
      close: async () => {
        await storage.dispose();
        await redis.stop();
      },
    };
  },
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe.each(Object.keys(backends))('refused key check timing (%s storage)', (kind) => {
  let backend: Backend;
  let store: KeyStore;
  let ms = 0;
  let unknownKey: string;
  let wrongSecretKey: string;

  beforeAll(async () => {
    backend = await backends[kind]!();
    const cache = new KeyRecordCache({ maxAgeMs: MAX_AGE_MS, now: () => ms });
    // What followKeyChanges does once it hears every change (the file watch, the Redis channel).
    cache.setEnabled(true);
    store = createKeyStore(backend.storage, { cache });
    // A few keys, so that the storage is not one record alone.
    for (let i = 0; i < 5; i++)
      await issueKey({ org: 'Timing Org', scopes: ['observations:read'] }, store, T0, PEPPER);
    const { record } = await issueKey(
      { org: 'Example Bank', name: 'research desk', scopes: ['cot:history', 'observations:read'] },
      store,
      T0,
      PEPPER,
    );
    wrongSecretKey = composeKey(record.id, parseKey(createKey().plaintext)!.secret);
    unknownKey = createKey().plaintext;
  });
  afterAll(async () => {
    await backend?.close();
  });

  for (const temperature of ['cold', 'warm'] as const) {
    it(`takes as long for an unknown id as for a wrong secret, ${temperature}`, async () => {
      const check = async (key: string, expected: string): Promise<number> => {
        // Cold: past the age limit, so the cache reads the storage again; warm: the cache answers.
        if (temperature === 'cold') ms += MAX_AGE_MS + 1;
        const started = performance.now();
        const result = await store.authenticate(key, T0, PEPPER);
        const elapsed = performance.now() - started;
        expect(result.ok ? null : result.log.reason).toBe(expected);
        return elapsed * 1000;
      };
      const measure = async (): Promise<number> => {
        const unknownUs: number[] = [];
        const knownUs: number[] = [];
        for (let i = 0; i < WARMUP_EACH + CHECKS_EACH; i++) {
          const pair =
            i % 2 === 0
              ? [await check(unknownKey, 'unknown'), await check(wrongSecretKey, 'wrong_secret')]
              : [await check(wrongSecretKey, 'wrong_secret'), await check(unknownKey, 'unknown')].reverse();
          if (i < WARMUP_EACH) continue;
          unknownUs.push(pair[0]!);
          knownUs.push(pair[1]!);
        }
        const unknown = median(unknownUs);
        const known = median(knownUs);
        console.log(
          `key check timing (${kind}, ${temperature}): unknown id ${unknown.toFixed(1)} µs, ` +
            `known id + wrong secret ${known.toFixed(1)} µs, ratio ${(unknown / known).toFixed(3)} over ${CHECKS_EACH} each`,
        );
        return unknown / known;
      };
      // A burst of load from other processes can still tilt one run by a few per cent; a real
      // difference (0.34 to 0.86 before the decoy read) tilts every run.
      const ratios: number[] = [];
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        ratios.push(await measure());
        if (Math.abs(ratios.at(-1)! - 1) <= TOLERANCE) break;
      }
      const ratio = ratios.at(-1)!;
      expect(
        Math.abs(ratio - 1),
        `unknown/known median ratios ${ratios.map((r) => r.toFixed(3))}`,
      ).toBeLessThanOrEqual(TOLERANCE);
    });
  }
});

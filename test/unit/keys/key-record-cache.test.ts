import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { describe, expect, it } from 'vitest';
import { createKey, hashSecret } from '../../../src/keys/key-codec.ts';
import type { KeyRecord } from '../../../src/keys/key-record.ts';
import { KeyRecordCache } from '../../../src/keys/key-record-cache.ts';
import { createKeyStore } from '../../../src/keys/key-store.ts';
import { issueKey, revokeKey } from '../../../src/keys/manage-keys.ts';

const T0 = new Date('2026-11-23T12:00:00Z');

/** A record as the store holds it (the hash is of a throwaway key). */
function makeRecord(id: string, rateLimit = 60): KeyRecord {
  return {
    id,
    org: 'Example Bank',
    name: '',
    scopes: ['cot:history'],
    rate_limit: rateLimit,
    created_at: '2026-11-23T12:00:00Z',
    expires_at: null,
    revoked_at: null,
    replaces: null,
    replaced_by: null,
    grace_until: null,
    hash: `sha256:${'ab'.repeat(32)}`,
  };
}

/** A fake store: records by id, counting reads; `hold` makes reads wait until released. */
function createFakeStore() {
  const records = new Map<string, KeyRecord>();
  let reads = 0;
  let held: Array<() => void> | null = null;
  return {
    records,
    get reads() {
      return reads;
    },
    hold() {
      held = [];
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const resume of waiting) resume();
    },
    load: async (id: string): Promise<KeyRecord | null> => {
      reads++;
      const value = records.get(id) ?? null;
      if (held) await new Promise<void>((resume) => held!.push(resume));
      return value;
    },
  };
}

/** A hand-moved monotonic clock. */
function createClock() {
  let ms = 1000;
  return { now: () => ms, advance: (by: number) => (ms += by) };
}

describe('KeyRecordCache', () => {
  it('reads the store on every request while disabled', async () => {
    const store = createFakeStore();
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa'));
    const cache = new KeyRecordCache();
    for (let i = 0; i < 3; i++) await cache.read('aaaaaaaaaaaa', store.load);
    expect(store.reads).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('serves a record from memory until it is maxAgeMs old, then reads it again', async () => {
    const store = createFakeStore();
    const clock = createClock();
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa'));
    const cache = new KeyRecordCache({ maxAgeMs: 500, now: clock.now });
    cache.setEnabled(true);
    expect(await cache.read('aaaaaaaaaaaa', store.load)).toEqual(makeRecord('aaaaaaaaaaaa'));
    clock.advance(499);
    await cache.read('aaaaaaaaaaaa', store.load);
    expect(store.reads).toBe(1);
    // The store changed and no one said so: the max age alone bounds how long the old copy lives.
    store.records.set('aaaaaaaaaaaa', { ...makeRecord('aaaaaaaaaaaa'), revoked_at: '2026-11-23T12:00:01Z' });
    clock.advance(1);
    expect((await cache.read('aaaaaaaaaaaa', store.load))?.revoked_at).toBe('2026-11-23T12:00:01Z');
    expect(store.reads).toBe(2);
  });

  it('drops a record on invalidate, every record on clear, and all of them when disabled', async () => {
    const store = createFakeStore();
    const cache = new KeyRecordCache({ now: createClock().now });
    cache.setEnabled(true);
    for (const id of ['aaaaaaaaaaaa', 'bbbbbbbbbbbb']) {
      store.records.set(id, makeRecord(id));
      await cache.read(id, store.load);
    }
    expect(store.reads).toBe(2);
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa', 7));
    cache.invalidate('aaaaaaaaaaaa');
    expect((await cache.read('aaaaaaaaaaaa', store.load))?.rate_limit).toBe(7);
    await cache.read('bbbbbbbbbbbb', store.load);
    expect(store.reads).toBe(3);
    cache.clear();
    await cache.read('bbbbbbbbbbbb', store.load);
    expect(store.reads).toBe(4);
    cache.setEnabled(false);
    expect(cache.size).toBe(0);
    await cache.read('bbbbbbbbbbbb', store.load);
    expect(store.reads).toBe(5);
  });

  it('peeks at a fresh record or absence without a read, and at nothing stale, unread or disabled', async () => {
    const store = createFakeStore();
    const clock = createClock();
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa'));
    const cache = new KeyRecordCache({ maxAgeMs: 500, now: clock.now });
    expect(cache.peek('aaaaaaaaaaaa')).toBeUndefined();
    cache.setEnabled(true);
    expect(cache.peek('aaaaaaaaaaaa')).toBeUndefined();
    await cache.read('aaaaaaaaaaaa', store.load);
    await cache.read('bbbbbbbbbbbb', store.load);
    expect(cache.peek('aaaaaaaaaaaa')).toEqual(makeRecord('aaaaaaaaaaaa'));
    expect(cache.peek('bbbbbbbbbbbb')).toBeNull();
    expect(store.reads).toBe(2);
    clock.advance(500);
    expect(cache.peek('aaaaaaaaaaaa')).toBeUndefined();
    await cache.read('aaaaaaaaaaaa', store.load);
    cache.invalidate('aaaaaaaaaaaa');
    expect(cache.peek('aaaaaaaaaaaa')).toBeUndefined();
  });

  it('keeps an unknown id like a record: one store read per maxAgeMs, so both cost the same', async () => {
    const store = createFakeStore();
    const clock = createClock();
    const cache = new KeyRecordCache({ maxAgeMs: 500, now: clock.now });
    cache.setEnabled(true);
    for (let i = 0; i < 3; i++) expect(await cache.read('aaaaaaaaaaaa', store.load)).toBeNull();
    expect(store.reads).toBe(1);
    expect(cache.size).toBe(1);
    clock.advance(500);
    expect(await cache.read('aaaaaaaaaaaa', store.load)).toBeNull();
    expect(store.reads).toBe(2);
  });

  it('bounds unknown ids by maxEntries, however many are sent, evicting them like records', async () => {
    const store = createFakeStore();
    const cache = new KeyRecordCache({ maxEntries: 100, now: createClock().now });
    cache.setEnabled(true);
    const known = createKey().id;
    store.records.set(known, makeRecord(known));
    await cache.read(known, store.load);
    for (let i = 0; i < 1000; i++) expect(await cache.read(createKey().id, store.load)).toBeNull();
    expect(cache.size).toBe(100);
    expect(store.reads).toBe(1001);
    // The known record was the oldest read: the flood evicted it as it would an unknown id.
    await cache.read(known, store.load);
    expect(store.reads).toBe(1002);
  });

  it('drops a cached absence when the key is issued, so a new key works at once', async () => {
    const storage = createStorage({ driver: memoryDriver() });
    const cache = new KeyRecordCache({ maxAgeMs: 60_000, now: createClock().now });
    cache.setEnabled(true);
    const store = createKeyStore(storage, { cache });
    const { plaintext, id } = createKey();
    expect(await store.authenticate(plaintext, T0, null)).toEqual({
      ok: false,
      log: { reason: 'unknown', keyId: id },
    });
    expect(cache.size).toBe(1);
    // Written through this very store (the server's own process): the absence is dropped by put.
    await store.put({ ...makeRecord(id), hash: hashSecret(plaintext, null) });
    expect((await store.authenticate(plaintext, T0, null)).ok).toBe(true);
  });

  it('holds at most maxEntries records, dropping the oldest reads first', async () => {
    const store = createFakeStore();
    const cache = new KeyRecordCache({ maxEntries: 3, now: createClock().now });
    cache.setEnabled(true);
    const ids = Array.from({ length: 5 }, () => createKey().id);
    for (const id of ids) {
      store.records.set(id, makeRecord(id));
      await cache.read(id, store.load);
    }
    expect(cache.size).toBe(3);
    await cache.read(ids[4]!, store.load);
    expect(store.reads).toBe(5);
    await cache.read(ids[0]!, store.load);
    expect(store.reads).toBe(6);
  });

  it('shares one read among concurrent requests, but not with requests after a change', async () => {
    const store = createFakeStore();
    const cache = new KeyRecordCache({ now: createClock().now });
    cache.setEnabled(true);
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa'));
    store.hold();
    const first = cache.read('aaaaaaaaaaaa', store.load);
    const second = cache.read('aaaaaaaaaaaa', store.load);
    expect(store.reads).toBe(1);
    // The record changes while the read is under way: the old answer must not be kept or shared.
    store.records.set('aaaaaaaaaaaa', makeRecord('aaaaaaaaaaaa', 7));
    cache.invalidate('aaaaaaaaaaaa');
    const third = cache.read('aaaaaaaaaaaa', store.load);
    expect(store.reads).toBe(2);
    store.release();
    expect((await first)?.rate_limit).toBe(60);
    expect((await second)?.rate_limit).toBe(60);
    expect((await third)?.rate_limit).toBe(7);
    expect((await cache.read('aaaaaaaaaaaa', store.load))?.rate_limit).toBe(7);
    expect(store.reads).toBe(2);
  });

  it('lets a failed read fail every request that shared it, and keeps nothing', async () => {
    const cache = new KeyRecordCache({ now: createClock().now });
    cache.setEnabled(true);
    const failing = () => Promise.reject(new Error('store down'));
    await expect(cache.read('aaaaaaaaaaaa', failing)).rejects.toThrow('store down');
    expect(cache.size).toBe(0);
  });

  it('makes the key store refuse a revoked key at once when the change is announced', async () => {
    const storage = createStorage({ driver: memoryDriver() });
    const cache = new KeyRecordCache({ now: createClock().now });
    cache.setEnabled(true);
    const writer = createKeyStore(storage);
    const reader = createKeyStore(storage, { cache });
    const { plaintext, record } = await issueKey(
      { org: 'Example Bank', scopes: ['cot:history'] },
      writer,
      T0,
      null,
    );
    expect((await reader.authenticate(plaintext, T0, null)).ok).toBe(true);
    await revokeKey(record.id, writer, T0);
    // Without an announcement the cached copy is still used (the max age bounds it) ...
    expect((await reader.authenticate(plaintext, T0, null)).ok).toBe(true);
    // ... with one (a file watch or a Redis message does this), the next request reads the store.
    cache.invalidate(record.id);
    expect(await reader.authenticate(plaintext, T0, null)).toEqual({
      ok: false,
      log: { reason: 'revoked', keyId: record.id },
    });
  });
});

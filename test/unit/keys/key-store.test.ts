import { crc32 } from 'node:zlib';
import { createStorage, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/keys/key-codec.ts';
import { KeyRecordCache } from '../../../src/keys/key-record-cache.ts';
import { type AuthResult, createKeyStore, type KeyStore } from '../../../src/keys/key-store.ts';
import {
  issueKey,
  KeyManagementError,
  listKeys,
  revokeKey,
  rotateKey,
} from '../../../src/keys/manage-keys.ts';

const T0 = new Date('2026-11-23T12:00:00Z');
const PEPPER = 'test-pepper';

/** The fake clock: an instant `seconds` after T0. */
function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

let storage: Storage;
let store: KeyStore;

beforeEach(() => {
  storage = createStorage({ driver: memoryDriver() });
  store = createKeyStore(storage);
});

async function issue(overrides: Partial<Parameters<typeof issueKey>[0]> = {}) {
  return issueKey({ org: 'Example Bank', scopes: ['cot:history'], ...overrides }, store, T0, PEPPER);
}

function failureReason(result: AuthResult): string | null {
  return result.ok ? null : result.log.reason;
}

describe('authenticate', () => {
  it('accepts a valid key and returns its record', async () => {
    const { plaintext, record } = await issue({ rateLimit: 600, name: 'research' });
    const result = await store.authenticate(plaintext, at(10), PEPPER);
    expect(result).toEqual({ ok: true, record });
    expect(record).toMatchObject({
      org: 'Example Bank',
      name: 'research',
      rate_limit: 600,
      scopes: ['cot:history'],
    });
  });

  it('refuses malformed, unknown, wrong-secret, revoked, expired and rotated keys alike', async () => {
    const valid = await issue();
    const revoked = await issue();
    expect((await store.authenticate(revoked.plaintext, at(0), PEPPER)).ok).toBe(true);
    await revokeKey(revoked.record.id, store, at(1));
    const expiring = await issue({ expiresAt: at(3600) });
    const rotated = await issue();
    await rotateKey(rotated.record.id, { graceSeconds: 60 }, store, at(0), PEPPER);
    const unknown = createKey().plaintext;
    // Same id as a stored key, another secret (with a valid checksum).
    const wrongSecret = withChecksum(`mmds_${valid.record.id}_${createKey().plaintext.slice(18, 50)}`);
    const cases: [string, string, Date, string | null][] = [
      ['malformed', `${valid.plaintext}x`, at(10), PEPPER],
      ['unknown', unknown, at(10), PEPPER],
      ['wrong_secret', wrongSecret, at(10), PEPPER],
      ['wrong_secret', valid.plaintext, at(10), 'other-pepper'],
      ['wrong_secret', valid.plaintext, at(10), null],
      ['revoked', revoked.plaintext, at(1), PEPPER],
      ['expired', expiring.plaintext, at(3600), PEPPER],
      ['rotated', rotated.plaintext, at(60), PEPPER],
    ];
    const failures: AuthResult[] = [];
    for (const [reason, plaintext, now, pepper] of cases) {
      const result = await store.authenticate(plaintext, now, pepper);
      expect(failureReason(result), reason).toBe(reason);
      failures.push(result);
      // The log part may carry the key id, never the key or its secret.
      expect(JSON.stringify(result)).not.toContain(plaintext.slice(18, 50));
    }
    // What a caller may show is identical for every failure.
    for (const failure of failures) {
      const { log: _log, ...visible } = failure as Extract<AuthResult, { ok: false }>;
      expect(visible).toEqual({ ok: false });
    }
    // The same keys were good just before: the refusals come from the state, not from the setup.
    expect((await store.authenticate(expiring.plaintext, at(3599), PEPPER)).ok).toBe(true);
    expect((await store.authenticate(rotated.plaintext, at(59), PEPPER)).ok).toBe(true);
    expect((await store.authenticate(valid.plaintext, at(10), PEPPER)).ok).toBe(true);
  });

  it('reads the record on every call: a revocation through another store counts at once', async () => {
    const { plaintext, record } = await issue();
    expect((await store.authenticate(plaintext, at(1), PEPPER)).ok).toBe(true);
    await revokeKey(record.id, createKeyStore(storage), at(2));
    expect(failureReason(await store.authenticate(plaintext, at(2), PEPPER))).toBe('revoked');
  });

  it('refuses a key whose stored record is corrupt', async () => {
    const { plaintext, record } = await issue();
    await storage.setItem(`keys:${record.id}`, { ...record, rate_limit: 'lots' });
    expect(failureReason(await store.authenticate(plaintext, at(1), PEPPER))).toBe('invalid_record');
    await storage.setItem(`keys:${record.id}`, { ...record, id: 'aaaaaaaaaaaa' });
    expect(failureReason(await store.authenticate(plaintext, at(1), PEPPER))).toBe('invalid_record');
  });

  it('reads one present and one missing item for an unknown id and for a known one alike', async () => {
    // The real memory driver, with the items each check reads written down.
    const reads: string[] = [];
    const driver = memoryDriver();
    const counted = createStorage({
      driver: {
        ...driver,
        getItem: (key, options) => {
          reads.push(key);
          return driver.getItem(key, options);
        },
      },
    });
    const counting = createKeyStore(counted);
    const { record } = await issueKey({ org: 'Example Bank', scopes: ['cot:history'] }, counting, T0, PEPPER);
    const wrongSecret = withChecksum(`mmds_${record.id}_${createKey().plaintext.slice(18, 50)}`);
    const unknown = createKey();
    const readsOf = async (plaintext: string) => {
      reads.length = 0;
      await counting.authenticate(plaintext, at(1), PEPPER);
      return [...reads];
    };
    // The first unknown id writes the decoy; from then on it is read like a record.
    await readsOf(unknown.plaintext);
    expect(await readsOf(unknown.plaintext)).toEqual([`keys:${unknown.id}`, 'decoys:key-record']);
    expect(await readsOf(wrongSecret)).toEqual([`keys:${record.id}`, 'keys:absent']);
    // The decoy is record-shaped but no key: not listed, and no id of it authenticates.
    expect(await counted.getItem('decoys:key-record')).toMatchObject({
      hash: expect.stringMatching(/^hmac/),
    });
    expect((await counting.list()).map((r) => r.id)).toEqual([record.id]);
    expect(await counted.hasItem('keys:absent')).toBe(false);
  });

  it('stores only a hash: no stored value contains the key or its secret', async () => {
    const { plaintext } = await issue();
    const stored = JSON.stringify(
      await Promise.all((await storage.getKeys()).map((key) => storage.getItem(key))),
    );
    expect(stored).toMatch(/hmac-sha256:[0-9a-f]{64}/);
    expect(stored).not.toContain(plaintext);
    expect(stored).not.toContain(plaintext.slice(18, 50));
  });
});

describe('authenticateNow', () => {
  it('answers as authenticate, without a promise, once the cache holds the record or its absence', async () => {
    let ms = 0;
    const cache = new KeyRecordCache({ maxAgeMs: 500, now: () => ms });
    cache.setEnabled(true);
    const cached = createKeyStore(storage, { cache });
    const valid = await issue();
    const revoked = await issue();
    await revokeKey(revoked.record.id, store, at(1));
    const wrongSecret = withChecksum(`mmds_${valid.record.id}_${createKey().plaintext.slice(18, 50)}`);
    const cases: [string, string][] = [
      ['ok', valid.plaintext],
      ['unknown', createKey().plaintext],
      ['wrong_secret', wrongSecret],
      ['revoked', revoked.plaintext],
    ];
    for (const [name, plaintext] of cases) {
      // Nothing in memory yet for this id (the wrong secret's id was read with the valid key).
      if (name !== 'wrong_secret')
        expect(cached.authenticateNow(plaintext, at(10), PEPPER), name).toBeUndefined();
      const read = await cached.authenticate(plaintext, at(10), PEPPER);
      expect(failureReason(read) ?? 'ok', name).toBe(name);
      expect(cached.authenticateNow(plaintext, at(10), PEPPER), name).toEqual(read);
    }
    // A malformed key needs no record.
    expect(failureReason(cached.authenticateNow(`${valid.plaintext}x`, at(10), PEPPER)!)).toBe('malformed');
    // The record is old: the next check reads the store again.
    ms = 500;
    expect(cached.authenticateNow(valid.plaintext, at(10), PEPPER)).toBeUndefined();
    // A store without a cache never answers synchronously.
    expect(store.authenticateNow(valid.plaintext, at(10), PEPPER)).toBeUndefined();
  });
});

describe('rotateKey', () => {
  it('issues a replacement with the same org, name, scopes, limit and expiry', async () => {
    const old = await issue({
      name: 'ops',
      scopes: ['macro:history', 'cot:history'],
      rateLimit: 120,
      expiresAt: at(86_400),
    });
    const rotated = await rotateKey(old.record.id, { graceSeconds: 3600 }, store, at(100), PEPPER);
    expect(rotated.record).toMatchObject({
      org: 'Example Bank',
      name: 'ops',
      scopes: ['cot:history', 'macro:history'],
      rate_limit: 120,
      expires_at: '2026-11-24T12:00:00Z',
      replaces: old.record.id,
      created_at: '2026-11-23T12:01:40Z',
    });
    expect(rotated.record.id).not.toBe(old.record.id);
    expect(await store.get(old.record.id)).toMatchObject({
      replaced_by: rotated.record.id,
      grace_until: '2026-11-23T13:01:40Z',
      revoked_at: null,
    });
    // Within the grace period both keys work; after it only the new one.
    expect((await store.authenticate(old.plaintext, at(3699), PEPPER)).ok).toBe(true);
    expect(failureReason(await store.authenticate(old.plaintext, at(3700), PEPPER))).toBe('rotated');
    expect((await store.authenticate(rotated.plaintext, at(3700), PEPPER)).ok).toBe(true);
  });

  it('refuses the old key at once with a grace of 0', async () => {
    const old = await issue();
    const rotated = await rotateKey(old.record.id, { graceSeconds: 0 }, store, at(5), PEPPER);
    expect(failureReason(await store.authenticate(old.plaintext, at(5), PEPPER))).toBe('rotated');
    expect((await store.authenticate(rotated.plaintext, at(5), PEPPER)).ok).toBe(true);
  });

  it('refuses unknown ids, revoked keys and keys rotated already', async () => {
    await expect(rotateKey('aaaaaaaaaaaa', { graceSeconds: 0 }, store, T0, PEPPER)).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(rotateKey('../etc', { graceSeconds: 0 }, store, T0, PEPPER)).rejects.toMatchObject({
      kind: 'invalid_input',
    });
    const old = await issue();
    await rotateKey(old.record.id, { graceSeconds: 0 }, store, T0, PEPPER);
    await expect(rotateKey(old.record.id, { graceSeconds: 0 }, store, T0, PEPPER)).rejects.toMatchObject({
      kind: 'conflict',
    });
    const revoked = await issue();
    await revokeKey(revoked.record.id, store, T0);
    await expect(rotateKey(revoked.record.id, { graceSeconds: 0 }, store, T0, PEPPER)).rejects.toBeInstanceOf(
      KeyManagementError,
    );
  });
});

describe('issueKey, revokeKey and listKeys', () => {
  it('validates what a key is issued with', async () => {
    const bad: Partial<Parameters<typeof issueKey>[0]>[] = [
      { org: '' },
      { org: 'x'.repeat(101) },
      { org: 'bank\u0007' },
      { org: 'evil\u202ebank' },
      { org: ' padded' },
      { name: 'line\nbreak' },
      { scopes: [] },
      { scopes: ['cot:history', 'admin'] },
      { rateLimit: 0 },
      { rateLimit: 100_001 },
      { rateLimit: 1.5 },
      { expiresAt: T0 },
      { expiresAt: at(-1) },
    ];
    for (const overrides of bad) {
      await expect(issue(overrides), JSON.stringify(overrides)).rejects.toMatchObject({
        kind: 'invalid_input',
      });
    }
    expect(await store.list()).toEqual([]);
    await expect(
      issue({ org: 'x'.repeat(100), rateLimit: 100_000, scopes: ['observations:read'] }),
    ).resolves.toBeTruthy();
  });

  it('defaults the rate limit to 60 and records the issue time', async () => {
    const { record } = await issue();
    expect(record).toMatchObject({
      rate_limit: 60,
      created_at: '2026-11-23T12:00:00Z',
      name: '',
      expires_at: null,
    });
  });

  it('revokes idempotently, keeping the first revocation time', async () => {
    const { record } = await issue();
    expect(await revokeKey(record.id, store, at(10))).toMatchObject({
      changed: true,
      record: { revoked_at: '2026-11-23T12:00:10Z' },
    });
    expect(await revokeKey(record.id, store, at(20))).toMatchObject({
      changed: false,
      record: { revoked_at: '2026-11-23T12:00:10Z' },
    });
    await expect(revokeKey('bbbbbbbbbbbb', store, T0)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lists every key, oldest first, without hashes', async () => {
    const first = await issue({ org: 'A' });
    const second = await issueKey({ org: 'B', scopes: ['macro:history'] }, store, at(60), null);
    const listed = await listKeys(store);
    expect(listed.map((record) => record.id)).toEqual([first.record.id, second.record.id]);
    for (const record of listed) expect(record).not.toHaveProperty('hash');
  });
});

/** Builds a well-formed key from a body by appending its checksum (CRC32 in six base62 digits). */
function withChecksum(body: string): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return body + out;
}

import type { Storage } from 'unstorage';
import { MmdsError } from '../lib/errors.ts';
import { compareAndSetItem, readItemText, writeItemText } from './atomic-item.ts';
import { createEvenRecordRead } from './create-even-record-read.ts';
import { announceKeyChange } from './key-changes.ts';
import { isKeyId, parseKey, verifySecret } from './key-codec.ts';
import {
  getKeyStatus,
  isUsableStatus,
  type KeyRecord,
  KeyRecordSchema,
  type KeyStatus,
} from './key-record.ts';
import type { KeyRecordCache } from './key-record-cache.ts';

/** Why a key was refused: for the server's log only, never for the response. */
export type AuthFailureReason =
  | 'malformed'
  | 'unknown'
  | 'invalid_record'
  | 'wrong_secret'
  | Exclude<KeyStatus, 'active' | 'grace'>;

/**
 * The outcome of presenting a key. Every failure has the same public part (`ok: false`); `log`
 * says why for the server log and holds the key id at most, never the key.
 */
export type AuthResult =
  | { ok: true; record: KeyRecord }
  | { ok: false; log: { reason: AuthFailureReason; keyId: string | null } };

/** Key records over an unstorage instance (memory, files or Redis). */
export interface KeyStore {
  /** Reads a record, or null when there is none (or the id is not a key id). Throws on a corrupt record. */
  get(id: string): Promise<KeyRecord | null>;
  /** Validates and writes a record, whatever the store held. */
  put(record: KeyRecord): Promise<void>;
  /** Validates and writes a new record only if its id is unused; false when it is taken. */
  create(record: KeyRecord): Promise<boolean>;
  /**
   * Read-modify-write of one record with compare-and-set: `change` gets the current record and
   * returns the next one (or throws to give up); when another writer changed the record in
   * between, it is read and `change` called again, so no concurrent change is lost. Returns the
   * record written and the one it replaced. Throws a KeyUpdateError when there is no record.
   */
  update(
    id: string,
    change: (current: KeyRecord) => KeyRecord,
  ): Promise<{ record: KeyRecord; previous: KeyRecord }>;
  /** Deletes a record (one that was never handed out: the replacement of a rotation that failed). */
  remove(id: string): Promise<void>;
  /** Every record, oldest first. */
  list(): Promise<KeyRecord[]>;
  /** Checks a presented plaintext key. Throws only when the storage itself fails. */
  authenticate(plaintext: string, now: Date, pepper: string | null): Promise<AuthResult>;
  /**
   * The same check without a promise when the cache holds the key's record (or its absence)
   * fresh; undefined when only `authenticate` can tell (no cache, or the record must be read).
   */
  authenticateNow(plaintext: string, now: Date, pepper: string | null): AuthResult | undefined;
}

/** A stored record that does not pass validation. */
export class KeyRecordError extends MmdsError {
  constructor(id: string, cause: unknown) {
    super('key_record_invalid', `the stored record of key ${id} is not valid`, { cause });
    this.name = 'KeyRecordError';
  }
}

/** There is no record to update. */
export class KeyNotFoundError extends MmdsError {
  constructor(id: string) {
    super('key_not_found', `no key with id ${id}`);
    this.name = 'KeyNotFoundError';
  }
}

function refuse(reason: AuthFailureReason, keyId: string | null): AuthResult {
  return { ok: false, log: { reason, keyId } };
}

/**
 * The outcome for a well-formed key whose record (or absence) was read: the same work whether
 * the id is unknown or the secret wrong (CONTRACT section 4).
 */
function judge(
  plaintext: string,
  keyId: string,
  record: KeyRecord | null,
  now: Date,
  pepper: string | null,
): AuthResult {
  if (!record) {
    verifySecret(plaintext, pepper ? DUMMY_HASHES.peppered : DUMMY_HASHES.plain, pepper);
    return refuse('unknown', keyId);
  }
  if (!verifySecret(plaintext, record.hash, pepper)) return refuse('wrong_secret', keyId);
  const status = getKeyStatus(record, now);
  if (!isUsableStatus(status)) return refuse(status as AuthFailureReason, keyId);
  return { ok: true, record };
}

function parseRecord(id: string, raw: unknown): KeyRecord {
  const parsed = KeyRecordSchema.safeParse(raw);
  if (!parsed.success || parsed.data.id !== id) throw new KeyRecordError(id, parsed.error);
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Attempts of `update` before it gives up (each lost only to another write of the same key). */
const UPDATE_ATTEMPTS = 100;

/** Options of a key store. */
export interface KeyStoreOptions {
  /**
   * Where `authenticate` reads records through (the server's per-process cache, kept current by
   * followKeyChanges). Without it every authentication reads the storage.
   */
  cache?: KeyRecordCache;
}

const PREFIX = 'keys:';
// Compared against when the id is unknown, so that path does the same work as a wrong secret:
// the same algorithm as the records (HMAC with the pepper, SHA-256 without) and the same compare.
const DUMMY_HASHES = { plain: `sha256:${'0'.repeat(64)}`, peppered: `hmac-sha256:${'0'.repeat(64)}` };

/**
 * Creates the key store. Every write announces the changed key id (announceKeyChange), so that
 * servers drop their cached copy (or cached absence); `get`, `list` and `put` never read a cache.
 */
export function createKeyStore(storage: Storage, options: KeyStoreOptions = {}): KeyStore {
  const get = async (id: string): Promise<KeyRecord | null> => {
    // Only well-formed ids reach the storage: nothing a caller types becomes a path or a Redis pattern.
    if (!isKeyId(id)) return null;
    const raw = await storage.getItem(`${PREFIX}${id}`);
    if (raw === null) return null;
    return parseRecord(id, raw);
  };

  const changed = async (id: string) => {
    // This process's own copy (or cached absence) goes at once; other processes hear the announcement.
    options.cache?.invalidate(id);
    await announceKeyChange(storage, id);
  };

  // Key checks read through this, so that an unknown id costs what a known one does (the parsed
  // key's id is well-formed: no isKeyId here).
  const readEvenly = createEvenRecordRead(storage);
  const check = async (id: string): Promise<KeyRecord | null> => {
    const raw = await readEvenly(`${PREFIX}${id}`);
    return raw === null ? null : parseRecord(id, raw);
  };
  const cache = options.cache;
  const lookup = cache ? (id: string) => cache.read(id, check) : check;

  return {
    get,
    async put(record) {
      const valid = KeyRecordSchema.parse(record);
      await writeItemText(storage, `${PREFIX}${valid.id}`, JSON.stringify(valid));
      await changed(valid.id);
    },
    async create(record) {
      const valid = KeyRecordSchema.parse(record);
      const done = await compareAndSetItem(storage, `${PREFIX}${valid.id}`, null, JSON.stringify(valid));
      if (done) await changed(valid.id);
      return done;
    },
    async update(id, change) {
      if (!isKeyId(id)) throw new KeyNotFoundError(id);
      const key = `${PREFIX}${id}`;
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const text = await readItemText(storage, key);
        if (text === null) throw new KeyNotFoundError(id);
        const previous = parseRecord(id, parseJson(text));
        const record = KeyRecordSchema.parse(change(previous));
        if (record.id !== id) throw new Error(`an update of key ${id} may not change its id`);
        if (await compareAndSetItem(storage, key, text, JSON.stringify(record))) {
          await changed(id);
          return { record, previous };
        }
      }
      throw new Error(`key ${id} changed ${UPDATE_ATTEMPTS} times while it was being updated; try again`);
    },
    async remove(id) {
      if (!isKeyId(id)) return;
      await storage.removeItem(`${PREFIX}${id}`);
      await changed(id);
    },
    async list() {
      const ids = (await storage.getKeys('keys'))
        .map((key) => key.slice(PREFIX.length))
        .filter((id) => isKeyId(id));
      const records = await Promise.all(ids.map((id) => get(id)));
      return records
        .filter((record): record is KeyRecord => record !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
    async authenticate(plaintext, now, pepper) {
      const parsed = parseKey(plaintext);
      if (!parsed) return refuse('malformed', null);
      let record: KeyRecord | null;
      try {
        record = await lookup(parsed.id);
      } catch (error) {
        if (error instanceof KeyRecordError) return refuse('invalid_record', parsed.id);
        throw error;
      }
      return judge(plaintext, parsed.id, record, now, pepper);
    },
    authenticateNow(plaintext, now, pepper) {
      const parsed = parseKey(plaintext);
      if (!parsed) return refuse('malformed', null);
      const record = cache?.peek(parsed.id);
      return record === undefined ? undefined : judge(plaintext, parsed.id, record, now, pepper);
    },
  };
}

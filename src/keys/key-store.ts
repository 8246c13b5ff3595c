import type { Storage } from 'unstorage';
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
  /** Validates and writes a record. */
  put(record: KeyRecord): Promise<void>;
  /** Every record, oldest first. */
  list(): Promise<KeyRecord[]>;
  /** Checks a presented plaintext key. Throws only when the storage itself fails. */
  authenticate(plaintext: string, now: Date, pepper: string | null): Promise<AuthResult>;
}

/** A stored record that does not pass validation. */
export class KeyRecordError extends Error {
  constructor(id: string, cause: unknown) {
    super(`the stored record of key ${id} is not valid`, { cause });
    this.name = 'KeyRecordError';
  }
}

/** Options of a key store. */
export interface KeyStoreOptions {
  /**
   * Where `authenticate` reads records through (the server's per-process cache, kept current by
   * followKeyChanges). Without it every authentication reads the storage.
   */
  cache?: KeyRecordCache;
}

const PREFIX = 'keys:';
// Compared against when the id is unknown, so that path costs about as much as a wrong secret.
const DUMMY_HASH = `sha256:${'0'.repeat(64)}`;

/**
 * Creates the key store. Every write announces the changed key id (announceKeyChange), so that
 * servers drop their cached copy; `get`, `list` and `put` never use a cache.
 */
export function createKeyStore(storage: Storage, options: KeyStoreOptions = {}): KeyStore {
  const get = async (id: string): Promise<KeyRecord | null> => {
    // Only well-formed ids reach the storage: nothing a caller types becomes a path or a Redis pattern.
    if (!isKeyId(id)) return null;
    const raw = await storage.getItem(`${PREFIX}${id}`);
    if (raw === null) return null;
    const parsed = KeyRecordSchema.safeParse(raw);
    if (!parsed.success || parsed.data.id !== id) throw new KeyRecordError(id, parsed.error);
    return parsed.data;
  };

  const cache = options.cache;
  const lookup = cache ? (id: string) => cache.read(id, get) : get;

  return {
    get,
    async put(record) {
      const valid = KeyRecordSchema.parse(record);
      await storage.setItem(`${PREFIX}${valid.id}`, valid);
      await announceKeyChange(storage, valid.id);
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
      const fail = (reason: AuthFailureReason, keyId: string | null): AuthResult => ({
        ok: false,
        log: { reason, keyId },
      });
      const parsed = parseKey(plaintext);
      if (!parsed) return fail('malformed', null);
      let record: KeyRecord | null;
      try {
        record = await lookup(parsed.id);
      } catch (error) {
        if (error instanceof KeyRecordError) return fail('invalid_record', parsed.id);
        throw error;
      }
      if (!record) {
        verifySecret(plaintext, DUMMY_HASH, null);
        return fail('unknown', parsed.id);
      }
      if (!verifySecret(plaintext, record.hash, pepper)) return fail('wrong_secret', parsed.id);
      const status = getKeyStatus(record, now);
      if (!isUsableStatus(status)) return fail(status as AuthFailureReason, parsed.id);
      return { ok: true, record };
    },
  };
}

import type { Storage } from 'unstorage';
import { compareAndSetItem, readItemText } from '../keys/atomic-item.ts';
import { listItemKeys } from '../keys/atomic-item-batches.ts';
import { MmdsError } from '../lib/errors.ts';
import { isSealed, openSecret, sealSecret } from './secret-seal.ts';
import { type HookRecord, HookRecordSchema } from './subscription-record.ts';

/**
 * Webhook subscription records over the state storage (memory, files or Redis), as `hooks:<id>`
 * items. Written through the key store's atomic items: 0600 files replaced by a rename (the
 * records hold signing secrets), compare-and-set for every change, so that an operator's pause
 * and a deliverer's cursor advance never undo each other.
 */
export interface HookStore {
  get(id: string): Promise<HookRecord | null>;
  /** Writes a new record only if its id is unused; false when it is taken. */
  create(record: HookRecord): Promise<boolean>;
  /**
   * Read-modify-write with compare-and-set: `change` gets the current record and returns the next
   * (or the same object to write nothing); retried when another writer came in between. Returns
   * the record as stored afterwards. Throws a HookNotFoundError when there is none.
   */
  update(id: string, change: (current: HookRecord) => HookRecord): Promise<HookRecord>;
  remove(id: string): Promise<void>;
  /** Every record, oldest first. */
  list(): Promise<HookRecord[]>;
  /** Every subscription id, without reading the records (one unreadable record stops nothing). */
  ids(): Promise<string[]>;
}

/** There is no subscription of that id. */
export class HookNotFoundError extends MmdsError {
  constructor(id: string) {
    super('hook_not_found', `no webhook subscription with id ${id}`);
    this.name = 'HookNotFoundError';
  }
}

/** A stored record that does not pass validation. */
export class HookRecordError extends MmdsError {
  constructor(id: string, cause: unknown) {
    // A sealing problem says what to do; any other says the record is damaged.
    const why =
      cause instanceof Error && /MMDS_KEY_PEPPER/.test(cause.message) ? cause.message : 'is not valid';
    super(
      'hook_record_invalid',
      `the stored record of webhook subscription ${id} ${why.startsWith('its') ? `cannot be read: ${why}` : why}`,
      { cause },
    );
    this.name = 'HookRecordError';
  }
}

/** The storage key prefix of subscription records. */
export const HOOK_PREFIX = 'hooks:';
const ID = /^[a-z2-7]{12}$/;
const UPDATE_ATTEMPTS = 100;

/** Tells whether a text has the form of a subscription id (nothing else reaches the storage). */
export function isHookId(text: unknown): text is string {
  return typeof text === 'string' && ID.test(text);
}

/** Reads a stored record, opening sealed secrets (throws a HookRecordError). */
export function parseHookRecord(id: string, text: string, pepper: string | null): HookRecord {
  let raw: { secrets?: Array<{ secret?: unknown }> };
  try {
    raw = JSON.parse(text);
    for (const entry of raw.secrets ?? [])
      if (typeof entry.secret === 'string' && isSealed(entry.secret))
        entry.secret = openSecret(entry.secret, pepper);
  } catch (error) {
    throw new HookRecordError(id, error);
  }
  const parsed = HookRecordSchema.safeParse(raw);
  if (!parsed.success || parsed.data.id !== id) throw new HookRecordError(id, parsed.error);
  return parsed.data;
}

/** The stored text of a record: validated, its secrets sealed when there is a pepper. */
export function serialiseHookRecord(record: HookRecord, pepper: string | null): string {
  const valid = HookRecordSchema.parse(record);
  if (pepper === null) return JSON.stringify(valid);
  return JSON.stringify({
    ...valid,
    secrets: valid.secrets.map((entry) => ({ ...entry, secret: sealSecret(entry.secret, pepper) })),
  });
}

/**
 * Creates the subscription store over a state storage; with a pepper (MMDS_KEY_PEPPER) the
 * signing secrets are sealed at rest (secret-seal.ts).
 */
export function createHookStore(storage: Storage, pepper: string | null = null): HookStore {
  const get = async (id: string) => {
    if (!isHookId(id)) return null;
    const text = await readItemText(storage, `${HOOK_PREFIX}${id}`);
    return text === null ? null : parseHookRecord(id, text, pepper);
  };
  const ids = async () =>
    (await listItemKeys(storage, 'hooks'))
      .map((key) => key.slice(HOOK_PREFIX.length))
      .filter((id) => isHookId(id));
  return {
    get,
    async create(record) {
      return compareAndSetItem(
        storage,
        `${HOOK_PREFIX}${record.id}`,
        null,
        serialiseHookRecord(record, pepper),
      );
    },
    async update(id, change) {
      if (!isHookId(id)) throw new HookNotFoundError(id);
      const key = `${HOOK_PREFIX}${id}`;
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const text = await readItemText(storage, key);
        if (text === null) throw new HookNotFoundError(id);
        const current = parseHookRecord(id, text, pepper);
        const next = change(current);
        if (next === current) return current;
        if (next.id !== id) throw new Error(`an update of subscription ${id} may not change its id`);
        if (await compareAndSetItem(storage, key, text, serialiseHookRecord(next, pepper)))
          return HookRecordSchema.parse(next);
      }
      throw new Error(`subscription ${id} changed ${UPDATE_ATTEMPTS} times while it was being updated`);
    },
    async remove(id) {
      if (isHookId(id)) await storage.removeItem(`${HOOK_PREFIX}${id}`);
    },
    ids,
    async list() {
      const records = await Promise.all((await ids()).map((id) => get(id)));
      return records
        .filter((record): record is HookRecord => record !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
  };
}

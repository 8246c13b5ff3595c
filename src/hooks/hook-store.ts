import type { Storage } from 'unstorage';
import { compareAndSetItem, readItemText } from '../keys/atomic-item.ts';
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
}

/** There is no subscription of that id. */
export class HookNotFoundError extends Error {
  constructor(id: string) {
    super(`no webhook subscription with id ${id}`);
    this.name = 'HookNotFoundError';
  }
}

/** A stored record that does not pass validation. */
export class HookRecordError extends Error {
  constructor(id: string, cause: unknown) {
    super(`the stored record of webhook subscription ${id} is not valid`, { cause });
    this.name = 'HookRecordError';
  }
}

const PREFIX = 'hooks:';
const ID = /^[a-z2-7]{12}$/;
const UPDATE_ATTEMPTS = 100;

/** Tells whether a text has the form of a subscription id (nothing else reaches the storage). */
export function isHookId(text: unknown): text is string {
  return typeof text === 'string' && ID.test(text);
}

function parse(id: string, text: string): HookRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new HookRecordError(id, error);
  }
  const parsed = HookRecordSchema.safeParse(raw);
  if (!parsed.success || parsed.data.id !== id) throw new HookRecordError(id, parsed.error);
  return parsed.data;
}

/** Creates the subscription store over a state storage. */
export function createHookStore(storage: Storage): HookStore {
  const get = async (id: string) => {
    if (!isHookId(id)) return null;
    const text = await readItemText(storage, `${PREFIX}${id}`);
    return text === null ? null : parse(id, text);
  };
  return {
    get,
    async create(record) {
      const valid = HookRecordSchema.parse(record);
      return compareAndSetItem(storage, `${PREFIX}${valid.id}`, null, JSON.stringify(valid));
    },
    async update(id, change) {
      if (!isHookId(id)) throw new HookNotFoundError(id);
      const key = `${PREFIX}${id}`;
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const text = await readItemText(storage, key);
        if (text === null) throw new HookNotFoundError(id);
        const current = parse(id, text);
        const next = change(current);
        if (next === current) return current;
        const valid = HookRecordSchema.parse(next);
        if (valid.id !== id) throw new Error(`an update of subscription ${id} may not change its id`);
        if (await compareAndSetItem(storage, key, text, JSON.stringify(valid))) return valid;
      }
      throw new Error(`subscription ${id} changed ${UPDATE_ATTEMPTS} times while it was being updated`);
    },
    async remove(id) {
      if (isHookId(id)) await storage.removeItem(`${PREFIX}${id}`);
    },
    async list() {
      const ids = (await storage.getKeys('hooks'))
        .map((key) => key.slice(PREFIX.length))
        .filter((id) => isHookId(id));
      const records = await Promise.all(ids.map((id) => get(id)));
      return records
        .filter((record): record is HookRecord => record !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
  };
}

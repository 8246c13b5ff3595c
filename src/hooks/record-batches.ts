import type { Storage } from 'unstorage';
import { compareAndSetItems, readItemTexts } from '../keys/atomic-item-batches.ts';
import { HOOK_PREFIX, parseHookRecord, serialiseHookRecord } from './hook-store.ts';
import type { HookRecord } from './subscription-record.ts';

/**
 * Subscription records read and written in batches (issue 38), for the deliverer: the reads and
 * compare-and-set writes that many subscriptions ask for at about the same moment go to the state
 * storage together (group commit): one MGET and one script on Redis instead of one round trip
 * per subscription and attempt. A request waits for the batch under way to finish, then goes with
 * everything that queued meanwhile, so an idle deliverer adds no wait and a busy one writes many
 * cursors per round trip. Each write is still a compare-and-set of its own record: a batch never
 * applies an outcome over an operator's change (the caller reads again and decides).
 */

/** A record as read, with the exact text that a compare-and-set of it must find. */
export interface ReadRecord {
  record: HookRecord;
  text: string;
}

/** Batched access to subscription records. */
export interface RecordBatches {
  /** The record (null: removed); throws a HookRecordError for a damaged one. */
  read(id: string): Promise<ReadRecord | null>;
  /** Writes `next` if the record is still `expected.text`; the record as written, or null when it was not. */
  write(expected: ReadRecord, next: HookRecord): Promise<ReadRecord | null>;
}

/** Parsed records kept by their text (more than any pass of a deliverer reads). */
const MAX_PARSED = 50_000;

/** Freezes a parsed record and what it holds (records are changed by copying, never in place). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Most items one batch carries (a Redis script's arguments stay small). */
const MAX_BATCH = 500;

/**
 * Queues requests and hands them to `flush` together: the first at the next turn of the event
 * loop, later ones while a flush is under way with the next flush. `flush` answers one result per
 * item, in order.
 */
export function createBatcher<I, O>(flush: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  let queue: Array<{ item: I; resolve: (out: O) => void; reject: (error: unknown) => void }> = [];
  let running = false;
  const run = async () => {
    while (queue.length > 0) {
      const taken = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        const out = await flush(taken.map((entry) => entry.item));
        for (const [index, entry] of taken.entries()) entry.resolve(out[index]!);
      } catch (error) {
        for (const entry of taken) entry.reject(error);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running) return;
      running = true;
      // What the same turn of the event loop asks for goes in the first batch too.
      setImmediate(() => void run());
    });
}

/** Creates the batched reads and writes over a state storage (the pepper seals secrets, as in hook-store.ts). */
export function createRecordBatches(storage: Storage, pepper: string | null): RecordBatches {
  const read = createBatcher<string, string | null>((ids) =>
    readItemTexts(
      storage,
      ids.map((id) => `${HOOK_PREFIX}${id}`),
    ),
  );
  const write = createBatcher<{ id: string; expected: string; next: string }, boolean>((items) =>
    compareAndSetItems(
      storage,
      items.map((item) => ({ key: `${HOOK_PREFIX}${item.id}`, expected: item.expected, next: item.next })),
    ),
  );
  // Records parsed by their text: a deliverer reads every record on each pass, and most are as
  // they were (parsing and validating each again was a fifth of its time). Frozen, since shared.
  const parsed = new Map<string, HookRecord>();
  const parse = (id: string, text: string): HookRecord => {
    const known = parsed.get(text);
    if (known?.id === id) return known;
    const record = deepFreeze(parseHookRecord(id, text, pepper));
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(text, record);
    return record;
  };
  return {
    async read(id) {
      const text = await read(id);
      return text === null ? null : { record: parse(id, text), text };
    },
    async write(expected, next) {
      const text = serialiseHookRecord(next, pepper);
      const done = await write({ id: expected.record.id, expected: expected.text, next: text });
      return done ? { record: next, text } : null;
    },
  };
}

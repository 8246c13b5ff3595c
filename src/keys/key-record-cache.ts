import type { KeyRecord } from './key-record.ts';

/** Options of a KeyRecordCache. */
export interface KeyRecordCacheOptions {
  /**
   * Longest time a record is used without reading it again, even when no change was announced
   * (default 500 ms): the bound on a revocation's delay if a notification is ever lost.
   */
  maxAgeMs?: number;
  /** Most records held (default 10 000); the oldest reads are dropped first. */
  maxEntries?: number;
  /** A monotonic clock in ms (default `performance.now`); tests move it by hand. */
  now?: () => number;
}

interface Entry {
  /** The record, or null: the store held none for this id when it was read. */
  record: KeyRecord | null;
  /** When the read that produced it started (a change after that instant may not be in it). */
  readAt: number;
}

/**
 * Key records of one process, read through to the key store: a request with a key whose record
 * was read less than `maxAgeMs` ago uses it from memory. What the store answered is held either
 * way, a record (the hash, never a key) or its absence: CONTRACT section 4 says no response tells
 * whether a key id exists, and caching only existing records made an unknown id measurably slower
 * than a known one with a wrong secret (a store read against a memory hit). Absent and present
 * ids share one map, one age limit, one invalidation and one bound (`maxEntries`, oldest reads
 * dropped first), so a flood of random ids evicts both kinds alike and never grows the cache.
 *
 * It caches only while enabled, that is while its owner receives every change of the store (a
 * file watch, a Redis subscription): `invalidate(id)` on a change, `clear()` when changes may have
 * been missed, `setEnabled(false)` when the notifications stop (every read then goes to the
 * store). A read that was under way when a change arrived is not kept, nor shared with requests
 * that come after the change.
 */
export class KeyRecordCache {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<KeyRecord | null>>();
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Bumped by every invalidation: a read that started under an older generation is not kept. */
  #generation = 0;
  #enabled = false;

  constructor(options: KeyRecordCacheOptions = {}) {
    this.#maxAgeMs = options.maxAgeMs ?? 500;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.#now = options.now ?? (() => performance.now());
  }

  /** Returns the record of a key id, from memory when fresh, else through `load` (one read per id at a time). */
  read(id: string, load: (id: string) => Promise<KeyRecord | null>): Promise<KeyRecord | null> {
    if (!this.#enabled) return load(id);
    const entry = this.#entries.get(id);
    if (entry !== undefined && this.#now() - entry.readAt < this.#maxAgeMs)
      return Promise.resolve(entry.record);
    const pending = this.#pending.get(id);
    if (pending !== undefined) return pending;
    const generation = this.#generation;
    const readAt = this.#now();
    const reading = load(id).then(
      (record) => {
        if (this.#pending.get(id) === reading) this.#pending.delete(id);
        if (generation === this.#generation && this.#enabled) this.#keep(id, record, readAt);
        return record;
      },
      (error: unknown) => {
        if (this.#pending.get(id) === reading) this.#pending.delete(id);
        throw error;
      },
    );
    this.#pending.set(id, reading);
    return reading;
  }

  /**
   * The record of a key id when memory holds a fresh one (or a fresh absence: null), without a
   * read; undefined when `read` would go to the store. Lets a server answer without a promise.
   */
  peek(id: string): KeyRecord | null | undefined {
    if (!this.#enabled) return undefined;
    const entry = this.#entries.get(id);
    return entry !== undefined && this.#now() - entry.readAt < this.#maxAgeMs ? entry.record : undefined;
  }

  /** Forgets one key's record (its record changed). */
  invalidate(id: string): void {
    this.#generation++;
    this.#entries.delete(id);
    this.#pending.delete(id);
  }

  /** Forgets every record (changes may have been missed). */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#pending.clear();
  }

  /** Turns caching on (changes are being received) or off (they are not: every read goes to the store). */
  setEnabled(enabled: boolean): void {
    this.clear();
    this.#enabled = enabled;
  }

  /** True while records are cached. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** Number of ids held (records and known absences). */
  get size(): number {
    return this.#entries.size;
  }

  #keep(id: string, record: KeyRecord | null, readAt: number): void {
    this.#entries.delete(id);
    this.#entries.set(id, { record, readAt });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}

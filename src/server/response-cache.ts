/** A rendered response body kept for reuse. */
export interface CachedBody {
  body: Buffer;
  etag: string;
  contentType: string;
}

/**
 * A bounded LRU of rendered bodies. Snapshots are immutable, so a body keyed by snapshot and
 * normalised request never goes stale; it is only evicted for space.
 */
export class ResponseCache {
  readonly #entries = new Map<string, CachedBody>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEntries = 2000, maxBytes = 64 * 1024 * 1024) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** Returns a cached body and marks it recently used. */
  get(key: string): CachedBody | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Stores a body, evicting the least recently used ones beyond the bounds. */
  set(key: string, entry: CachedBody): void {
    if (entry.body.length > this.#maxBytes / 8) return;
    const old = this.#entries.get(key);
    if (old) this.#bytes -= old.body.length;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    for (const [oldest, value] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= value.body.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

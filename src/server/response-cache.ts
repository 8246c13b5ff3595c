import type { Representation } from './http-response.ts';

/**
 * A bounded LRU of rendered representations. Snapshots are immutable, so a body keyed by
 * snapshot and normalised request never goes stale; it is only evicted for space.
 *
 * The byte budget covers everything an entry keeps alive: its body, the gzip and brotli copies
 * made for it later (respondWith adds them on the first request that accepts the encoding, and
 * reports each through `onCompressed`), its key, ETag, media type and Link header. Every buffer
 * it keeps is one of its own (see ownBytes), so the bytes counted are the bytes held.
 */
export class ResponseCache {
  readonly #entries = new Map<string, { representation: Representation; bytes: number }>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEntries = 2000, maxBytes = 64 * 1024 * 1024) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** Returns a cached representation and marks it recently used. */
  get(key: string): Representation | undefined {
    const held = this.#entries.get(key);
    if (!held) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, held);
    return held.representation;
  }

  /**
   * Stores a representation (its body moved into a buffer of its own), evicting the least
   * recently used ones beyond the bounds. One larger than an eighth of the budget is not kept:
   * returns whether it was.
   */
  set(key: string, representation: Representation): boolean {
    this.#remove(key);
    if (heldBytes(key, representation) > this.#maxBytes / 8) return false;
    representation.body = ownBytes(representation.body);
    if (representation.gzip) representation.gzip = ownBytes(representation.gzip);
    if (representation.br) representation.br = ownBytes(representation.br);
    const bytes = heldBytes(key, representation);
    this.#entries.set(key, { representation, bytes });
    this.#bytes += bytes;
    representation.onCompressed = () => this.#recount(key, representation);
    this.#evict();
    return this.#entries.has(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes counted against the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The budget in bytes. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** The entries held, least recently used first (for the accounting checks). */
  *held(): IterableIterator<[string, Representation]> {
    for (const [key, { representation }] of this.#entries) yield [key, representation];
  }

  /** A compressed copy was added to a representation: count it if the cache still holds it. */
  #recount(key: string, representation: Representation): void {
    const held = this.#entries.get(key);
    if (held?.representation !== representation) return;
    if (representation.gzip) representation.gzip = ownBytes(representation.gzip);
    if (representation.br) representation.br = ownBytes(representation.br);
    const bytes = heldBytes(key, representation);
    this.#bytes += bytes - held.bytes;
    held.bytes = bytes;
    this.#evict();
  }

  #evict(): void {
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
    }
  }

  #remove(key: string): void {
    const held = this.#entries.get(key);
    if (!held) return;
    this.#entries.delete(key);
    this.#bytes -= held.bytes;
    held.representation.onCompressed = undefined;
  }
}

/** The bytes an entry keeps alive: its buffers and its strings (as UTF-8, a lower bound). */
export function heldBytes(key: string, representation: Representation): number {
  return (
    representation.body.length +
    (representation.gzip?.length ?? 0) +
    (representation.br?.length ?? 0) +
    Buffer.byteLength(key) +
    Buffer.byteLength(representation.etag) +
    Buffer.byteLength(representation.contentType) +
    Buffer.byteLength(representation.link ?? '')
  );
}

/**
 * The bytes in a buffer of their own. zlib's output and a small Buffer.from() are views into a
 * larger block (64 KiB on Node 24: zlib's chunk, Buffer's pool), which a kept view keeps alive
 * whole: a 900-byte gzip copy held 64 KiB.
 */
export function ownBytes(buffer: Buffer): Buffer {
  if (buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.length) return buffer;
  const own = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(own);
  return own;
}

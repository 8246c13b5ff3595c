import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressBody, type Representation, respondWith } from '../../../src/server/http-response.ts';
import { heldBytes, ResponseCache } from '../../../src/server/response-cache.ts';
import { ResponseHeaders } from '../../../src/server/response-headers.ts';

/**
 * The response cache's byte budget against what it really holds: bodies rendered as
 * represent-route renders them (JSON through Buffer.from), compressed by respondWith with real
 * gzip and brotli on the first request that accepts each encoding.
 */

/** A JSON body of about `rows` observations, built as represent-route builds one. */
function representation(n: number, rows: number): Representation {
  const data = Array.from({ length: rows }, (_, i) => ({
    series_key: `ecb.S${n}`,
    period: `2024-${String((i % 12) + 1).padStart(2, '0')}-01`,
    value: ((n * 7919 + i * 104729) % 100000) / 1000,
  }));
  const body = Buffer.from(`{"data":${JSON.stringify(data)},"meta":{"n":${n}}}`);
  return {
    body,
    ...compressBody(body),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
    contentType: 'application/json; charset=utf-8',
    link: n % 3 === 0 ? `</api/v1/observations?series=ecb.S${n}&cursor=abc>; rel="next"` : null,
  };
}

function serve(entry: Representation, acceptEncoding: string | null): Response {
  const headers = acceptEncoding ? { 'accept-encoding': acceptEncoding } : undefined;
  return respondWith(new Request('http://mmds.test/api/v1/x', { headers }), entry, new ResponseHeaders());
}

/** What the cache's entries hold, summed from the buffers and strings themselves. */
function sumHeld(cache: ResponseCache): { bytes: number; compressed: number; shared: number } {
  let bytes = 0;
  let compressed = 0;
  let shared = 0;
  for (const [key, entry] of cache.held()) {
    for (const buffer of [entry.body, entry.gzip, entry.br]) {
      if (!buffer) continue;
      bytes += buffer.length;
      // A view into a larger block keeps the whole block alive.
      if (buffer.buffer.byteLength !== buffer.length) shared += 1;
    }
    compressed += (entry.gzip?.length ?? 0) + (entry.br?.length ?? 0);
    bytes += Buffer.byteLength(key) + Buffer.byteLength(entry.etag) + Buffer.byteLength(entry.contentType);
    bytes += Buffer.byteLength(entry.link ?? '');
  }
  return { bytes, compressed, shared };
}

describe('ResponseCache byte accounting', () => {
  it('counts every encoding it holds and never exceeds its budget as compressed copies are added', async () => {
    const cache = new ResponseCache(2000, 256 * 1024);
    let maxSeen = 0;
    let compressedSeen = 0;
    for (let n = 0; n < 400; n++) {
      const key = `snap k observations ${n}`;
      const entry = representation(n, 5 + ((n * 37) % 150));
      cache.set(key, entry);
      // Most entries are then asked for in both encodings, as browsers and curl --compressed do.
      const encodings = n % 5 === 0 ? [null] : ['gzip', 'br', 'gzip, deflate, br'];
      for (const encoding of encodings) {
        const response = serve(cache.get(key) ?? entry, encoding);
        const bytes = Buffer.from(await response.arrayBuffer());
        const plain =
          response.headers.get('content-encoding') === 'br'
            ? brotliDecompressSync(bytes)
            : response.headers.get('content-encoding') === 'gzip'
              ? gunzipSync(bytes)
              : bytes;
        expect(plain.equals(entry.body)).toBe(true);
        const held = sumHeld(cache);
        expect(cache.bytes).toBe(held.bytes);
        expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
        expect(held.shared).toBe(0);
        maxSeen = Math.max(maxSeen, cache.bytes);
        compressedSeen = Math.max(compressedSeen, held.compressed);
      }
    }
    // The run filled the budget and the compressed copies were a real part of it.
    expect(maxSeen).toBeGreaterThan(cache.maxBytes * 0.9);
    expect(compressedSeen).toBeGreaterThan(cache.maxBytes * 0.1);
    console.info(
      `response cache: ${cache.size} entries, ${cache.bytes} bytes counted of ${cache.maxBytes}, compressed copies up to ${compressedSeen} bytes`,
    );
  });

  it('does not count a copy made for a representation it has already evicted', () => {
    const cache = new ResponseCache(2, 1024 * 1024);
    const first = representation(1, 100);
    cache.set('a', first);
    cache.set('b', representation(2, 100));
    cache.set('c', representation(3, 100));
    expect([...cache.held()].map(([key]) => key)).toEqual(['b', 'c']);
    const before = cache.bytes;
    serve(first, 'br');
    expect(first.br).toBeInstanceOf(Buffer);
    expect(cache.bytes).toBe(before);
    expect(cache.bytes).toBe(sumHeld(cache).bytes);
  });

  it('replacing a key counts the new representation only', () => {
    const cache = new ResponseCache();
    const old = representation(1, 50);
    cache.set('a', old);
    serve(old, 'gzip');
    const fresh = representation(2, 80);
    cache.set('a', fresh);
    expect(cache.bytes).toBe(heldBytes('a', fresh));
    serve(old, 'br');
    expect(cache.bytes).toBe(heldBytes('a', fresh));
  });
});

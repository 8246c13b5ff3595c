import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { failure } from '../contract/envelope.ts';
import type { ApiError } from '../contract/errors.ts';

/** A body ready to send, with its compressed forms when worth it. */
export interface Representation {
  body: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  etag: string;
  contentType: string;
  /** `Link: <…>; rel="next"` of a paginated response (CSV has no meta to carry the cursor). */
  link?: string | null;
}

const COMPRESS_MIN_BYTES = 1024;

/** Compresses a freshly rendered body once (the cache keeps the result). */
export function compressBody(body: Buffer): { gzip: Buffer | null; br: Buffer | null } {
  if (body.length < COMPRESS_MIN_BYTES) return { gzip: null, br: null };
  return {
    gzip: gzipSync(body, { level: 6 }),
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  };
}

/** Picks the encoding the client accepts: brotli, then gzip, then none. */
export function chooseEncoding(
  acceptEncoding: string | null,
  representation: Representation,
): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const accepts = (name: string) =>
    new RegExp(`(^|[\\s,])${name}(;q=(?!0(\\.0*)?\\b)[\\d.]+)?\\s*(,|$)`).test(acceptEncoding);
  if (representation.br && accepts('br')) return 'br';
  if (representation.gzip && accepts('gzip')) return 'gzip';
  return null;
}

/** Whether an If-None-Match header matches the representation's strong ETag. */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return (
    ifNoneMatch.trim() === '*' ||
    ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
  );
}

/** Builds the response for a successful representation: 200, or 304 on a matching ETag; HEAD has no body. */
export function respondWith(request: Request, representation: Representation, headers: Headers): Response {
  headers.set('ETag', representation.etag);
  headers.append('Vary', 'Accept-Encoding');
  if (representation.link) headers.set('Link', representation.link);
  if (matchesEtag(request.headers.get('if-none-match'), representation.etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers.set('Content-Type', representation.contentType);
  const encoding = chooseEncoding(request.headers.get('accept-encoding'), representation);
  const body = encoding ? representation[encoding]! : representation.body;
  if (encoding) headers.set('Content-Encoding', encoding);
  headers.set('Content-Length', String(body.length));
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

/** Builds an error response in the contract's envelope: never cached, never revealing internals. */
export function respondWithError(
  request: Request,
  error: ApiError,
  requestId: string,
  headers: Headers,
): Response {
  const body = Buffer.from(JSON.stringify(failure(error.code, error.message, requestId)));
  for (const [name, value] of Object.entries(error.headers)) headers.set(name, value);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  headers.set('Cache-Control', 'no-store');
  headers.set('Content-Length', String(body.length));
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    status: error.status,
    headers,
  });
}

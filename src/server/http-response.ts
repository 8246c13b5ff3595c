import type { FileHandle } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { FastResponse } from 'srvx';
import type { ApiError } from '../contract/errors.ts';
import { httpErrorForm, renderError } from '../contract/render-error.ts';
import { renderRateLimitedPage } from '../site/rate-limited-page.ts';
import type { HeaderPairs, ResponseHeaders } from './response-headers.ts';

/** A body ready to send, with its compressed forms when worth it. */
export interface Representation {
  body: Buffer;
  /**
   * Compressed copies: null when there is none (small bodies), undefined while not made yet (a
   * rendered body is compressed on the first request that accepts the encoding, then kept).
   */
  gzip: Buffer | null | undefined;
  br: Buffer | null | undefined;
  etag: string;
  contentType: string;
  /** `Link: <…>; rel="next"` of a paginated response (CSV has no meta to carry the cursor). */
  link?: string | null;
  /** Called once a compressed copy is added: the response cache holding it counts the copy. */
  onCompressed?: (() => void) | undefined;
}

const COMPRESS_MIN_BYTES = 1024;

/**
 * The compressed copies of a freshly rendered body, left to be made on demand: most keyed
 * clients (scripts) send no Accept-Encoding, and brotli on a large page costs milliseconds.
 */
export function compressBody(body: Buffer): {
  gzip: Buffer | null | undefined;
  br: Buffer | null | undefined;
} {
  return body.length < COMPRESS_MIN_BYTES ? { gzip: null, br: null } : { gzip: undefined, br: undefined };
}

/** Returns the body in an encoding, compressing it once (the representation keeps the result). */
function encodedBody(representation: Representation, encoding: 'br' | 'gzip'): Buffer {
  if (!representation[encoding]) {
    representation[encoding] =
      encoding === 'br'
        ? brotliCompressSync(representation.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
        : gzipSync(representation.body, { level: 6 });
    representation.onCompressed?.();
  }
  return representation[encoding]!;
}

const ACCEPTS = {
  br: /(^|[\s,])br(;q=(?!0(\.0*)?\b)[\d.]+)?\s*(,|$)/,
  gzip: /(^|[\s,])gzip(;q=(?!0(\.0*)?\b)[\d.]+)?\s*(,|$)/,
};

/** Picks the encoding the client accepts: brotli, then gzip, then none. */
export function chooseEncoding(
  acceptEncoding: string | null,
  representation: Pick<Representation, 'gzip' | 'br'>,
): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  if (representation.br !== null && ACCEPTS.br.test(acceptEncoding)) return 'br';
  if (representation.gzip !== null && ACCEPTS.gzip.test(acceptEncoding)) return 'gzip';
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

/**
 * Builds a response. srvx's FastResponse hands status, header pairs and the body bytes straight
 * to node:http (a web Response would copy the body and stream it through a ReadableStream). The
 * reason phrase is the standard one, as the public fast path's (srvx would send none).
 */
export function createResponse(status: number, headers: HeaderPairs, body: Buffer | null = null): Response {
  return new FastResponse(body, { status, statusText: STATUS_CODES[status], headers });
}

/** Builds the response for a successful representation: 200, or 304 on a matching ETag; HEAD has no body. */
export function respondWith(
  request: Request,
  representation: Representation,
  headers: ResponseHeaders,
): Response {
  headers.set('ETag', representation.etag);
  headers.append('Vary', 'Accept-Encoding');
  if (representation.link) headers.set('Link', representation.link);
  if (matchesEtag(request.headers.get('if-none-match'), representation.etag)) {
    return createResponse(304, headers.toPairs());
  }
  headers.set('Content-Type', representation.contentType);
  const encoding = chooseEncoding(request.headers.get('accept-encoding'), representation);
  const body = encoding ? encodedBody(representation, encoding) : representation.body;
  if (encoding) headers.set('Content-Encoding', encoding);
  headers.set('Content-Length', String(body.length));
  return createResponse(200, headers.toPairs(), request.method === 'HEAD' ? null : body);
}

/**
 * Builds the response of an error, in the form the one renderer (contract/render-error.ts) picks:
 * the contract's envelope, or for a browser refused by the rate limit on a page (`path`, never
 * under /api/) the HTML 429 page, with the rate-limit fields already set and Retry-After. Never
 * cached, never revealing internals.
 */
export function respondWithError(
  request: Pick<Request, 'method'> & { headers?: Pick<Headers, 'get'> },
  error: ApiError,
  requestId: string,
  headers: ResponseHeaders,
  path: string | null = null,
): Response {
  const rendered =
    httpErrorForm(error, path, request.headers?.get('accept') ?? null) === 'html'
      ? renderError(error, {
          kind: 'html',
          page: (refusal) =>
            renderRateLimitedPage({
              path: path!,
              limit: Number(headers.get('x-ratelimit-limit')),
              retryAfter: Number(refusal.headers['Retry-After']),
              requestId,
            }),
        })
      : renderError(error, { kind: 'envelope', requestId });
  for (const [name, value] of rendered.headers) headers.set(name, value);
  return createResponse(rendered.status, headers.toPairs(), request.method === 'HEAD' ? null : rendered.body);
}

/**
 * Answers 200 with an opened file as the body, streamed from disk (HEAD: the headers only, and
 * the handle closed). srvx pipes the Node stream to the socket; the handle closes when the
 * stream ends or the client goes away. The caller sets Content-Type and Content-Length.
 */
export async function respondWithFile(
  request: Request,
  handle: FileHandle,
  headers: ResponseHeaders,
): Promise<Response> {
  if (request.method === 'HEAD') {
    await handle.close();
    return createResponse(200, headers.toPairs());
  }
  return new FastResponse(handle.createReadStream({ autoClose: true }) as unknown as ReadableStream, {
    status: 200,
    statusText: 'OK',
    headers: headers.toPairs(),
  });
}

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { sendNodeResponse } from 'srvx/node';
import { rateLimitHeaders, writeRateLimitValues } from '../rate-limit/headers.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import { chooseEncoding, matchesEtag, type Representation, respondWithError } from './http-response.ts';
import { rateLimited } from './map-error.ts';
import { PER_REQUEST, type PreparedLists, RATE_LIMIT_SLOT, REQUEST_ID_SLOT } from './prepare-response.ts';
import { createHeaders } from './response-headers.ts';

/**
 * What the fast paths (public-fast-path.ts, keyed-fast-path.ts) send for a prepared answer: its
 * status, header list and body. The helpers here are the steps they share with each other and
 * with the general path's rules: 304 on a matching ETag, brotli then gzip when accepted.
 */
export interface ChosenAnswer {
  status: 200 | 304;
  list: string[];
  body: Buffer | undefined;
}

/**
 * The answer to a request's If-None-Match and Accept-Encoding from a body's header lists, or
 * null when the encoding it should get has no copy yet (the general path makes it).
 */
export function chooseAnswer(
  headers: IncomingHttpHeaders,
  entry: Pick<Representation, 'body' | 'gzip' | 'br' | 'etag'>,
  lists: PreparedLists,
): ChosenAnswer | null {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, entry.etag))
    return { status: 304, list: lists.notModified, body: undefined };
  const encoding = chooseEncoding(headers['accept-encoding'] ?? null, entry);
  if (!encoding) return { status: 200, list: lists.identity, body: entry.body };
  const list = lists[encoding];
  const body = entry[encoding];
  return list && body ? { status: 200, list, body } : null;
}

/**
 * Writes a chosen answer. The request id and rate-limit values go into the list in place:
 * node:http serialises the list synchronously inside writeHead, so one list serves every request.
 */
export function writeAnswer(
  response: ServerResponse,
  method: string,
  answer: ChosenAnswer,
  requestId: string,
  decision: Decision,
): void {
  const { list, body } = answer;
  const end = list.length - PER_REQUEST.length;
  list[end + REQUEST_ID_SLOT] = requestId;
  writeRateLimitValues(list, end + RATE_LIMIT_SLOT, decision);
  response.writeHead(answer.status, list);
  if (method === 'HEAD' || body === undefined) response.end();
  else response.end(body);
}

/** Writes the 429 of a refused decision, built as the general path builds every error. Returns its status. */
export function writeRateLimited(
  response: ServerResponse,
  method: string,
  decision: Decision,
  requestId: string,
): number {
  const headers = createHeaders(requestId);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) headers.set(name, value);
  const refusal = respondWithError({ method }, rateLimited(decision), requestId, headers);
  // Read before sending: srvx hands the response's fields over to node:http as it sends.
  const status = refusal.status;
  sendNodeResponse(response, refusal).catch(() => response.destroy());
  return status;
}

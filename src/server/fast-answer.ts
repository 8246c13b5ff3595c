import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { sendNodeResponse } from 'srvx/node';
import { rateLimitHeaders, writeRateLimitValues } from '../rate-limit/headers.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import { elapsedMs, type RequestLogLine } from './access-log.ts';
import { chooseEncoding, matchesEtag, type Representation, respondWithError } from './http-response.ts';
import { rateLimited } from './map-error.ts';
import { PER_REQUEST, type PreparedLists, RATE_LIMIT_SLOT, REQUEST_ID_SLOT } from './prepare-response.ts';
import { createRequestId } from './request-id.ts';
import { createHeaders } from './response-headers.ts';

/**
 * What the fast paths (public-fast-path.ts, keyed-fast-path.ts) send for a prepared answer: its
 * status, header list and body. The helpers here are the steps they share with each other and
 * with the general path's rules: 304 on a matching ETag, brotli then gzip when accepted, the 429
 * and the request's log line.
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

/** What the log line of a fast answer says besides the outcome (the general path's fields). */
export interface FastAnswerLog {
  log: (entry: Record<string, unknown>) => void;
  /** The URL path, as the general path logs it. */
  path: string;
  ip: string;
  keyId: string | null;
  snapshot: string;
  /** performance.now() when the request arrived. */
  started: number;
}

/**
 * Sends the chosen answer, or the general path's 429 when the decision refused the request, and
 * writes the request's log line.
 */
export function answerAndLog(
  request: IncomingMessage,
  response: ServerResponse,
  chosen: ChosenAnswer,
  decision: Decision,
  about: FastAnswerLog,
): void {
  const requestId = createRequestId();
  const method = request.method!;
  let status: number;
  if (decision.allowed) {
    writeAnswer(response, method, chosen, requestId, decision);
    status = chosen.status;
  } else {
    // Rare: built as the general path builds every error, with the same helpers.
    status = writeRateLimited(response, method, decision, requestId);
  }
  const line: RequestLogLine = {
    event: 'request',
    request_id: requestId,
    method,
    path: about.path,
    status,
    ms: elapsedMs(about.started),
    ip: about.ip,
    key_id: about.keyId,
    snapshot: decision.allowed ? about.snapshot : null,
  };
  about.log(line);
}

/** The client address rate limits are keyed on, by the server's rule (`resolve`: trusted proxies). */
export function clientIpOf(
  request: IncomingMessage,
  resolve: (socketAddress: string, forwardedFor: string | null) => string,
): string {
  const forwardedFor = request.headers['x-forwarded-for'];
  return resolve(
    request.socket.remoteAddress ?? '0.0.0.0',
    typeof forwardedFor === 'string' ? forwardedFor : null,
  );
}

/** A failure while answering (a bug): logged, and the general path answers if nothing was sent yet. */
export function handOverAfterFailure(
  error: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  next: (request: IncomingMessage, response: ServerResponse) => void,
  log: (entry: Record<string, unknown>) => void,
): void {
  log({ event: 'internal_error', request_id: null, error: String((error as Error)?.stack ?? error) });
  if (response.headersSent) response.destroy();
  else next(request, response);
}

/**
 * Writes a chosen answer. The request id and rate-limit values go into the list in place:
 * node:http serialises the list synchronously inside writeHead, so one list serves every request.
 */
function writeAnswer(
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
function writeRateLimited(
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

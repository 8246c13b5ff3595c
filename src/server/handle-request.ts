import { toApiError } from '../contract/errors.ts';
import type { RequestLogLine } from './access-log.ts';
import { elapsedMs, MAX_LOGGED_PATH } from './access-log.ts';
import { dispatchRequest } from './dispatch-request.ts';
import type { HandlerDeps, RequestState } from './handler-deps.ts';
import { respondWithError } from './http-response.ts';
import { createRequestId } from './request-id.ts';
import { createHeaders } from './response-headers.ts';

export type { HandlerDeps, LimitDecision } from './handler-deps.ts';

/**
 * Creates the request handler of the general path: every request the public fast path
 * (public-fast-path.ts) does not answer goes through it. It gives the request its id, turns
 * whatever dispatch throws into the contract's error envelope (the one place that does; a
 * browser refused by the rate limit on a page gets an HTML 429 instead), and writes the
 * request's log line.
 */
export function createRequestHandler(
  deps: HandlerDeps,
): (request: Request, clientIp: string) => Promise<Response> {
  return async (request, clientIp) => {
    const started = performance.now();
    const requestId = createRequestId();
    const state: RequestState = { caller: null, path: null, snapshot: null };
    const headers = createHeaders(requestId);
    let response: Response;
    try {
      response = await dispatchRequest(request, clientIp, headers, state, deps);
    } catch (error) {
      const refusal = toApiError(error, requestId, deps.log);
      response = respondWithError(request, refusal, requestId, headers, state.path);
    }
    const line: RequestLogLine = {
      event: 'request',
      request_id: requestId,
      method: request.method,
      path: (state.path ?? readPath(request.url)).slice(0, MAX_LOGGED_PATH),
      status: response.status,
      ms: elapsedMs(started),
      ip: clientIp,
      key_id: state.caller?.keyId ?? null,
      snapshot: state.snapshot,
    };
    deps.log(line);
    return response;
  };
}

function readPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

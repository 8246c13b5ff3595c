import { ApiError, unavailable } from '../contract/errors.ts';
import { QueryTimeoutError } from '../query/snapshot-db.ts';
import type { LimitDecision } from './handler-deps.ts';

/** The 429 of a refused rate-limit decision. */
export function rateLimited(decision: LimitDecision): ApiError {
  return new ApiError(
    'rate_limited',
    `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retry_after_s} s`,
    { headers: { 'Retry-After': String(decision.retry_after_s) } },
  );
}

/**
 * Maps whatever a request threw to the error it answers with: an ApiError as is, a query timeout
 * as 503, anything else as `internal_error`, whose cause is logged with the request id, never sent.
 */
export function toApiError(
  error: unknown,
  requestId: string,
  log: (entry: Record<string, unknown>) => void,
): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof QueryTimeoutError)
    return unavailable('the query took too long; try a narrower request', 2);
  log({
    event: 'internal_error',
    request_id: requestId,
    error: String((error as Error)?.stack ?? error),
  });
  return new ApiError('internal_error', 'internal error; the request id identifies it in our logs');
}

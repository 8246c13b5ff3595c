import { ApiError } from '../contract/errors.ts';

/** The 429 of a refused rate-limit decision (the limit and the whole seconds to wait). */
export function rateLimited(decision: { limit: number; retry_after_s: number }): ApiError {
  return new ApiError(
    'rate_limited',
    `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retry_after_s} s`,
    { headers: { 'Retry-After': String(decision.retry_after_s) } },
  );
}

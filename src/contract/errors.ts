/**
 * The API's error: a code of the envelope (CONTRACT section 1), its status and a message safe to
 * show to the caller. Codes and statuses are rows of the one code table (lib/errors.ts).
 */
import { type ApiErrorCode, ERROR_STATUS, hasErrorCode, MmdsError } from '../lib/errors.ts';

export { ERROR_STATUS };

/** A code of the API's error envelope. */
export type ErrorCode = ApiErrorCode;

/** An error the API answers with: code, status and a message safe to show to the caller. */
export class ApiError extends MmdsError {
  declare readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (WWW-Authenticate, Retry-After, Allow). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }
}

/** 400: a parameter is malformed, unknown, or names a code that does not exist. */
export function invalidParameter(name: string, expected: string): ApiError {
  return new ApiError('invalid_parameter', `invalid parameter "${name}": expected ${expected}`);
}

/** 404 for an unknown path, slug or series key. */
export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} not found`);
}

/** 401 with the same body for a missing, malformed, unknown, expired or revoked key. */
export function unauthorized(
  message = 'a valid API key is required: send Authorization: Bearer <key>',
): ApiError {
  return new ApiError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
}

/** 403: the key is valid but lacks the scope. */
export function insufficientScope(
  scope: string,
  message = `this endpoint needs an API key with scope ${scope}`,
): ApiError {
  return new ApiError('insufficient_scope', message, {
    headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  });
}

/** 503 while no snapshot can be read. */
export function unavailable(message: string, retryAfterSeconds = 5): ApiError {
  return new ApiError('unavailable', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
}

/**
 * Maps whatever a request (or an MCP call) threw to the error it answers with: an ApiError as is,
 * a query past its deadline as 503, anything else as `internal_error`, whose cause is logged with
 * the request id, never sent.
 */
export function toApiError(
  error: unknown,
  requestId: string,
  log: (entry: Record<string, unknown>) => void,
): ApiError {
  if (error instanceof ApiError) return error;
  if (hasErrorCode(error, 'query_timeout'))
    return unavailable('the query took too long; try a narrower request', 2);
  log({
    event: 'internal_error',
    request_id: requestId,
    error: String((error as Error)?.stack ?? error),
  });
  return new ApiError('internal_error', 'internal error; the request id identifies it in our logs');
}

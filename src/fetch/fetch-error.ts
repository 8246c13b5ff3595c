/** Why a download failed, for callers that react differently (e.g. a missing current-year file). */
export type FetchErrorKind =
  | 'http'
  | 'not_found'
  | 'timeout'
  | 'network'
  | 'truncated'
  | 'too_large'
  | 'html'
  | 'bad_zip'
  | 'bad_content';

/** Extra facts a FetchError carries. */
export interface FetchErrorDetails {
  kind: FetchErrorKind;
  /** The HTTP status of the last answer, when there was one. */
  status?: number;
  /** How many requests were made. */
  attempts?: number;
  cause?: unknown;
}

/**
 * A download that did not yield a usable file. The message is one line that names the URL,
 * says what happened and what the operator can do about it.
 */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  readonly url: string;
  readonly kind: FetchErrorKind;
  readonly status: number | null;
  readonly attempts: number;

  constructor(url: string, message: string, details: FetchErrorDetails) {
    super(`${url}: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.url = url;
    this.kind = details.kind;
    this.status = details.status ?? null;
    this.attempts = details.attempts ?? 1;
  }
}

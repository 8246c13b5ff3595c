import { MmdsError } from '../lib/errors.ts';

/**
 * How a message tells the operator to point a source at a mirror. fetch/ does not know which
 * source it downloads for: the CLI (nameMirrorSetting in fetchAndIngest) puts the source's own
 * setting in its place (`MMDS_ECB_BASE_URL`), or `--base-url` when the run was given one.
 */
export const MIRROR_SETTING = 'MMDS_<SOURCE>_BASE_URL';

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
export class FetchError extends MmdsError {
  override readonly name = 'FetchError';
  readonly url: string;
  readonly kind: FetchErrorKind;
  readonly status: number | null;
  readonly attempts: number;

  constructor(url: string, message: string, details: FetchErrorDetails) {
    super(
      'fetch_failed',
      `${url}: ${message}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.url = url;
    this.kind = details.kind;
    this.status = details.status ?? null;
    this.attempts = details.attempts ?? 1;
  }
}

/** Names the real way to point this source at a mirror in a FetchError's message (see MIRROR_SETTING). */
export function nameMirrorSetting(error: unknown, setting: string): void {
  if (error instanceof FetchError) error.message = error.message.replaceAll(MIRROR_SETTING, setting);
}

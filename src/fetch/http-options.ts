import { PIPELINE_VERSION } from '../version.ts';
import type { HttpOptions } from './types.ts';

/**
 * The HTTP behaviour of every download unless the caller overrides it: a publisher that blips
 * for a minute (4 retries over about 15 s of back-off) is ridden out, one that is down is not.
 */
export const DEFAULT_HTTP_OPTIONS: Readonly<HttpOptions> = Object.freeze({
  retries: 4,
  backoffMs: 1_000,
  timeoutMs: 120_000,
  // The largest file served (CFTC's multi-year disaggregated archive) is far below this.
  maxBytes: 512 * 1024 * 1024,
  // Publishers (the CFTC among them) block anonymous clients; say who is asking.
  userAgent: `mmds/${PIPELINE_VERSION} (Market and Macro Data Service)`,
});

/** Returns the default HTTP options with the given fields replaced (tests use tiny delays). */
export function createHttpOptions(overrides: Partial<HttpOptions> = {}): HttpOptions {
  return { ...DEFAULT_HTTP_OPTIONS, ...overrides };
}

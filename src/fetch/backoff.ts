/** Waits the given number of milliseconds (the real clock; tests pass their own). */
export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A publisher asking for more than this is treated as down rather than waited for.
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The delay before retry number `attempt` (1-based): `backoffMs` doubling each time, plus up to
 * 25 % jitter so that several clients do not retry in step.
 */
export function computeBackoffMs(
  backoffMs: number,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = backoffMs * 2 ** (attempt - 1);
  return Math.round(base * (1 + 0.25 * random()));
}

/** Reads a Retry-After header (seconds or an HTTP date) as milliseconds from `now`, or null. */
export function parseRetryAfterMs(header: string | null, now: Date): number | null {
  if (header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

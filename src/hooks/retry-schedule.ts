/**
 * When a failed delivery is tried again. The default is the Standard Webhooks schedule (published
 * in docs/webhooks.md): the first attempt at once, then retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
 * and 10 h after each failure, eight attempts in about 27.6 hours; then the event is
 * dead-lettered. Every wait is spread by ±20% jitter so that a receiver that was down is not hit
 * by every deliverer at the same instant when it comes back.
 */

/** Waits before each retry, in ms (the first attempt is made at once). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
]);

/** Longest wait for a receiver's answer (connection, headers and body) in one attempt. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

/** Spread of the jitter: each wait is multiplied by a factor in [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2;
/** The longest wait a Retry-After header can ask for; longer is cut to it. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Reads a schedule such as `5s,5m,30m,2h,5h,10h,10h` (MMDS_HOOKS_RETRY_SCHEDULE; units ms, s,
 * m, h; a bare number is ms). Throws with a one-line message when malformed.
 */
export function parseRetrySchedule(text: string): number[] {
  const steps = text.split(',').map((part) => part.trim());
  const schedule = steps.map((step) => {
    const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(step);
    if (!match) {
      throw new Error(
        `MMDS_HOOKS_RETRY_SCHEDULE must be comma-separated waits such as 5s,5m,2h, got "${text}"`,
      );
    }
    return Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!;
  });
  if (schedule.length === 0 || schedule.length > 20)
    throw new Error('MMDS_HOOKS_RETRY_SCHEDULE must have 1 to 20 retries');
  return schedule;
}

/**
 * The wait after `failures` failed attempts (1 after the first), jitter included, or null when
 * the schedule has no more retries. `random` is Math.random in use, fixed in tests.
 */
export function delayBeforeRetry(
  schedule: readonly number[],
  failures: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[failures - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * Reads a Retry-After header (seconds, or an HTTP date) into a wait in ms, at most a day; null
 * when absent or unreadable (the schedule applies then).
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

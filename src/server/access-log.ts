/**
 * The one log line every request writes, whichever path answered it (docs/operations.md, "Logs").
 * The public fast path and the general handler both build it from this type, in this key order.
 */
export type RequestLogLine = {
  event: 'request';
  request_id: string;
  method: string;
  /** The URL path, at most MAX_LOGGED_PATH characters. */
  path: string;
  status: number;
  /** Milliseconds from the handler's start to the response, to a tenth. */
  ms: number;
  ip: string;
  key_id: string | null;
  snapshot: string | null;
};

/** Longest path a log line holds. */
export const MAX_LOGGED_PATH = 200;

/** Milliseconds since `startedMs` (a `performance.now()` reading), rounded to a tenth. */
export function elapsedMs(startedMs: number): number {
  return Math.round((performance.now() - startedMs) * 10) / 10;
}

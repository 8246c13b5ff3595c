import { FetchError, MIRROR_SETTING } from './fetch-error.ts';

/** A failed attempt, whether another is worth making, and the error to throw if not. */
export interface Retryable {
  /** Short reason for progress lines (`HTTP 503`, `timed out`). */
  reason: string;
  /**
   * False when another attempt would fail the same way at once (a host name that does not
   * resolve, a refused connection: no network, or the wrong address; a blocked port): the
   * download fails now.
   */
  retry: boolean;
  /** The Retry-After header of the answer, if any. */
  retryAfter: string | null;
  final(attempts: number): FetchError;
}

/** What went wrong in one attempt. */
export type FailureFacts =
  | { status: number; retryAfter: string | null }
  | { timeoutMs: number }
  | { truncated: FetchError }
  | { network: unknown };

const MIRROR_HINT = `try again later or point ${MIRROR_SETTING} at a mirror`;

/**
 * Network errors that a retry seconds later would meet again: the name does not resolve (no
 * network, no DNS, a mistyped host; EAI_AGAIN is what a resolver without network answers) or
 * nothing listens at the address. A reset or a time-out mid-transfer stays retryable.
 */
const IMMEDIATE_FAILURES: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (no DNS answer)',
  EAI_FAIL: 'the host name could not be resolved',
  EAI_NONAME: 'the host name does not resolve',
  ECONNREFUSED: 'the connection was refused',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  // fetch() refuses the ports browsers block (6000, 10080, …) before connecting: a port a
  // retry can never reach, so the run fails now instead of after minutes of back-off.
  BAD_PORT: 'the port is one fetch() refuses to connect to (a blocked port)',
};

/** undici's error for a blocked port has no code, only this message on its cause. */
const BAD_PORT_MESSAGE = 'bad port';

/** The system error code of a failed fetch(): undici wraps it in `cause`, an AggregateError for several addresses. */
function findErrorCode(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const { code, cause, errors, message } = error as {
    code?: unknown;
    cause?: unknown;
    errors?: unknown;
    message?: unknown;
  };
  if (typeof code === 'string' && code in IMMEDIATE_FAILURES) return code;
  if (depth > 0 && message === BAD_PORT_MESSAGE) return 'BAD_PORT';
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const found = findErrorCode(inner, depth + 1);
    if (found) return found;
  }
  return typeof code === 'string' && depth > 0 ? code : null;
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return findErrorCode(error) ?? cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

/** Turns the facts of a failed attempt into a retryable failure with its final message. */
export function classifyFailure(url: string, facts: FailureFacts): Retryable {
  if ('status' in facts) {
    const { status } = facts;
    const hint =
      status === 429
        ? 'the publisher is rate-limiting this client; wait a while before trying again'
        : `the publisher may be down, ${MIRROR_HINT}`;
    return {
      reason: `HTTP ${status}`,
      retry: true,
      retryAfter: facts.retryAfter,
      final: (attempts) =>
        new FetchError(url, `HTTP ${status} after ${attempts} attempts; ${hint}`, {
          kind: 'http',
          status,
          attempts,
        }),
    };
  }
  if ('timeoutMs' in facts) {
    const seconds = facts.timeoutMs / 1000;
    return {
      reason: `no complete answer within ${seconds} s`,
      retry: true,
      retryAfter: null,
      final: (attempts) =>
        new FetchError(
          url,
          `no complete answer within ${seconds} s, ${attempts} attempts; the publisher may be slow or down, ${MIRROR_HINT}`,
          { kind: 'timeout', attempts },
        ),
    };
  }
  if ('truncated' in facts) {
    const detail = facts.truncated.message.slice(url.length + 2);
    return {
      reason: detail,
      retry: true,
      retryAfter: null,
      final: (attempts) =>
        new FetchError(url, `${detail}, ${attempts} attempts; ${MIRROR_HINT}`, {
          kind: 'truncated',
          attempts,
          cause: facts.truncated,
        }),
    };
  }
  const detail = describeNetworkError(facts.network);
  const immediate = IMMEDIATE_FAILURES[detail];
  if (immediate) {
    const host = new URL(url).host;
    return {
      reason: `${immediate} (${detail})`,
      retry: false,
      retryAfter: null,
      final: (attempts) =>
        new FetchError(
          url,
          `${immediate} (${detail}, ${host}), not retried; check the network, or point ${MIRROR_SETTING} at a reachable mirror`,
          { kind: 'network', attempts, cause: facts.network },
        ),
    };
  }
  return {
    reason: `connection failed (${detail})`,
    retry: true,
    retryAfter: null,
    final: (attempts) =>
      new FetchError(
        url,
        `connection failed (${detail}) after ${attempts} attempts; check the network, or ${MIRROR_HINT}`,
        {
          kind: 'network',
          attempts,
          cause: facts.network,
        },
      ),
  };
}

/** The progress line printed before a retry. */
export function retryMessage(
  url: string,
  failure: Retryable,
  delayMs: number,
  next: number,
  of: number,
): string {
  return `${url}: ${failure.reason}; retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${next} of ${of})`;
}

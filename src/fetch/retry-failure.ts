import { FetchError } from './fetch-error.ts';

/** A failure worth another attempt, with the error to throw if it was the last one. */
export interface Retryable {
  /** Short reason for progress lines (`HTTP 503`, `timed out`). */
  reason: string;
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

const MIRROR_HINT = 'try again later or use --base-url for a mirror';

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
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
  return {
    reason: `connection failed (${detail})`,
    retryAfter: null,
    final: (attempts) =>
      new FetchError(
        url,
        `connection failed (${detail}) after ${attempts} attempts; check the network and --base-url, or ${MIRROR_HINT}`,
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

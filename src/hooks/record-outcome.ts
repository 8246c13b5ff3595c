import type { ReleaseEvent } from '../events/event.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { delayBeforeRetry, parseRetryAfter } from './retry-schedule.ts';
import type { AttemptOutcome } from './send-webhook.ts';
import { type HookRecord, MAX_DEAD_LETTERS } from './subscription-record.ts';

/**
 * What an attempt's outcome decides (decide: delivered, retry, dead letter, disable), and what
 * the decision does to a subscription's record (applyDecision), for the deliverer (deliverer.ts).
 */

/** What an attempt's outcome does to the subscription. */
export type Decision =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number; error: string }
  | { kind: 'dead'; reason: string }
  | { kind: 'disable'; reason: string };

/**
 * Decides what follows an attempt, `failures` being the failed attempts of this event before it:
 * 2xx delivered; 410 disables the subscription; other 4xx but 408 and 429 are not retried (dead
 * letter); the rest (408, 429, 5xx, 3xx, no answer) is retried on the schedule, after Retry-After
 * when the receiver sent one; a refused address is dead-lettered at once.
 */
export function decide(
  outcome: AttemptOutcome,
  failures: number,
  schedule: readonly number[],
  now: Date,
  random: () => number = Math.random,
): Decision {
  if (outcome.kind === 'delivered') return { kind: 'delivered' };
  if (outcome.kind === 'network' && outcome.refused) return { kind: 'dead', reason: outcome.message };
  const error = outcome.kind === 'http' ? `HTTP ${outcome.status}` : outcome.message;
  if (outcome.kind === 'http') {
    if (outcome.status === 410) return { kind: 'disable', reason: 'the receiver answered HTTP 410 Gone' };
    if (outcome.status >= 400 && outcome.status < 500 && outcome.status !== 408 && outcome.status !== 429)
      return { kind: 'dead', reason: error };
  }
  const attempts = failures + 1;
  const scheduled = delayBeforeRetry(schedule, attempts, random);
  if (scheduled === null) return { kind: 'dead', reason: `${error} (gave up after ${attempts} attempts)` };
  const asked = outcome.kind === 'http' ? parseRetryAfter(outcome.retryAfter, now) : null;
  return { kind: 'retry', delayMs: asked ?? scheduled, error };
}

/**
 * What a decision does to a subscription's record: the cursor moves past a delivered or
 * dead-lettered event (and past the events before it that the subscription does not receive,
 * `skippedTo`), a retry is kept as `pending`, a 410 disables.
 */
export function applyDecision(
  current: HookRecord,
  event: ReleaseEvent,
  decision: Decision,
  attempts: number,
  skippedTo: string | null,
  done: Date,
): HookRecord {
  const base = { ...current, cursor: skippedTo };
  switch (decision.kind) {
    case 'delivered':
      return { ...base, cursor: event.id, pending: null, delivered: current.delivered + 1 };
    case 'retry':
      return {
        ...base,
        pending: {
          event_id: event.id,
          attempts,
          next_at: done.getTime() + decision.delayMs,
          last_error: decision.error,
        },
      };
    case 'dead':
      return {
        ...base,
        cursor: event.id,
        pending: null,
        dead_letters: [
          ...current.dead_letters,
          {
            event_id: event.id,
            type: event.type,
            at: formatTimestamp(done),
            attempts,
            reason: decision.reason,
          },
        ].slice(-MAX_DEAD_LETTERS),
      };
    case 'disable':
      return {
        ...base,
        pending: null,
        state: 'disabled',
        state_reason: `${decision.reason} at ${formatTimestamp(done)}`,
      };
  }
}

/**
 * A subscription whose cursor was pruned from the log before it caught up (paused or failing for
 * longer than snapshots are kept): the gap becomes a dead letter and it goes on from the oldest
 * snapshot kept.
 */
export function recordGap(current: HookRecord, after: string | null, oldest: string, at: Date): HookRecord {
  return {
    ...current,
    cursor: `${oldest}:0`,
    pending: null,
    dead_letters: [
      ...current.dead_letters,
      {
        event_id: after ?? '-',
        type: 'gap',
        at: formatTimestamp(at),
        attempts: 0,
        reason: `the events after ${after} were pruned before delivery (the log starts at snapshot ${oldest}); /api/v1/changes lists what changed`,
      },
    ].slice(-MAX_DEAD_LETTERS),
  };
}

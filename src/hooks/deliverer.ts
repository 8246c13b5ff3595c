import { randomBytes } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Storage } from 'unstorage';
import type { EventFeed, ReleaseEvent } from '../events/event.ts';
import { getKeyStatus, isUsableStatus } from '../keys/key-record.ts';
import { createKeyStore, KeyRecordError } from '../keys/key-store.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import type { AddressPolicy } from './address-policy.ts';
import { isForHook } from './event-filter.ts';
import { createHookStore } from './hook-store.ts';
import { createLease } from './lease.ts';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  delayBeforeRetry,
  parseRetryAfter,
} from './retry-schedule.ts';
import { type AttemptOutcome, sendWebhook, signWebhook } from './send-webhook.ts';
import { type HookRecord, MAX_DEAD_LETTERS, signingSecrets } from './subscription-record.ts';

/**
 * The delivery loop (issue 24): for every active subscription, under its lease, the next event
 * of the log after its cursor that it receives is posted, signed, until it is delivered,
 * dead-lettered or the subscription disabled; only then the one after. So deliveries are in log
 * order per subscription and at least once: the cursor moves only after the outcome is known.
 * Several deliverers (processes, instances) can run over one storage; the lease makes each
 * attempt theirs alone while it lasts.
 */

/** What a deliverer needs. */
export interface DelivererOptions {
  /** The state storage holding keys, subscriptions and leases. */
  storage: Storage;
  feed: EventFeed;
  policy: AddressPolicy;
  /** Waits before each retry (ms); default DEFAULT_RETRY_SCHEDULE_MS. */
  schedule?: readonly number[];
  /** Time-out of one attempt in ms (default 15 s). */
  timeoutMs?: number;
  /** How long a lease lasts unrenewed (default 60 s; must exceed the time-out). */
  leaseMs?: number;
  /** Wait between two passes over the subscriptions (default 1 s). */
  pollMs?: number;
  /** Subscriptions served at once (default 8). */
  concurrency?: number;
  /** Events read from the log per read (default 100). */
  batch?: number;
  now?: () => Date;
  random?: () => number;
  /** One JSON line per attempt and state change; never a secret, the URL or its host. */
  log?: (entry: Record<string, unknown>) => void;
  /** Name resolution for the attempts (tests). */
  lookup?: LookupFunction;
  /** MMDS_KEY_PEPPER, with which the signing secrets are sealed at rest (null: stored as is). */
  pepper?: string | null;
}

/** A running (or runnable) deliverer. */
export interface Deliverer {
  /** One pass over every subscription. */
  runOnce(): Promise<void>;
  /** Runs passes until stop(). */
  start(): void;
  /** Ends the loop after the pass under way and gives its leases up. */
  stop(): Promise<void>;
  /** Starts the next pass now instead of after the poll wait (a publish just happened). */
  wake(): void;
}

/** Events a deliverer posts to one subscription in one pass before it turns to the others. */
const EVENTS_PER_PASS = 50;

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

/** Creates a deliverer with its own lease owner id. */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const store = createHookStore(options.storage, options.pepper ?? null);
  const keys = createKeyStore(options.storage);
  const schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? Math.max(60_000, timeoutMs * 2);
  if (leaseMs <= timeoutMs) throw new Error('the delivery lease must last longer than an attempt may take');
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const log = options.log ?? (() => {});
  const owner = randomBytes(9).toString('base64url');
  const lease = createLease(options.storage, owner, leaseMs);
  const batch = options.batch ?? 100;
  /** Subscriptions whose lease this deliverer took in the pass under way (released after it). */
  const held = new Set<string>();

  /** Why a subscription may not receive anything now (its key), or its key's scopes. */
  const keyScopes = async (hook: HookRecord): Promise<{ scopes: string[] } | { problem: string }> => {
    try {
      const key = await keys.get(hook.key_id);
      if (key === null) return { problem: `key ${hook.key_id} does not exist` };
      const status = getKeyStatus(key, now());
      if (!isUsableStatus(status)) return { problem: `key ${hook.key_id} is ${status}` };
      return { scopes: key.scopes };
    } catch (error) {
      if (error instanceof KeyRecordError) return { problem: error.message };
      throw error;
    }
  };

  /** Writes an outcome unless another writer moved the cursor meanwhile (a replay, another deliverer). */
  const record = (hook: HookRecord, change: (current: HookRecord) => HookRecord) =>
    store.update(hook.id, (current) => (current.cursor === hook.cursor ? change(current) : current));

  /**
   * The events after a subscription's cursor, or null when the cursor's snapshot was pruned
   * before the subscription caught up (it was paused or failing for longer than snapshots are
   * kept): those events cannot be sent any more. The gap is recorded as a dead letter and the
   * subscription goes on from the oldest snapshot kept.
   */
  const readAfter = async (hook: HookRecord): Promise<ReleaseEvent[] | null> => {
    try {
      return await options.feed.after(hook.cursor, batch);
    } catch (error) {
      const oldest = (error as { name?: string; oldest?: unknown }).oldest;
      if ((error as Error).name !== 'EventGoneError' || typeof oldest !== 'string') throw error;
      const at = formatTimestamp(now());
      await record(hook, (current) => ({
        ...current,
        cursor: `${oldest}:0`,
        pending: null,
        dead_letters: [
          ...current.dead_letters,
          {
            event_id: hook.cursor ?? '-',
            type: 'gap',
            at,
            attempts: 0,
            reason: `the events after ${hook.cursor} were pruned before delivery (the log starts at snapshot ${oldest}); /api/v1/changes lists what changed`,
          },
        ].slice(-MAX_DEAD_LETTERS),
      }));
      log({ event: 'webhook_gap', hook: hook.id, after: hook.cursor, oldest });
      return null;
    }
  };

  /** Whether the log holds anything after a subscription's cursor (a read error: look closer). */
  const hasEvents = (hook: HookRecord): Promise<boolean> =>
    hook.pending !== null
      ? Promise.resolve(true)
      : options.feed.after(hook.cursor, 1).then(
          (events) => events.length > 0,
          () => true,
        );

  /** Serves one subscription for one pass; returns when it must wait or has nothing to send. */
  const serve = async (id: string): Promise<void> => {
    const due = (hook: HookRecord | null): hook is HookRecord =>
      hook !== null &&
      hook.state === 'active' &&
      !(hook.pending !== null && hook.pending.next_at > now().getTime());
    for (let sent = 0; sent < EVENTS_PER_PASS; sent++) {
      // A look first, so that paused, waiting and caught-up subscriptions cost no lease write per
      // pass; then the record again under the lease, which is what counts.
      const peek = await store.get(id);
      if (!due(peek) || !(await hasEvents(peek))) return;
      if (!(await lease.acquire(`hooks:${id}`, now().getTime()))) return;
      held.add(id);
      const hook = await store.get(id);
      if (!due(hook)) return;
      const access = await keyScopes(hook);
      if ('problem' in access) {
        await record(hook, (current) =>
          current.state === 'active'
            ? { ...current, state: 'paused', state_reason: access.problem }
            : current,
        );
        log({ event: 'webhook_paused', hook: id, reason: access.problem });
        return;
      }
      const events = await readAfter(hook);
      if (events === null || events.length === 0) return;
      const index = events.findIndex((event) => isForHook(hook, access.scopes, event));
      if (index === -1) {
        // Nothing here for this subscription: the cursor moves past what it does not receive.
        await record(hook, (current) => ({ ...current, cursor: events.at(-1)!.id }));
        continue;
      }
      const event = events[index]!;
      const skippedTo = index > 0 ? events[index - 1]!.id : hook.cursor;
      if (!(await attempt(hook, event, skippedTo))) return;
    }
  };

  /** Makes one attempt and records it; true when the next event may follow at once. */
  const attempt = async (
    hook: HookRecord,
    event: ReleaseEvent,
    skippedTo: string | null,
  ): Promise<boolean> => {
    const at = now();
    const failures = hook.pending?.event_id === event.id ? hook.pending.attempts : 0;
    const request = signWebhook(event, signingSecrets(hook, at), at);
    const outcome = await sendWebhook(hook.url, request, {
      policy: options.policy,
      timeoutMs,
      lookup: options.lookup,
    });
    const decision = decide(outcome, failures, schedule, now(), random);
    const done = now();
    // The code, not the message: a connection error's message names the receiver's host and
    // port, and logs travel further than the subscription record (docs/webhooks.md).
    log({
      event: 'webhook_attempt',
      hook: hook.id,
      event_id: event.id,
      attempt: failures + 1,
      outcome: outcome.kind === 'network' ? outcome.code : outcome.status,
      decision: decision.kind,
    });
    await record(hook, (current) => {
      const base = { ...current, cursor: skippedTo };
      switch (decision.kind) {
        case 'delivered':
          return { ...base, cursor: event.id, pending: null, delivered: current.delivered + 1 };
        case 'retry':
          return {
            ...base,
            pending: {
              event_id: event.id,
              attempts: failures + 1,
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
                attempts: failures + 1,
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
    });
    return decision.kind === 'delivered' || decision.kind === 'dead';
  };

  const runOnce = async () => {
    // Ids only: each record is read under its lease, so a damaged one is logged and skipped alone.
    const queue = await store.ids();
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          await serve(id);
        } catch (error) {
          log({
            event: 'webhook_error',
            hook: id,
            error: error instanceof Error ? error.message : String(error),
          });
        } finally {
          if (held.delete(id)) await lease.release(`hooks:${id}`).catch(() => {});
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 8, queue.length) }, worker));
  };

  let running = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  // A wake during a pass: the next pass follows at once instead of after the poll wait.
  let woken = false;
  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          try {
            await runOnce();
          } catch (error) {
            log({ event: 'webhook_error', error: error instanceof Error ? error.message : String(error) });
          }
          if (!running) break;
          if (woken) {
            woken = false;
            continue;
          }
          await new Promise<void>((resume) => {
            const timer = setTimeout(resume, options.pollMs ?? 1_000);
            wakeUp = () => {
              clearTimeout(timer);
              resume();
            };
          });
          wakeUp = null;
        }
      })();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
}

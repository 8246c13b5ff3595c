import { randomBytes } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Storage } from 'unstorage';
import type { EventFeed, ReleaseEvent } from '../events/event.ts';
import { createKeyStore } from '../keys/key-store.ts';
import { createPollLoop } from '../lib/poll-loop.ts';
import type { AddressPolicy } from './address-policy.ts';
import { DELIVERY_SHARDS, type HeldShard, holdShard, shardOf } from './delivery-shards.ts';
import { isForHook } from './event-filter.ts';
import { createHookStore } from './hook-store.ts';
import { createLease } from './lease.ts';
import { createPassReads, type PassReads, readKeyScopes } from './pass-reads.ts';
import { createReceiverPool } from './receiver-pool.ts';
import { createRecordBatches, type ReadRecord } from './record-batches.ts';
import { applyDecision, decide, recordGap } from './record-outcome.ts';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY_SCHEDULE_MS } from './retry-schedule.ts';
import { sendWebhook, signWebhook } from './send-webhook.ts';
import { type HookRecord, signingSecrets } from './subscription-record.ts';

/**
 * The delivery loop (issue 24): for every active subscription, under its lease, the next event
 * of the log after its cursor that it receives is posted, signed, until it is delivered,
 * dead-lettered or the subscription disabled; only then the one after. So deliveries are in log
 * order per subscription and at least once: the cursor moves only after the outcome is known.
 * Several deliverers (processes, instances) can run over one storage; the lease of a shard of
 * subscriptions (delivery-shards.ts) makes each attempt theirs alone while it lasts.
 *
 * In bulk (issue 38): a pass reads every record in batches, takes one lease per shard that has
 * work, and serves the shard's subscriptions concurrently, each in its own order; records are
 * read and written in batches (record-batches.ts: one round trip for many cursors), the log and
 * the keys once per pass, and the attempts go through keep-alive connections with a bound per
 * receiver host (receiver-pool.ts).
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
  /** Shards (batches of subscriptions, delivery-shards.ts) one deliverer serves at once (default 8). */
  concurrency?: number;
  /** Attempts in flight to one receiver host (default 16), and in all (default 256). */
  hostConcurrency?: number;
  totalConcurrency?: number;
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
  /** Ends the loop after the pass under way, gives its leases up and closes kept connections. */
  stop(): Promise<void>;
  /** Starts the next pass now instead of after the poll wait (a publish just happened). */
  wake(): void;
}

/** Events a deliverer posts to one subscription in one pass before it turns to the others. */
const EVENTS_PER_PASS = 50;

/** What a subscription's next step is after a look at the log. */
type NextStep =
  | { kind: 'attempt'; event: ReleaseEvent; skippedTo: string | null }
  | { kind: 'caught-up'; cursor: string | null }
  | { kind: 'gap'; oldest: string };

/** Creates a deliverer with its own lease owner id. */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const store = createHookStore(options.storage, options.pepper ?? null);
  const records = createRecordBatches(options.storage, options.pepper ?? null);
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
  const pool = createReceiverPool({
    perHost: options.hostConcurrency ?? 16,
    total: options.totalConcurrency ?? 256,
  });
  const timing = { leaseMs, timeoutMs, now: () => now().getTime() };

  const scopesOf = (keyId: string) => readKeyScopes(keys, keyId, now());

  /** The next event the subscription receives after its cursor (the others are passed over). */
  const nextStep = async (hook: HookRecord, scopes: string[], reads: PassReads): Promise<NextStep> => {
    let cursor = hook.cursor;
    for (;;) {
      const read = await reads.readLog(cursor);
      if ('gone' in read) return { kind: 'gap', oldest: read.gone };
      if (read.events.length === 0) return { kind: 'caught-up', cursor };
      const index = read.events.findIndex((event) => isForHook(hook, scopes, event));
      if (index >= 0)
        return {
          kind: 'attempt',
          event: read.events[index]!,
          skippedTo: index > 0 ? read.events[index - 1]!.id : cursor,
        };
      cursor = read.events.at(-1)!.id;
    }
  };

  /**
   * Writes a change of the record as read, in a batch; when another writer came in between (an
   * operator, a replay), applies it to the record as it is now unless the cursor moved meanwhile.
   */
  const save = async (read: ReadRecord, change: (current: HookRecord) => HookRecord): Promise<void> => {
    if (await records.write(read, change(read.record))) return;
    await store.update(read.record.id, (current) =>
      current.cursor === read.record.cursor ? change(current) : current,
    );
  };

  const due = (hook: HookRecord): boolean =>
    hook.state === 'active' && !(hook.pending !== null && hook.pending.next_at > now().getTime());

  /** Serves one subscription of a held shard for one pass; returns when it must wait or is caught up. */
  const serve = async (id: string, shard: HeldShard, reads: PassReads): Promise<void> => {
    for (let sent = 0; sent < EVENTS_PER_PASS; sent++) {
      // Read again under the shard's lease before every attempt: what counts is the record now.
      const read = await records.read(id);
      if (read === null || !due(read.record)) return;
      const hook = read.record;
      const access = await reads.scopesOf(hook.key_id);
      if ('problem' in access) {
        await save(read, (current) =>
          current.state === 'active'
            ? { ...current, state: 'paused', state_reason: access.problem }
            : current,
        );
        log({ event: 'webhook_paused', hook: id, reason: access.problem });
        return;
      }
      const step = await nextStep(hook, access.scopes, reads);
      if (step.kind === 'gap') {
        await save(read, (current) => recordGap(current, hook.cursor, step.oldest, now()));
        log({ event: 'webhook_gap', hook: id, after: hook.cursor, oldest: step.oldest });
        return;
      }
      if (step.kind === 'caught-up') {
        // Nothing here for this subscription: the cursor moves past what it does not receive.
        if (step.cursor !== hook.cursor) await save(read, (current) => ({ ...current, cursor: step.cursor }));
        return;
      }
      if (!(await attempt(read, step.event, step.skippedTo, shard))) return;
    }
  };

  /** Makes one attempt and records it; true when the next event may follow at once. */
  const attempt = async (
    read: ReadRecord,
    event: ReleaseEvent,
    skippedTo: string | null,
    shard: HeldShard,
  ): Promise<boolean> => {
    const hook = read.record;
    const failures = hook.pending?.event_id === event.id ? hook.pending.attempts : 0;
    const outcome = await pool.run(new URL(hook.url), async (agent) => {
      // Checked once a connection is free: the outcome must be recorded before the lease ends.
      if (!(await shard.ensure())) return null;
      const at = now();
      const request = signWebhook(event, signingSecrets(hook, at), at);
      return sendWebhook(hook.url, request, {
        policy: options.policy,
        timeoutMs,
        lookup: options.lookup,
        agent,
      });
    });
    if (outcome === null) return false;
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
    await save(read, (current) => applyDecision(current, event, decision, failures + 1, skippedTo, done));
    return decision.kind === 'delivered' || decision.kind === 'dead';
  };

  const failed = (hook: string | undefined, error: unknown) =>
    log({
      event: 'webhook_error',
      ...(hook ? { hook } : {}),
      error: error instanceof Error ? error.message : String(error),
    });

  const runOnce = async () => {
    const reads = createPassReads(options.feed, batch, scopesOf);
    // A look at every record (batched reads), so that paused, waiting and caught-up
    // subscriptions cost no lease write; a damaged record is logged and skipped alone.
    const shards = new Map<number, string[]>();
    await Promise.all(
      (await store.ids()).map(async (id) => {
        try {
          const read = await records.read(id);
          if (read === null || !due(read.record)) return;
          if (read.record.pending === null) {
            const ahead = await reads.readLog(read.record.cursor);
            if ('events' in ahead && ahead.events.length === 0) return;
          }
          const shard = shardOf(id);
          shards.set(shard, [...(shards.get(shard) ?? []), id]);
        } catch (error) {
          failed(id, error);
        }
      }),
    );
    // Each deliverer starts at its own shard, so that several rarely ask for the same lease.
    const offset = Math.floor(random() * DELIVERY_SHARDS);
    const queue = [...shards.keys()].sort(
      (a, b) =>
        ((a - offset + DELIVERY_SHARDS) % DELIVERY_SHARDS) -
        ((b - offset + DELIVERY_SHARDS) % DELIVERY_SHARDS),
    );
    const worker = async () => {
      for (let shard = queue.shift(); shard !== undefined; shard = queue.shift()) {
        let held: HeldShard | null = null;
        try {
          held = await holdShard(lease, shard, timing);
          if (held === null) continue;
          const serving = held;
          await Promise.all(
            shards.get(shard)!.map((id) => serve(id, serving, reads).catch((error) => failed(id, error))),
          );
        } catch (error) {
          failed(undefined, error);
        } finally {
          if (held) await held.release().catch(() => {});
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 8, queue.length) }, worker));
  };

  const loop = createPollLoop(runOnce, options.pollMs ?? 1_000, (error) => failed(undefined, error));
  return {
    runOnce,
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      pool.close();
    },
    wake: () => loop.wake(),
  };
}

import type { Lease } from './lease.ts';

/**
 * How deliverers share subscriptions (issue 38): every subscription belongs to one of
 * DELIVERY_SHARDS shards (a hash of its id), and a deliverer takes the lease of a whole shard
 * (`leases:hooks-shard:<n>`) before it posts to any of its subscriptions: one lease write for a
 * batch of subscriptions instead of one per subscription and attempt. Several deliverers take
 * different shards, so they share the work and scale with their number; one that is killed stops
 * renewing its shards' leases, and another takes them over once they expire.
 *
 * The shard count is part of the protocol between deliverers: every deliverer sharing a storage
 * must use the same one (it is a constant, not a setting, for that reason).
 */
export const DELIVERY_SHARDS = 64;

/** The shard of a subscription id (FNV-1a of the id). */
export function shardOf(hookId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < hookId.length; index++) {
    hash ^= hookId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % DELIVERY_SHARDS;
}

/** The lease name (under `leases:`) that guards a subscription's deliveries: its shard's. */
export function deliveryLeaseName(hookId: string): string {
  return shardLeaseName(shardOf(hookId));
}

/** The lease name of a shard. */
export function shardLeaseName(shard: number): string {
  return `hooks-shard:${shard}`;
}

/** A shard lease held by this deliverer while it serves the shard. */
export interface HeldShard {
  /**
   * True when the lease lasts long enough for one more attempt (renewed first when it would not:
   * one write shared by every attempt that asks meanwhile); false once another deliverer has it.
   */
  ensure(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Takes a shard's lease, or returns null when another deliverer holds it. An attempt may start
 * only while the lease has more than `timeoutMs` and a margin left (half the lease's slack over
 * the time-out): the attempt's outcome is then recorded before anyone else may take the shard.
 */
export async function holdShard(
  lease: Lease,
  shard: number,
  timing: { leaseMs: number; timeoutMs: number; now: () => number },
): Promise<HeldShard | null> {
  const name = shardLeaseName(shard);
  const taken = timing.now();
  if (!(await lease.acquire(name, taken))) return null;
  let until = taken + timing.leaseMs;
  let lost = false;
  let renewing: Promise<boolean> | null = null;
  const floor = timing.timeoutMs + (timing.leaseMs - timing.timeoutMs) / 2;
  return {
    async ensure() {
      if (lost) return false;
      const at = timing.now();
      if (until - at > floor) return true;
      renewing ??= lease.acquire(name, at).then(
        (ok) => {
          if (ok) until = at + timing.leaseMs;
          else lost = true;
          renewing = null;
          return ok;
        },
        (error: unknown) => {
          renewing = null;
          throw error;
        },
      );
      return renewing;
    },
    release: () => lease.release(name),
  };
}

import type { Storage } from 'unstorage';
import { compareAndSetItem, readItemText } from '../keys/atomic-item.ts';

/**
 * A lease in the state storage (`leases:<name>`; for deliveries, one per shard of subscriptions,
 * `leases:hooks-shard:<n>`, delivery-shards.ts), so that several deliverers sharing a storage
 * (Redis, or one data directory) make each attempt once between them, in order. A lease is
 * `{owner, until}`; it is taken when absent, expired or already ours, by compare-and-set, and
 * renewed while attempts are made under it. A deliverer that was killed simply stops renewing:
 * after `until` another one takes the subscriptions over, and retries the
 * delivery that was in flight (at least once: the receiver may see that event twice, with the
 * same webhook-id). Instances' clocks are assumed to agree within a small part of the lease.
 */
export interface Lease {
  /** Takes or renews the lease until now + ttl; false when another owner holds it. */
  acquire(name: string, now: number): Promise<boolean>;
  /** Gives a lease up (only if still ours), so that another deliverer need not wait for it to expire. */
  release(name: string): Promise<void>;
}

interface LeaseValue {
  owner: string;
  until: number;
}

function parseLease(text: string | null): LeaseValue | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<LeaseValue>;
    return typeof value.owner === 'string' && typeof value.until === 'number' ? (value as LeaseValue) : null;
  } catch {
    return null;
  }
}

/** Leases held by `owner` (unique per deliverer) for `ttlMs` at a time. */
export function createLease(storage: Storage, owner: string, ttlMs: number): Lease {
  const key = (name: string) => `leases:${name}`;
  return {
    async acquire(name, now) {
      const text = await readItemText(storage, key(name));
      const current = parseLease(text);
      if (current !== null && current.owner !== owner && current.until > now) return false;
      return compareAndSetItem(storage, key(name), text, JSON.stringify({ owner, until: now + ttlMs }));
    },
    async release(name) {
      const text = await readItemText(storage, key(name));
      if (parseLease(text)?.owner === owner) await compareAndSetItem(storage, key(name), text, null);
    },
  };
}

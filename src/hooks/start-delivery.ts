import type { EventFeed } from '../events/event.ts';
import { checkStateStorage, createStateStorage } from '../keys/create-storage.ts';
import { resolveLayout } from '../store/layout.ts';
import { watchCurrent } from '../store/watch-current.ts';
import { parseAllowHosts } from './address-policy.ts';
import { createDeliverer, type Deliverer } from './deliverer.ts';

/**
 * The settings a delivery loop starts with: the fields of the configuration it reads
 * (config/load-config.ts; its Config extends this type; src/config/settings.ts says what each
 * setting means).
 */
export interface DeliveryConfig {
  /** MMDS_DATA_DIR. */
  dataDir: string;
  /** MMDS_STORAGE: `file`, `memory` or a `redis://` URL. */
  storage: string;
  /** MMDS_KEY_PEPPER. */
  keyPepper: string | null;
  /** MMDS_HOOKS_*. */
  hooks: Readonly<{
    allowHosts: string;
    retrySchedule: readonly number[] | null;
    timeoutMs: number;
    leaseMs: number | null;
    pollMs: number;
  }>;
}

/** A delivery loop with its own connection to the state storage. */
export interface RunningDelivery {
  deliverer: Deliverer;
  /** Stops the loop after the pass under way, gives its leases up and closes the storage. */
  close(): Promise<void>;
}

/**
 * Starts delivering webhooks as configured (MMDS_STORAGE, MMDS_HOOKS_*), for `mmds deliver` and
 * `mmds serve --deliver`: any number of them can run over one Redis (or one data directory);
 * leases share the subscriptions out between them.
 */
export async function startDelivery(
  config: Readonly<DeliveryConfig>,
  feed: EventFeed,
  log: (entry: Record<string, unknown>) => void,
  options: { pollMs?: number } = {},
): Promise<RunningDelivery> {
  const storage = createStateStorage(config.storage, config.dataDir);
  try {
    await checkStateStorage(storage, config.storage);
  } catch (error) {
    await storage.dispose();
    throw error;
  }
  const deliverer = createDeliverer({
    storage,
    feed,
    policy: parseAllowHosts(config.hooks.allowHosts),
    schedule: config.hooks.retrySchedule ?? undefined,
    timeoutMs: config.hooks.timeoutMs,
    leaseMs: config.hooks.leaseMs ?? undefined,
    pollMs: options.pollMs ?? config.hooks.pollMs,
    pepper: config.keyPepper,
    log,
  });
  // A publish's events go out at once rather than at the next poll (the poll stays as a safety net).
  const watcher = watchCurrent(resolveLayout(config.dataDir), () => deliverer.wake());
  return {
    deliverer,
    async close() {
      watcher.close();
      await deliverer.stop();
      await storage.dispose();
    },
  };
}

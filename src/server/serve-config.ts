/**
 * The settings a server starts with: the fields of the configuration that startServer reads
 * (config/load-config.ts; its Config extends this type; src/config/settings.ts says what each
 * setting means), as `mmds serve` passes them and the workers of `--workers N` receive them.
 */
import type { EventStreamLimits } from './event-streams.ts';

export interface ServeConfig {
  /** MMDS_DATA_DIR. */
  dataDir: string;
  /** MMDS_STORAGE: `file`, `memory` or a `redis://` URL. */
  storage: string;
  port: number;
  host: string;
  /** MMDS_TRUSTED_PROXIES: X-Forwarded-For hops from the right that are trusted proxies. */
  trustedProxies: number;
  /** MMDS_RATE_LIMIT_IPV6_PREFIX: the network bits an IPv6 client is counted by. */
  ipv6RateLimitPrefix: number;
  /** MMDS_KEY_PEPPER. */
  keyPepper: string | null;
  /** MMDS_DIST_DIR: the public files of `mmds build`. */
  distDir: string;
  /** MMDS_MEMORY_LIMIT of DuckDB. */
  memoryLimit: string;
  /** MMDS_SNAPSHOT_WAIT_MS. */
  snapshotWaitMs: number;
  /** MMDS_REVISION_CACHE_MB. */
  revisionCacheMb: number;
  /** MMDS_EVENTS_*: the stream limits and the check for delayed releases. */
  eventStreams: EventStreamLimits & { delayMinutes: number; delayCheckMs: number };
}

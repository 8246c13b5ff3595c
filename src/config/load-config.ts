/**
 * The service's configuration: loadConfig reads the environment once, at a composition root, row
 * by row of the settings table (settings.ts), and warns of MMDS_* variables no row reads.
 */
import { editDistance } from '../lib/edit-distance.ts';
import type { S3Settings } from '../store/object-store/object-store.ts';
import type { Env } from './setting.ts';
import { SETTINGS } from './settings.ts';

export { BASE_URL_SOURCES, baseUrlSetting } from './settings.ts';

/** The service's configuration, read once at start by a composition root. */
export interface Config {
  /** Store, snapshots and local state (MMDS_DATA_DIR, default ./data). */
  dataDir: string;
  /** Key and counter state: `file` (under the data directory), `memory`, or a `redis://` URL. */
  storage: string;
  port: number;
  host: string;
  /** How many X-Forwarded-For hops from the right are trusted proxies (0: use the socket). */
  trustedProxies: number;
  /**
   * Anonymous rate limits count an IPv6 client by its network of this many bits
   * (MMDS_RATE_LIMIT_IPV6_PREFIX, 1 to 128, default 64; 128 counts each address); IPv4 clients
   * (and IPv4-mapped IPv6) are counted per address.
   */
  ipv6RateLimitPrefix: number;
  /** Server-side pepper for key hashes (MMDS_KEY_PEPPER); keys hash with SHA-256 alone when unset. */
  keyPepper: string | null;
  /** The API key `mmds mcp` (stdio) acts with (MMDS_API_KEY); anonymous when unset. Never logged. */
  apiKey: string | null;
  /** Snapshots kept besides the current one and its parent. */
  keepSnapshots: number;
  /** Where `mmds build` writes and `mmds serve` reads the public files. */
  distDir: string;
  /** BLS Public Data API registration key (MMDS_BLS_API_KEY); without it the v1 limits apply. */
  blsApiKey: string | null;
  /** FRED API key (MMDS_FRED_API_KEY); FRED/ALFRED cannot be fetched without it. */
  fredApiKey: string | null;
  /**
   * Publisher roots that replace the official ones for `mmds fetch` and `mmds update`, by source
   * (MMDS_<SOURCE>_BASE_URL, e.g. MMDS_CFTC_BASE_URL): mirrors with the publisher's URL layout.
   */
  baseUrls: Readonly<Record<string, string>>;
  /** Download behaviour (MMDS_FETCH_TIMEOUT_MS, MMDS_FETCH_RETRIES, MMDS_FETCH_BACKOFF_MS, MMDS_FETCH_MAX_BYTES). */
  fetch: Readonly<{ timeoutMs?: number; retries?: number; backoffMs?: number; maxBytes?: number }>;
  /** COT report families `mmds update` keeps current (MMDS_CFTC_REPORTS, comma-separated; default legacy,disaggregated,tff,cit). */
  cftcReports: readonly string[] | null;
  /**
   * Memory DuckDB may use in one process (MMDS_MEMORY_LIMIT, e.g. 1GB or 512MB; default 1GB):
   * past it, sorts and windows spill to the data directory's tmp/ instead of failing.
   */
  memoryLimit: string;
  /** Revisions per fact partition publish and update aim at (MMDS_PARTITION_ROWS, default 250,000). */
  partitionRows: number;
  /**
   * Where `mmds publish` and `mmds update` also commit each snapshot (MMDS_SNAPSHOT_STORE,
   * `s3://bucket/prefix`; null: the local data directory only). See src/store/object-store/bucket-log.ts.
   */
  snapshotStore: string | null;
  /** How often `mmds serve --from` polls the bucket's log (MMDS_SNAPSHOT_POLL_MS, default 2000). */
  snapshotPollMs: number;
  /**
   * The longest a request that names a snapshot newer than the one in service (X-Snapshot-Id,
   * `since`, an event id) waits for it before a 503 (MMDS_SNAPSHOT_WAIT_MS, default 5000).
   */
  snapshotWaitMs: number;
  /** The S3 endpoint, region and keys: the standard AWS variables (AWS_ENDPOINT_URL_S3, …). */
  s3: Readonly<S3Settings>;
  /**
   * Server-Sent Events of /api/v1/events: a comment every heartbeatMs (MMDS_EVENTS_HEARTBEAT_MS,
   * default 15,000) and at most perKey open streams per key (MMDS_EVENTS_STREAMS_PER_KEY, default
   * 5) and perAddress per anonymous client address (MMDS_EVENTS_STREAMS_PER_ADDRESS, default 2),
   * max on the whole instance (MMDS_EVENTS_STREAMS_MAX, default 500); a stream that does not take
   * what is sent to it within drainMs (MMDS_EVENTS_DRAIN_MS, default 30,000) is cut.
   * `release.delayed`: a release the calendar expected is delayed once delayMinutes have passed
   * without it landing (MMDS_EVENTS_DELAY_MINUTES, default 30; 0 turns the check off), checked
   * every delayCheckMs (MMDS_EVENTS_DELAY_CHECK_MS, default 60,000) by `mmds serve`.
   */
  eventStreams: {
    heartbeatMs: number;
    perKey: number;
    perAddress: number;
    max: number;
    drainMs: number;
    delayMinutes: number;
    delayCheckMs: number;
  };
  /**
   * Webhook delivery (issue 24): MMDS_HOOKS_ALLOW_HOSTS (hosts, addresses and networks that may
   * receive webhooks although loopback, private or link-local; comma-separated), and for tests and
   * operators MMDS_HOOKS_RETRY_SCHEDULE (waits before each retry, `5s,5m,30m,2h,5h,10h,10h`),
   * MMDS_HOOKS_TIMEOUT_MS (one attempt's time-out, default 15000), MMDS_HOOKS_LEASE_MS (how long a
   * deliverer's lease on a subscription lasts unrenewed, so how soon another instance takes over
   * from a killed one; default the larger of 60 s and twice the time-out, and always longer than
   * the time-out) and MMDS_HOOKS_POLL_MS (the wait between two passes over the subscriptions,
   * default 1000).
   */
  hooks: Readonly<{
    allowHosts: string;
    retrySchedule: readonly number[] | null;
    timeoutMs: number;
    /** null: the deliverer's default (src/hooks/deliverer.ts). */
    leaseMs: number | null;
    pollMs: number;
  }>;
  /**
   * Megabytes of series revisions `mmds serve` keeps in memory for point-in-time pages
   * (MMDS_REVISION_CACHE_MB, default 64; 0 reads every page with DuckDB). See src/query/revision-cache.ts.
   */
  revisionCacheMb: number;
  /**
   * What the environment holds that looks meant for mmds but is not read (a misspelt
   * MMDS_DATA_DIR silently means ./data): one line each, for the CLI to print as warnings.
   */
  warnings?: readonly string[];
}

/** Reads the configuration from an environment (process.env at the composition roots). */
export function loadConfig(env: Env, cwd: string): Readonly<Config> {
  const values: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    values[setting.name] = setting.read(env, cwd);
    setting.check?.(values);
  }
  const config: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const [group, key] = name.split('.') as [string, string | undefined];
    if (key === undefined) {
      config[group] = value;
      continue;
    }
    config[group] ??= {};
    if (value !== undefined) (config[group] as Record<string, unknown>)[key] = value;
  }
  for (const value of Object.values(config))
    if (typeof value === 'object' && value !== null) Object.freeze(value);
  config.warnings = Object.freeze(readUnknownSettings(env));
  return Object.freeze(config) as unknown as Readonly<Config>;
}

/** Every MMDS_* variable loadConfig reads. */
export const MMDS_SETTINGS: readonly string[] = Object.freeze(
  SETTINGS.flatMap((setting) => setting.variables).filter((name) => name.startsWith('MMDS_')),
);

/** Variables named MMDS_* that mmds does not read, with the setting each was probably meant as. */
function readUnknownSettings(env: Env): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('MMDS_') || MMDS_SETTINGS.includes(name)) continue;
    const nearest = MMDS_SETTINGS.map((known) => ({ known, distance: editDistance(name, known) })).sort(
      (a, b) => a.distance - b.distance,
    )[0]!;
    warnings.push(
      nearest.distance <= 3
        ? `${name} is not a setting of mmds; did you mean ${nearest.known}?`
        : `${name} is not a setting of mmds (mmds --help lists them)`,
    );
  }
  return warnings;
}

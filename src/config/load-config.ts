import { resolve } from 'node:path';
import { parseAllowHosts } from '../hooks/address-policy.ts';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, parseRetrySchedule } from '../hooks/retry-schedule.ts';
import { editDistance } from '../lib/edit-distance.ts';
import { DEFAULT_REVISION_CACHE_MB } from '../query/revision-cache.ts';
import { DEFAULT_IPV6_PREFIX } from '../rate-limit/client-ip.ts';
import { readS3Settings, type S3Settings } from '../store/object-store/object-store.ts';
import { DEFAULT_PARTITION_ROWS } from '../store/partitions.ts';

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
  /** Revisions per fact partition a publish aims at (MMDS_PARTITION_ROWS, default 250,000). */
  partitionRows: number;
  /**
   * Where `mmds publish` also commits each snapshot (MMDS_SNAPSHOT_STORE, `s3://bucket/prefix`;
   * null: the local data directory only). See src/store/object-store/bucket-log.ts.
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

/** Sources whose publisher root can be replaced through MMDS_<SOURCE>_BASE_URL. */
export const BASE_URL_SOURCES = [
  'cftc',
  'ecb',
  'bls',
  'fred',
  'iso4217',
  'm49',
  'mic',
  'tz',
  'countries',
] as const;

/** The variable that replaces a source's publisher root: `MMDS_ECB_BASE_URL` for `ecb`. */
export function baseUrlSetting(source: string): string {
  return `MMDS_${source.toUpperCase()}_BASE_URL`;
}

/** Reads the configuration from an environment (process.env at the composition roots). */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): Readonly<Config> {
  return Object.freeze({
    dataDir: readDataDir(env.MMDS_DATA_DIR, cwd),
    storage: env.MMDS_STORAGE || 'file',
    port: readInteger(env, 'PORT', 4321, 0, 65535),
    host: env.HOST || '127.0.0.1',
    trustedProxies: readInteger(env, 'MMDS_TRUSTED_PROXIES', 0, 0, 10),
    ipv6RateLimitPrefix: readInteger(env, 'MMDS_RATE_LIMIT_IPV6_PREFIX', DEFAULT_IPV6_PREFIX, 1, 128),
    keyPepper: env.MMDS_KEY_PEPPER || null,
    apiKey: env.MMDS_API_KEY?.trim() || null,
    keepSnapshots: readInteger(env, 'MMDS_KEEP_SNAPSHOTS', 5, 1, 1000),
    distDir: resolve(cwd, env.MMDS_DIST_DIR || './dist'),
    blsApiKey: env.MMDS_BLS_API_KEY || null,
    fredApiKey: env.MMDS_FRED_API_KEY || null,
    baseUrls: Object.freeze(readBaseUrls(env)),
    fetch: Object.freeze(readFetchOptions(env)),
    cftcReports: env.MMDS_CFTC_REPORTS
      ? Object.freeze(env.MMDS_CFTC_REPORTS.split(',').map((r) => r.trim()))
      : null,
    memoryLimit: readMemoryLimit(env.MMDS_MEMORY_LIMIT),
    partitionRows: readInteger(env, 'MMDS_PARTITION_ROWS', DEFAULT_PARTITION_ROWS, 100, 1_000_000_000),
    snapshotStore: env.MMDS_SNAPSHOT_STORE?.trim() || null,
    snapshotPollMs: readInteger(env, 'MMDS_SNAPSHOT_POLL_MS', 2000, 10, 3_600_000),
    snapshotWaitMs: readInteger(env, 'MMDS_SNAPSHOT_WAIT_MS', 5000, 0, 60_000),
    s3: Object.freeze(readS3Settings(env)),
    eventStreams: Object.freeze({
      heartbeatMs: readInteger(env, 'MMDS_EVENTS_HEARTBEAT_MS', 15_000, 10, 3_600_000),
      perKey: readInteger(env, 'MMDS_EVENTS_STREAMS_PER_KEY', 5, 0, 10_000),
      perAddress: readInteger(env, 'MMDS_EVENTS_STREAMS_PER_ADDRESS', 2, 0, 10_000),
      max: readInteger(env, 'MMDS_EVENTS_STREAMS_MAX', 500, 0, 100_000),
      drainMs: readInteger(env, 'MMDS_EVENTS_DRAIN_MS', 30_000, 10, 3_600_000),
      delayMinutes: readInteger(env, 'MMDS_EVENTS_DELAY_MINUTES', 30, 0, 7 * 24 * 60),
      delayCheckMs: readInteger(env, 'MMDS_EVENTS_DELAY_CHECK_MS', 60_000, 10, 3_600_000),
    }),
    hooks: Object.freeze(readHookSettings(env)),
    revisionCacheMb: readInteger(env, 'MMDS_REVISION_CACHE_MB', DEFAULT_REVISION_CACHE_MB, 0, 1_000_000),
    warnings: Object.freeze(readUnknownSettings(env)),
  });
}

/** Every MMDS_* variable loadConfig reads. */
export const MMDS_SETTINGS: readonly string[] = Object.freeze([
  'MMDS_DATA_DIR',
  'MMDS_STORAGE',
  'MMDS_TRUSTED_PROXIES',
  'MMDS_RATE_LIMIT_IPV6_PREFIX',
  'MMDS_KEY_PEPPER',
  'MMDS_KEEP_SNAPSHOTS',
  'MMDS_DIST_DIR',
  'MMDS_BLS_API_KEY',
  'MMDS_FRED_API_KEY',
  ...BASE_URL_SOURCES.map(baseUrlSetting),
  'MMDS_FETCH_TIMEOUT_MS',
  'MMDS_FETCH_RETRIES',
  'MMDS_FETCH_BACKOFF_MS',
  'MMDS_FETCH_MAX_BYTES',
  'MMDS_CFTC_REPORTS',
  'MMDS_MEMORY_LIMIT',
  'MMDS_PARTITION_ROWS',
  'MMDS_EVENTS_HEARTBEAT_MS',
  'MMDS_EVENTS_STREAMS_PER_KEY',
  'MMDS_EVENTS_STREAMS_PER_ADDRESS',
  'MMDS_EVENTS_STREAMS_MAX',
  'MMDS_EVENTS_DRAIN_MS',
  'MMDS_EVENTS_DELAY_MINUTES',
  'MMDS_EVENTS_DELAY_CHECK_MS',
  'MMDS_HOOKS_ALLOW_HOSTS',
  'MMDS_HOOKS_RETRY_SCHEDULE',
  'MMDS_HOOKS_TIMEOUT_MS',
  'MMDS_HOOKS_LEASE_MS',
  'MMDS_HOOKS_POLL_MS',
  'MMDS_REVISION_CACHE_MB',
  'MMDS_API_KEY',
  'MMDS_SNAPSHOT_STORE',
  'MMDS_SNAPSHOT_POLL_MS',
  'MMDS_SNAPSHOT_WAIT_MS',
]);

/** Variables named MMDS_* that mmds does not read, with the setting each was probably meant as. */
function readUnknownSettings(env: Readonly<Record<string, string | undefined>>): string[] {
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

/**
 * MMDS_DATA_DIR: unset means ./data; set but empty is refused (an empty value in a unit file or
 * an `export MMDS_DATA_DIR=$TYPO` would otherwise quietly mean ./data). Whether the directory
 * exists is each command's business (src/cli/data-dir.ts): some create it, the others refuse.
 */
function readDataDir(value: string | undefined, cwd: string): string {
  if (value === undefined) return resolve(cwd, './data');
  if (value.trim() === '')
    throw new ConfigError('MMDS_DATA_DIR is set but empty; unset it to use ./data or give a directory');
  return resolve(cwd, value);
}

/** A DuckDB memory size: a number and a unit (KB, MB, GB, TB, or KiB, MiB, GiB, TiB). */
function readMemoryLimit(value: string | undefined): string {
  if (value === undefined || value === '') return '1GB';
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(trimmed)) {
    throw new Error(`MMDS_MEMORY_LIMIT must be a size such as 1GB or 512MB, got "${value}"`);
  }
  return trimmed;
}

function readFetchOptions(env: Readonly<Record<string, string | undefined>>): Config['fetch'] {
  const options: { timeoutMs?: number; retries?: number; backoffMs?: number; maxBytes?: number } = {};
  const read = (name: string, max: number) =>
    env[name] === undefined || env[name] === '' ? undefined : readInteger(env, name, 0, 0, max);
  const timeoutMs = read('MMDS_FETCH_TIMEOUT_MS', 3_600_000);
  const retries = read('MMDS_FETCH_RETRIES', 20);
  const backoffMs = read('MMDS_FETCH_BACKOFF_MS', 600_000);
  const maxBytes = read('MMDS_FETCH_MAX_BYTES', 2 ** 40);
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (retries !== undefined) options.retries = retries;
  if (backoffMs !== undefined) options.backoffMs = backoffMs;
  if (maxBytes !== undefined) options.maxBytes = maxBytes;
  return options;
}

function readHookSettings(env: Readonly<Record<string, string | undefined>>): Config['hooks'] {
  const allowHosts = env.MMDS_HOOKS_ALLOW_HOSTS ?? '';
  const schedule = env.MMDS_HOOKS_RETRY_SCHEDULE;
  try {
    parseAllowHosts(allowHosts);
    const timeoutMs = readInteger(env, 'MMDS_HOOKS_TIMEOUT_MS', DEFAULT_ATTEMPT_TIMEOUT_MS, 100, 600_000);
    const leaseMs = env.MMDS_HOOKS_LEASE_MS
      ? readInteger(env, 'MMDS_HOOKS_LEASE_MS', 0, 200, 3_600_000)
      : null;
    // A lease that can run out during an attempt would let a second instance post the same
    // subscription's next event meanwhile: out of order.
    if (leaseMs !== null && leaseMs <= timeoutMs)
      throw new ConfigError(
        `MMDS_HOOKS_LEASE_MS (${leaseMs}) must be longer than MMDS_HOOKS_TIMEOUT_MS (${timeoutMs})`,
      );
    return {
      allowHosts,
      retrySchedule: schedule ? Object.freeze(parseRetrySchedule(schedule)) : null,
      timeoutMs,
      leaseMs,
      pollMs: readInteger(env, 'MMDS_HOOKS_POLL_MS', 1_000, 10, 600_000),
    };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError((error as Error).message);
  }
}

function readBaseUrls(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const source of BASE_URL_SOURCES) {
    const name = baseUrlSetting(source);
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (!/^https?:\/\/[^\s]+$/.test(raw))
      throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
    urls[source] = raw;
  }
  return urls;
}

/** A configuration value that cannot be used. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function readInteger(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * The settings table: every environment variable mmds reads, once, with where loadConfig puts it,
 * its parser, default, bounds and help. loadConfig (load-config.ts) reads the rows in this order
 * (the first bad value is the one reported), `mmds --help` and the README's table print them
 * (settings-text.ts), and a variable named MMDS_* that no row reads is warned about.
 */
import { resolve } from 'node:path';
import { DEFAULT_HTTP_OPTIONS } from '../fetch/http-options.ts';
import { ConfigError } from '../lib/config-error.ts';
import { DEFAULT_IPV6_PREFIX } from '../rate-limit/client-ip.ts';
import { readS3Settings } from '../store/object-store/object-store.ts';
import { DEFAULT_PARTITION_ROWS } from '../store/partition-rows.ts';
import { integer, parsed, type Setting, text } from './setting.ts';
import { SERVE_SETTINGS } from './settings-serve.ts';

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

const HOUR_MS = 3_600_000;
const DEFAULT_MEMORY_LIMIT = '1GB';

/** Every setting, in the order loadConfig reads them. */
export const SETTINGS: readonly Setting[] = Object.freeze([
  parsed({
    name: 'dataDir',
    variable: 'MMDS_DATA_DIR',
    default: './data',
    help: 'store, snapshots and local state',
    more: 'set but empty is refused; ingest, ingest-plan, fetch, update and keys issue create it, the other commands refuse to run when it does not exist: exit 78',
    // Whether the directory exists is each command's business (src/cli/data-dir.ts).
    parse: (raw, cwd) => {
      if (raw === undefined) return resolve(cwd, './data');
      if (raw.trim() === '')
        throw new ConfigError('MMDS_DATA_DIR is set but empty; unset it to use ./data or give a directory');
      return resolve(cwd, raw);
    },
  }),
  text({
    name: 'storage',
    variable: 'MMDS_STORAGE',
    fallback: 'file',
    help: 'key and rate-limit state: file (under the data directory), memory or redis://host:port',
  }),
  integer({
    name: 'port',
    variable: 'PORT',
    fallback: 4321,
    bounds: [0, 65535],
    help: 'the port serve listens on',
  }),
  text({ name: 'host', variable: 'HOST', fallback: '127.0.0.1', help: 'the address serve listens on' }),
  integer({
    name: 'trustedProxies',
    variable: 'MMDS_TRUSTED_PROXIES',
    fallback: 0,
    bounds: [0, 10],
    help: 'X-Forwarded-For hops to trust for the client IP',
  }),
  integer({
    name: 'ipv6RateLimitPrefix',
    variable: 'MMDS_RATE_LIMIT_IPV6_PREFIX',
    fallback: DEFAULT_IPV6_PREFIX,
    bounds: [1, 128],
    help: 'IPv6 clients are rate-limited per network of this many bits',
    more: '128 counts each address; IPv4 always per address',
  }),
  text({
    name: 'keyPepper',
    variable: 'MMDS_KEY_PEPPER',
    fallback: null,
    help: 'secret mixed into stored key hashes (HMAC-SHA-256) and sealing the webhook signing secrets at rest',
    more: 'unset: they are stored as is',
  }),
  text({
    name: 'apiKey',
    variable: 'MMDS_API_KEY',
    fallback: null,
    trim: true,
    help: 'the API key mmds mcp acts with',
    more: 'anonymous when unset; never logged',
  }),
  integer({
    name: 'keepSnapshots',
    variable: 'MMDS_KEEP_SNAPSHOTS',
    fallback: 5,
    bounds: [1, 1000],
    help: 'snapshots publish keeps besides the current one and its parent',
  }),
  parsed({
    name: 'distDir',
    variable: 'MMDS_DIST_DIR',
    default: './dist',
    help: 'where build writes and serve reads the static files',
    parse: (raw, cwd) => resolve(cwd, raw || './dist'),
  }),
  text({
    name: 'blsApiKey',
    variable: 'MMDS_BLS_API_KEY',
    fallback: null,
    help: 'BLS Public Data API registration key, for fetch bls',
    more: 'optional: the v1 limits without',
  }),
  text({
    name: 'fredApiKey',
    variable: 'MMDS_FRED_API_KEY',
    fallback: null,
    help: 'FRED API key, for fetch fred',
    more: 'required for it',
  }),
  {
    name: 'baseUrls',
    variable: 'MMDS_<SOURCE>_BASE_URL',
    variables: BASE_URL_SOURCES.map(baseUrlSetting),
    default: '',
    help: `a mirror of a publisher with its URL layout, e.g. MMDS_CFTC_BASE_URL (sources: ${BASE_URL_SOURCES.join(', ')})`,
    read: (env) => {
      const urls: Record<string, string> = {};
      for (const source of BASE_URL_SOURCES) {
        const name = baseUrlSetting(source);
        const raw = env[name];
        if (raw === undefined || raw === '') continue;
        if (!/^https?:\/\/[^\s]+$/.test(raw))
          throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
        urls[source] = raw;
      }
      return Object.freeze(urls);
    },
  },
  // Unset: the download's own defaults (src/fetch/http-options.ts), which the help prints.
  integer({
    name: 'fetch.timeoutMs',
    variable: 'MMDS_FETCH_TIMEOUT_MS',
    fallback: undefined,
    shown: String(DEFAULT_HTTP_OPTIONS.timeoutMs),
    bounds: [0, HOUR_MS],
    help: 'time-out of one download attempt in ms',
  }),
  integer({
    name: 'fetch.retries',
    variable: 'MMDS_FETCH_RETRIES',
    fallback: undefined,
    shown: String(DEFAULT_HTTP_OPTIONS.retries),
    bounds: [0, 20],
    help: 'retries of a failed download',
  }),
  integer({
    name: 'fetch.backoffMs',
    variable: 'MMDS_FETCH_BACKOFF_MS',
    fallback: undefined,
    shown: String(DEFAULT_HTTP_OPTIONS.backoffMs),
    bounds: [0, 600_000],
    help: 'first back-off between retries in ms, growing per attempt',
  }),
  integer({
    name: 'fetch.maxBytes',
    variable: 'MMDS_FETCH_MAX_BYTES',
    fallback: undefined,
    shown: String(DEFAULT_HTTP_OPTIONS.maxBytes),
    bounds: [0, 2 ** 40],
    help: 'largest file a download accepts, in bytes',
  }),
  parsed({
    name: 'cftcReports',
    variable: 'MMDS_CFTC_REPORTS',
    default: 'legacy,disaggregated,tff,cit',
    help: 'COT report families fetch and update download, comma-separated',
    parse: (raw) => (raw ? Object.freeze(raw.split(',').map((report) => report.trim())) : null),
  }),
  parsed({
    name: 'memoryLimit',
    variable: 'MMDS_MEMORY_LIMIT',
    default: DEFAULT_MEMORY_LIMIT,
    help: 'DuckDB memory of one command, e.g. 1GB or 512MB; past it, sorts and windows spill to the data directory',
    // A number and a unit (KB, MB, GB, TB, or KiB, MiB, GiB, TiB).
    parse: (raw) => {
      if (raw === undefined || raw === '') return DEFAULT_MEMORY_LIMIT;
      const trimmed = raw.trim();
      if (!/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(trimmed))
        throw new ConfigError(`MMDS_MEMORY_LIMIT must be a size such as 1GB or 512MB, got "${raw}"`);
      return trimmed;
    },
  }),
  integer({
    name: 'partitionRows',
    variable: 'MMDS_PARTITION_ROWS',
    fallback: DEFAULT_PARTITION_ROWS,
    bounds: [100, 1_000_000_000],
    help: 'revisions per snapshot partition publish and update aim at',
  }),
  text({
    name: 'snapshotStore',
    variable: 'MMDS_SNAPSHOT_STORE',
    fallback: null,
    trim: true,
    help: 's3://bucket/prefix publish (as --to) and update also commit each snapshot to',
  }),
  integer({
    name: 'snapshotPollMs',
    variable: 'MMDS_SNAPSHOT_POLL_MS',
    fallback: 2000,
    bounds: [10, HOUR_MS],
    help: "how often serve --from polls the bucket's log, in ms",
  }),
  integer({
    name: 'snapshotWaitMs',
    variable: 'MMDS_SNAPSHOT_WAIT_MS',
    fallback: 5000,
    bounds: [0, 60_000],
    help: 'how long a request naming a newer snapshot (X-Snapshot-Id) waits for it before a 503, in ms',
  }),
  {
    name: 's3',
    variable: 'AWS_ENDPOINT_URL_S3',
    // The standard AWS variables: not mmds's to warn about.
    variables: [],
    default: '',
    help: 'an S3-compatible server (addressed path-style); with AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY',
    more: "unset: the AWS SDK's chain",
    read: (env) => Object.freeze(readS3Settings(env)),
  },
  ...SERVE_SETTINGS,
]);

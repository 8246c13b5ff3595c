import { resolve } from 'node:path';

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
  /** Server-side pepper for key hashes (MMDS_KEY_PEPPER); keys hash with SHA-256 alone when unset. */
  keyPepper: string | null;
  /** Snapshots kept besides the current one and its parent. */
  keepSnapshots: number;
  /** Where `mmds build` writes and `mmds serve` reads the public files. */
  distDir: string;
}

/** Reads the configuration from an environment (process.env at the composition roots). */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): Readonly<Config> {
  return Object.freeze({
    dataDir: resolve(cwd, env.MMDS_DATA_DIR || './data'),
    storage: env.MMDS_STORAGE || 'file',
    port: readInteger(env, 'PORT', 4321, 0, 65535),
    host: env.HOST || '127.0.0.1',
    trustedProxies: readInteger(env, 'MMDS_TRUSTED_PROXIES', 0, 0, 10),
    keyPepper: env.MMDS_KEY_PEPPER || null,
    keepSnapshots: readInteger(env, 'MMDS_KEEP_SNAPSHOTS', 5, 1, 1000),
    distDir: resolve(cwd, env.MMDS_DIST_DIR || './dist'),
  });
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

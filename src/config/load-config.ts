/**
 * The service's configuration: loadConfig reads the environment once, at a composition root, row
 * by row of the settings table (settings.ts), and warns of MMDS_* variables no row reads.
 */

import type { DeliveryConfig } from '../hooks/start-delivery.ts';
import { editDistance } from '../lib/edit-distance.ts';
import type { ServeConfig } from '../server/serve-config.ts';
import type { S3Settings } from '../store/object-store/object-store.ts';
import type { Env } from './setting.ts';
import { SETTINGS } from './settings.ts';

export { BASE_URL_SOURCES, baseUrlSetting } from './settings.ts';

/**
 * The service's configuration, read once at start by a composition root: the settings of the
 * server (ServeConfig) and of webhook delivery (DeliveryConfig), which those layers declare, and
 * the rest here.
 */
export interface Config extends ServeConfig, DeliveryConfig {
  /** The API key `mmds mcp` (stdio) acts with (MMDS_API_KEY); anonymous when unset. Never logged. */
  apiKey: string | null;
  /** Snapshots kept besides the current one and its parent. */
  keepSnapshots: number;
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
  /** Revisions per fact partition publish and update aim at (MMDS_PARTITION_ROWS, default 250,000). */
  partitionRows: number;
  /**
   * Where `mmds publish` and `mmds update` also commit each snapshot (MMDS_SNAPSHOT_STORE,
   * `s3://bucket/prefix`; null: the local data directory only). See src/store/object-store/bucket-log.ts.
   */
  snapshotStore: string | null;
  /** How often `mmds serve --from` polls the bucket's log (MMDS_SNAPSHOT_POLL_MS, default 2000). */
  snapshotPollMs: number;
  /** The S3 endpoint, region and keys: the standard AWS variables (AWS_ENDPOINT_URL_S3, …). */
  s3: Readonly<S3Settings>;
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

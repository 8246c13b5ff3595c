import { loadConfig } from '../../src/config/load-config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';

/** A real server on a random loopback port, with the log lines it wrote. */
export interface TestServer extends RunningServer {
  logs: Record<string, unknown>[];
}

/** Options for a test server; anything not given comes from the defaults of loadConfig. */
export interface TestServerOptions {
  dataDir: string;
  distDir?: string;
  storage?: string;
  trustedProxies?: number;
  keyPepper?: string;
  /** MMDS_RATE_LIMIT_IPV6_PREFIX. */
  ipv6RateLimitPrefix?: number;
  anonymousLimit?: number;
  pollMs?: number;
  /**
   * MMDS_EVENTS_HEARTBEAT_MS, MMDS_EVENTS_STREAMS_PER_KEY, MMDS_EVENTS_STREAMS_PER_ADDRESS,
   * MMDS_EVENTS_STREAMS_MAX, MMDS_EVENTS_DRAIN_MS.
   */
  eventStreams?: {
    heartbeatMs?: number;
    perKey?: number;
    perAddress?: number;
    max?: number;
    drainMs?: number;
  };
  /**
   * MMDS_EVENTS_DELAY_MINUTES and MMDS_EVENTS_DELAY_CHECK_MS. Off unless given: the sample data
   * is old, so under the real clock every release of the last day would be announced as delayed.
   */
  delays?: { minutes: number; checkMs?: number };
  /** The server's clock (requests and the delay check). */
  now?: () => Date;
  /** MMDS_SNAPSHOT_WAIT_MS: how long a request naming a newer snapshot waits for it. */
  snapshotWaitMs?: number;
}

/** Starts the real server in-process on port 0 (a free port) and returns its URL. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const env: Record<string, string> = {
    MMDS_DATA_DIR: options.dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
  };
  if (options.distDir) env.MMDS_DIST_DIR = options.distDir;
  if (options.storage) env.MMDS_STORAGE = options.storage;
  if (options.trustedProxies !== undefined) env.MMDS_TRUSTED_PROXIES = String(options.trustedProxies);
  if (options.keyPepper) env.MMDS_KEY_PEPPER = options.keyPepper;
  if (options.ipv6RateLimitPrefix !== undefined)
    env.MMDS_RATE_LIMIT_IPV6_PREFIX = String(options.ipv6RateLimitPrefix);
  const streams = options.eventStreams ?? {};
  if (streams.heartbeatMs !== undefined) env.MMDS_EVENTS_HEARTBEAT_MS = String(streams.heartbeatMs);
  if (streams.perKey !== undefined) env.MMDS_EVENTS_STREAMS_PER_KEY = String(streams.perKey);
  if (streams.perAddress !== undefined) env.MMDS_EVENTS_STREAMS_PER_ADDRESS = String(streams.perAddress);
  if (streams.max !== undefined) env.MMDS_EVENTS_STREAMS_MAX = String(streams.max);
  if (streams.drainMs !== undefined) env.MMDS_EVENTS_DRAIN_MS = String(streams.drainMs);
  env.MMDS_EVENTS_DELAY_MINUTES = String(options.delays?.minutes ?? 0);
  if (options.snapshotWaitMs !== undefined) env.MMDS_SNAPSHOT_WAIT_MS = String(options.snapshotWaitMs);
  if (options.delays?.checkMs !== undefined) env.MMDS_EVENTS_DELAY_CHECK_MS = String(options.delays.checkMs);
  const logs: Record<string, unknown>[] = [];
  const server = await startServer(loadConfig(env, process.cwd()), {
    log: (entry) => logs.push(entry),
    pollMs: options.pollMs ?? 200,
    anonymousLimit: options.anonymousLimit,
    now: options.now,
  });
  return { ...server, logs };
}

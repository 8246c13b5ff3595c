import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from 'h3';
import { getReleaseCalendars } from '../calendar/release-calendars.ts';
import { unavailable } from '../contract/errors.ts';
import { createStateStorage, getRedisClient } from '../keys/create-storage.ts';
import { rateLimitSubject, resolveClientIp } from '../rate-limit/client-ip.ts';
import { rateLimitHeaders } from '../rate-limit/headers.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { assertLimit } from '../rate-limit/sliding-log.ts';
import { resolveLayout, snapshotDir } from '../store/layout.ts';
import type { ReplicaStatus, SnapshotArrival } from '../store/object-store/follow-store.ts';
import { answerClientError } from './answer-client-error.ts';
import { quarantineHost } from './check-host.ts';
import { createApp } from './create-app.ts';
import { watchDelayedReleases } from './delay-watch.ts';
import { createEventStreams } from './event-streams.ts';
import { createRequestHandler } from './handle-request.ts';
import { describeKeyRefusal } from './key-refusal.ts';
import { createKeyedFastPath, KeyedAnswers } from './keyed-fast-path.ts';
import { createPublicFastPath } from './public-fast-path.ts';
import { ResponseCache } from './response-cache.ts';
import { openServedSnapshots } from './runtime.ts';
import type { ServeConfig } from './serve-config.ts';
import { callerOf, openKeyStore, openLimiters } from './serve-state.ts';
import { createRedisStreamSlots } from './stream-slots.ts';
import { watchStaticSite } from './watch-static-site.ts';

/** Options of a running server besides the configuration. */
export interface StartServerOptions {
  log: (entry: Record<string, unknown>) => void;
  /** Seconds between checks of CURRENT and dist/ for a new snapshot or build. */
  pollMs?: number;
  /** Anonymous requests per minute per client IP (SPEC: 60). */
  anonymousLimit?: number;
  /** Milliseconds a client may take to send its request headers (default 10 000); slower ones are cut off. */
  headersTimeoutMs?: number;
  /** The clock of requests and of the check for delayed releases (tests move it; default the real one). */
  now?: () => Date;
  /**
   * Whether a snapshot not in the data directory is committed ahead of it, or damaged
   * (`mmds serve --from`: the bucket's log); without it, only a snapshot already in the data
   * directory is awaited.
   */
  arrivalOf?: (snapshotId: string) => Promise<SnapshotArrival>;
  /** Calls `listener` when a pull refuses a snapshot as damaged; returns the function that stops it. */
  onDamaged?: (listener: (snapshotId: string, reason: string) => void) => () => void;
  /** An instance following a bucket (`mmds serve --from`): where it stands, for /api/v1/status. */
  replica?: (servedId: string | null, now: Date) => Promise<ReplicaStatus>;
  /**
   * The counters this process shares with others (a worker of `mmds serve --workers N`: the
   * primary's, over IPC) in place of its own in-process limiter; with Redis, used while Redis is down.
   */
  limiter?: RateLimiter;
}

/** A listening server. */
export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting connections, lets requests in flight finish, and releases everything. */
  close(): Promise<void>;
}

/** Explicit HTTP limits (CONTRACT: oversized or slow requests are cut off, normal ones go on). */
const NODE_SERVER_LIMITS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  maxHeaderSize: 16_384,
  // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own; the handler
  // answers it in the contract's envelope, counted by the rate limiter (check-host.ts).
  requireHostHeader: false,
};

/**
 * The composition root of `mmds serve`: opens the current snapshot, the key store and the rate
 * limiter that the configuration names, loads dist/ into memory, and listens.
 */
export async function startServer(
  config: Readonly<ServeConfig>,
  options: StartServerOptions,
): Promise<RunningServer> {
  const layout = resolveLayout(config.dataDir);
  const log = options.log;
  const anonymousLimit = options.anonymousLimit ?? 60;
  // Refused here rather than by the limiter on every request (a 500 each time).
  assertLimit(anonymousLimit);
  // IPv6 clients are counted by their network (a /64 by default), IPv4 clients by address.
  const anonymousBucket = (clientIp: string) =>
    `ip:${rateLimitSubject(clientIp, config.ipv6RateLimitPrefix)}`;
  const storage = createStateStorage(config.storage, config.dataDir);
  const redis = getRedisClient(storage);
  // Without an error listener ioredis prints every failed reconnect to stderr. The limiter and the
  // key store report what an outage does to requests; the client's own error is logged once.
  let redisFailing = false;
  redis?.on('error', (error: Error) => {
    if (!redisFailing) log({ event: 'redis_error', error: error.message });
    redisFailing = true;
  });
  redis?.on('ready', () => {
    redisFailing = false;
  });
  const { keys, keyChanges } = openKeyStore(config, storage, redis, log);
  // The release calendars (data/calendars/) are read once, before the first request needs them
  // (/status, /macro, /releases); a bad file is logged here and reported by those requests.
  await getReleaseCalendars().catch((error: Error) => log({ event: 'calendar_error', error: error.message }));
  const { limiter, consumeFast } = openLimiters(redis, options.limiter, log);
  const clientIpOf = (address: string, forwardedFor: string | null) =>
    resolveClientIp(address, forwardedFor, config.trustedProxies);
  const pollMs = options.pollMs ?? 1000;
  const snapshots = await openServedSnapshots({
    layout,
    db: {
      poolSize: 4,
      memoryLimit: config.memoryLimit,
      revisionCacheBytes: config.revisionCacheMb * 2 ** 20,
    },
    log,
    pollMs,
  });
  const site = watchStaticSite(config.distDir, pollMs, log);
  const now = options.now ?? (() => new Date());
  const eventStreams = createEventStreams(
    {
      snapshots,
      layout,
      log,
      // The store itself, not the cache: a stream checks its key before it sends events.
      readKey: (id) => keys.get(id),
      ...(keyChanges ? { onKeyChange: (listener) => keyChanges.subscribe(listener) } : {}),
      now,
      // With Redis, the per-key and per-address stream limits are the fleet's (stream-slots.ts).
      ...(redis ? { sharedSlots: createRedisStreamSlots(redis, { log }) } : {}),
    },
    config.eventStreams,
  );
  const delays =
    config.eventStreams.delayMinutes > 0
      ? watchDelayedReleases(
          { snapshots, layout, now, log, onChecked: () => eventStreams.wake() },
          { graceMinutes: config.eventStreams.delayMinutes, checkMs: config.eventStreams.delayCheckMs },
        )
      : null;
  const cache = new ResponseCache();
  const keyedAnswers = new KeyedAnswers();
  const handle = createRequestHandler({
    snapshots,
    snapshotWait: {
      ms: config.snapshotWaitMs,
      arrivalOf: async (id) => {
        if (!existsSync(join(snapshotDir(layout, id), 'manifest.json')))
          return (await options.arrivalOf?.(id)) ?? { state: 'unknown' };
        const reason = snapshots.refusal(id);
        return reason === null ? { state: 'coming' } : { state: 'damaged', reason };
      },
      onDamaged: (listener) => {
        const stops = [snapshots.onRefused(listener), options.onDamaged?.(listener)];
        return () => {
          for (const stop of stops) stop?.();
        };
      },
    },
    layout,
    staticSite: site.current,
    authenticate: async (token) => {
      let result: Awaited<ReturnType<typeof keys.authenticate>>;
      try {
        result = await keys.authenticate(token, new Date(), config.keyPepper);
      } catch (error) {
        log({ event: 'key_store_error', error: (error as Error).message });
        throw unavailable('the key store is unreachable; retry shortly', 5);
      }
      if (!result.ok) {
        log({ event: 'auth_refused', reason: result.log.reason, key_id: result.log.keyId });
        return { refused: describeKeyRefusal(result.log.reason) };
      }
      return callerOf(result.record);
    },
    consume: (bucket, limit) => limiter.consume(bucket, limit),
    rateLimitHeaders,
    anonymousLimit,
    anonymousBucket,
    cache,
    keyedAnswers,
    behindProxy: config.trustedProxies > 0,
    eventStreams,
    now,
    log,
    ...(options.replica ? { replica: options.replica } : {}),
  });
  const app = createApp(handle, (request) =>
    clientIpOf(request.ip ?? '0.0.0.0', request.headers.get('x-forwarded-for')),
  );
  const headersTimeout = options.headersTimeoutMs ?? NODE_SERVER_LIMITS.headersTimeout;
  const server = serve(app, {
    port: config.port,
    hostname: config.host,
    silent: true,
    gracefulShutdown: false,
    manual: true,
    node: {
      ...NODE_SERVER_LIMITS,
      // srvx asks for an exclusive handle: a worker of `serve --workers N` shares the primary's.
      exclusive: false,
      headersTimeout,
      // Node checks the timeouts only this often (default 30 s, which would triple a 10 s limit).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
  });
  // The public fast path is the node:http listener; what it does not answer goes to srvx's own
  // listener (the h3 app), which is taken off the server and called from it.
  const nodeServer = server.node!.server!;
  const h3Listener = server.node!.handler;
  nodeServer.removeListener('request', h3Listener);
  // Behind it, the keyed fast path: a keyed request the general path has answered in this snapshot.
  const keyedFastPath = createKeyedFastPath(
    {
      answers: keyedAnswers,
      cache,
      currentSnapshot: () => snapshots.current()?.id ?? null,
      verify: (token) => {
        const now = new Date();
        const known = keys.authenticateNow(token, now, config.keyPepper);
        if (known) return known.ok ? callerOf(known.record) : null;
        return keys
          .authenticate(token, now, config.keyPepper)
          .then((result) => (result.ok ? callerOf(result.record) : null));
      },
      consume: consumeFast,
      resolveClientIp: clientIpOf,
      log,
    },
    (request, response) => {
      quarantineHost(request);
      void h3Listener(request, response);
    },
  );
  nodeServer.on(
    'request',
    createPublicFastPath(
      {
        staticSite: site.current,
        currentSnapshot: () => snapshots.current()?.id ?? null,
        consume: consumeFast,
        anonymousLimit,
        anonymousBucket,
        resolveClientIp: clientIpOf,
        log,
      },
      keyedFastPath,
    ),
  );
  nodeServer.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket, NODE_SERVER_LIMITS.maxHeaderSize),
  );
  const release = async () => {
    delays?.close();
    await keyChanges?.close();
    site.stop();
    await snapshots.close();
    await storage.dispose();
  };
  try {
    await server.serve();
  } catch (error) {
    // A port already taken, say: nothing may keep the process alive (a Redis connection would).
    await release();
    throw error;
  }
  const url = new URL(server.url!);
  log({
    event: 'listening',
    url: url.toString(),
    snapshot: snapshots.current()?.id ?? null,
    storage: redis ? 'redis' : config.storage,
  });
  return {
    url: url.toString().replace(/\/$/, ''),
    port: Number(url.port),
    async close() {
      // Open event streams would hold their connections (and close()) open.
      eventStreams.close();
      await server.close();
      await release();
    },
  };
}

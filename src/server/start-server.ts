import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { serve } from 'h3';
import { BUILD_MANIFEST_FILE } from '../build/build-manifest.ts';
import type { Config } from '../config/load-config.ts';
import { failure } from '../contract/envelope.ts';
import { ERROR_STATUS, unavailable } from '../contract/errors.ts';
import { createStateStorage, getRedisClient } from '../keys/create-storage.ts';
import { createKeyStore } from '../keys/key-store.ts';
import { openSnapshotDb } from '../query/snapshot-db.ts';
import { resolveClientIp } from '../rate-limit/client-ip.ts';
import { FallbackLimiter } from '../rate-limit/fallback-limiter.ts';
import { rateLimitHeaders } from '../rate-limit/headers.ts';
import { MemoryLimiter } from '../rate-limit/memory-limiter.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { RedisLimiter } from '../rate-limit/redis-limiter.ts';
import { assertLimit } from '../rate-limit/sliding-log.ts';
import { resolveLayout, snapshotDir } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import { verifySnapshotFiles } from '../store/verify-snapshot.ts';
import { createApp } from './create-app.ts';
import { createRequestHandler } from './handle-request.ts';
import { ResponseCache } from './response-cache.ts';
import { createSnapshotManager } from './snapshot-manager.ts';
import { loadStaticSite, type StaticSite } from './static-site.ts';

/** Options of a running server besides the configuration. */
export interface StartServerOptions {
  log: (entry: Record<string, unknown>) => void;
  /** Seconds between checks of CURRENT and dist/ for a new snapshot or build. */
  pollMs?: number;
  /** Anonymous requests per minute per client IP (SPEC: 60). */
  anonymousLimit?: number;
  /** Milliseconds a client may take to send its request headers (default 10 000); slower ones are cut off. */
  headersTimeoutMs?: number;
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
};

/**
 * The composition root of `mmds serve`: opens the current snapshot, the key store and the rate
 * limiter that the configuration names, loads dist/ into memory, and listens.
 */
export async function startServer(
  config: Readonly<Config>,
  options: StartServerOptions,
): Promise<RunningServer> {
  const layout = resolveLayout(config.dataDir);
  const log = options.log;
  const anonymousLimit = options.anonymousLimit ?? 60;
  // Refused here rather than by the limiter on every request (a 500 each time).
  assertLimit(anonymousLimit);
  const storage = createStateStorage(config.storage, config.dataDir);
  const keys = createKeyStore(storage);
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
  const local = new MemoryLimiter();
  const limiter: RateLimiter = redis
    ? new FallbackLimiter(new RedisLimiter(redis), { local, log: (event) => log({ ...event }) })
    : local;
  const snapshots = await createSnapshotManager({
    layout,
    open: async (id) => {
      // DuckDB reads Parquet footers only when it opens the views: a damaged data page would be
      // served (wrong values or a 500 per request). Checksums first, as `mmds verify` does.
      const [damaged] = await verifySnapshotFiles(snapshotDir(layout, id), readManifest(layout, id));
      if (damaged) throw new Error(damaged.message);
      const db = await openSnapshotDb(layout, id, { poolSize: 4, queryTimeoutMs: 10_000 });
      const settings = await db.readSecuritySettings();
      if (settings.enable_external_access || !settings.lock_configuration) {
        await db.close();
        throw new Error('DuckDB file access or configuration is not locked');
      }
      return db;
    },
    log,
    pollMs: options.pollMs ?? 1000,
  });
  const site = watchStaticSite(config.distDir, options.pollMs ?? 1000, log);
  const handle = createRequestHandler({
    snapshots,
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
        return null;
      }
      const { record } = result;
      return { keyId: record.id, org: record.org, scopes: record.scopes, rateLimit: record.rate_limit };
    },
    consume: (bucket, limit) => limiter.consume(bucket, limit),
    rateLimitHeaders,
    anonymousLimit,
    cache: new ResponseCache(),
    now: () => new Date(),
    log,
  });
  const app = createApp(handle, (request) =>
    resolveClientIp(request.ip ?? '0.0.0.0', request.headers.get('x-forwarded-for'), config.trustedProxies),
  );
  const headersTimeout = options.headersTimeoutMs ?? NODE_SERVER_LIMITS.headersTimeout;
  const server = serve(app, {
    port: config.port,
    hostname: config.host,
    silent: true,
    gracefulShutdown: false,
    node: {
      ...NODE_SERVER_LIMITS,
      headersTimeout,
      // Node checks the timeouts only this often (default 30 s, which would triple a 10 s limit).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
  });
  server.node?.server?.on('clientError', answerClientError);
  await server.ready();
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
      await server.close();
      site.stop();
      await snapshots.close();
      await storage.dispose();
    },
  };
}

/**
 * Answers what Node's HTTP parser refuses before any handler runs (a NUL or raw non-ASCII byte in
 * the URL, a malformed request line or header, headers over maxHeaderSize) in the contract's
 * error envelope instead of Node's bare status line. A client too slow to send its headers, or
 * one whose response has begun, is disconnected.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const responding = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (
    !socket.writable ||
    responding ||
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ||
    error.code === 'ECONNRESET'
  ) {
    socket.destroy();
    return;
  }
  const requestId = randomBytes(9).toString('base64url');
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const code = tooLarge ? 'header_fields_too_large' : 'invalid_parameter';
  const message = tooLarge
    ? `the request headers are larger than ${NODE_SERVER_LIMITS.maxHeaderSize} bytes`
    : 'the request is not valid HTTP/1.1: the URL or a header holds bytes that are not allowed';
  const body = JSON.stringify(failure(code, message, requestId));
  const status = ERROR_STATUS[code];
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\nAccess-Control-Allow-Origin: *\r\n' +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Keeps dist/ in memory and reloads it when a new build lands (its manifest changes). */
function watchStaticSite(distDir: string, pollMs: number, log: (entry: Record<string, unknown>) => void) {
  const manifest = join(distDir, BUILD_MANIFEST_FILE);
  let site: StaticSite | null = null;
  let seen = -1;
  const check = () => {
    let mtime = 0;
    try {
      mtime = statSync(manifest).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime === seen) return;
    seen = mtime;
    try {
      site = mtime === 0 ? null : loadStaticSite(distDir);
      log({ event: 'static_loaded', snapshot: site?.snapshot ?? null, files: site?.fileCount ?? 0 });
    } catch (error) {
      log({ event: 'static_refused', error: (error as Error).message });
    }
  };
  check();
  const timer = pollMs > 0 ? setInterval(check, pollMs) : null;
  timer?.unref();
  return { current: () => site, stop: () => timer && clearInterval(timer) };
}

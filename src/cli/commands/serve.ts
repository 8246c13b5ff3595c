import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { startDelivery } from '../../hooks/start-delivery.ts';
import { openStoreEventFeed } from '../../hooks/store-feed.ts';
import { checkStateStorage, createStateStorage } from '../../keys/create-storage.ts';
import { isRedisUrl } from '../../lib/redis-url.ts';
import { createLineLog } from '../../server/log-lines.ts';
import { startServer } from '../../server/start-server.ts';
import { type RunningWorkers, startWorkers } from '../../server/workers/start-workers.ts';
import { resolveLayout } from '../../store/layout.ts';
import { subscribeCommits } from '../../store/object-store/commit-wake.ts';
import { followStore, type StoreFollower } from '../../store/object-store/follow-store.ts';
import { type ObjectStoreLocation, parseObjectStoreUrl } from '../../store/object-store/object-store.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';
import { warnUnsealedSecrets } from '../warn-unsealed-secrets.ts';

/** Most worker processes `--workers` accepts. */
const MAX_WORKERS = 64;

/** Registers `mmds serve`. */
export function registerServe(program: Command, getContext: () => CommandContext): void {
  program
    .command('serve')
    .description('start the API server: keyed endpoints live, public files from dist/ in memory, rate limits')
    .option('--port <port>', 'port to listen on (default PORT or 4321; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default HOST or 127.0.0.1)')
    .option(
      '--workers <n>',
      `worker processes on the one port (default: the machine's cores, ${availableParallelism()} here; 1: a single process)`,
    )
    .option('--deliver', 'also post release events to webhook subscriptions, as mmds deliver does')
    .option(
      '--from <url>',
      'follow the snapshots committed to s3://bucket/prefix (mmds publish --to): pulled into the data directory',
    )
    .addHelpText(
      'after',
      `
Serves the public endpoints from the files of mmds build (MMDS_DIST_DIR) held in memory, the
keyed endpoints live from the current snapshot, and /api/v1/openapi.json. Switches to a new
snapshot or build within a second, without dropping requests. Logs one JSON line per event on
stdout, with or without --json (never a key). Stops gracefully on SIGTERM or SIGINT: requests in
flight finish. With --workers N (default: one per core) a primary process holds the rate limits,
exact across N worker processes that serve the one port; SIGHUP restarts the workers one at a
time without closing the port (docs/operations.md, "Workers"). Several instances share keys and rate limits with MMDS_STORAGE=redis://host:6379;
behind a proxy, set MMDS_TRUSTED_PROXIES and bind to the address the proxy connects to (with a
wildcard HOST such as 0.0.0.0 it warns at start: docs/operations.md). With Redis, it refuses to start
(exit 69, one line) when Redis does not answer at start; later outages are ridden out.
With --from s3://bucket/prefix it polls the bucket's log every MMDS_SNAPSHOT_POLL_MS, downloads
the newest snapshot's missing files into MMDS_DATA_DIR, checks every SHA-256 and switches to it;
a commit with a damaged object (or an unreadable log entry) is passed over: the instance serves
the newest intact commit, on an empty disk too, and tries the others again at each poll
(docs/operations.md).
With MMDS_STORAGE=redis://… it also reads the log as soon as mmds publish --to announces a
commit there. /api/v1/status says (replica) how far behind the bucket's log the instance is.
On start it prints, on stderr, "mmds: serving on <url>" and the addresses of the site: the home
page /, the API reference /docs/api/, the status page /status/ and /api/v1/openapi.json.

Examples:
  mmds serve
  mmds serve --port 0
  mmds serve --workers 1
  PORT=8080 MMDS_STORAGE=redis://127.0.0.1:6379 MMDS_TRUSTED_PROXIES=1 mmds serve --host 10.0.0.11`,
    )
    .action(
      async (flags: { port?: string; host?: string; deliver?: boolean; from?: string; workers?: string }) => {
        const context = getContext();
        const port = flags.port === undefined ? context.config.port : Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError(`--port must be 0 to 65535, got "${flags.port}"`);
        const workers = flags.workers === undefined ? availableParallelism() : Number(flags.workers);
        if (
          !/^\d+$/.test(flags.workers ?? '1') ||
          !Number.isInteger(workers) ||
          workers < 1 ||
          workers > MAX_WORKERS
        )
          throw new UsageError(
            `--workers must be a whole number from 1 to ${MAX_WORKERS}, got "${flags.workers}"`,
          );
        let location: ObjectStoreLocation | null = null;
        try {
          location = flags.from === undefined ? null : parseObjectStoreUrl(flags.from);
        } catch (error) {
          throw new UsageError(`--from: ${(error as Error).message}`);
        }
        const config = { ...context.config, port, host: flags.host ?? context.config.host };
        const exposure = describeProxyExposure(config.host, config.trustedProxies);
        if (exposure) context.reporter.warn(exposure);
        const { log, flush } = createLineLog((lines) => context.stdout.write(lines));
        // A server would start and answer every keyed request with 503: say so once, at start.
        const probe = createStateStorage(config.storage, config.dataDir);
        try {
          await checkStateStorage(probe, config.storage);
        } finally {
          await probe.dispose();
        }
        // After the storage answered (a failed start stays one line), before the "serving on" line.
        warnUnsealedSecrets(config, context.stderr);
        // Webhooks from this process too (issue 24): leases share the subscriptions with any other.
        const feed = flags.deliver ? await openStoreEventFeed(config.dataDir) : null;
        // A new snapshot's events go out at once rather than at the deliverer's next poll.
        let wakeDeliverer = () => {};
        const serverLog = (entry: Record<string, unknown>) => {
          log(entry);
          if (entry.event === 'snapshot_switched') wakeDeliverer();
        };
        // Followed before the server starts: with an empty disk it answers 503 until the first
        // snapshot is complete, then switches to it as to a local publish.
        const follower = location === null ? null : await startFollowing(location, config, log);
        const followed = follower
          ? { arrivalOf: follower.arrivalOf, onDamaged: follower.onDamaged, replica: follower.describe }
          : {};
        // One process, or a primary holding the rate limits with workers that serve (docs/operations.md).
        const server =
          workers === 1
            ? await startServer(config, { log: feed ? serverLog : log, ...followed })
            : await startWorkers(config, {
                count: workers,
                log,
                writeLines: (lines) => context.stdout.write(lines),
                onEvent: (entry) => {
                  if (entry.event === 'snapshot_switched') wakeDeliverer();
                },
                ...followed,
              });
        const delivery = feed ? await startDelivery(config, feed, log) : null;
        if (delivery) wakeDeliverer = () => delivery.deliverer.wake();
        delivery?.deliverer.start();
        context.stderr.write(
          `mmds: serving on ${server.url} (data ${config.dataDir}, static ${config.distDir})\n`,
        );
        context.stderr.write(describeSiteAddresses(server.url, config.distDir));
        await new Promise<void>((resolve) => {
          const stop = (signal: string) => {
            log({ event: 'shutdown', signal });
            void Promise.all([server.close(), delivery?.close(), follower?.stop()]).then(() => {
              flush();
              resolve();
            });
          };
          process.once('SIGTERM', () => stop('SIGTERM'));
          process.once('SIGINT', () => stop('SIGINT'));
          // A rolling restart of the workers (new code, a fresh heap); requests keep being answered.
          if (workers > 1) process.on('SIGHUP', () => void (server as RunningWorkers).restart());
        });
      },
    );
}

/**
 * Follows the bucket's log; with Redis (MMDS_STORAGE=redis://…, the Redis the instances share
 * anyway) also listens for the publisher's commit messages, which read the log at once.
 */
async function startFollowing(
  location: ObjectStoreLocation,
  config: CommandContext['config'],
  log: (entry: Record<string, unknown>) => void,
): Promise<StoreFollower> {
  // The SDK is loaded only by a server that follows a bucket.
  const { openS3Store } = await import('../../store/object-store/s3-store.ts');
  const store = openS3Store(location, config.s3);
  const follower = followStore(store, resolveLayout(config.dataDir), {
    intervalMs: config.snapshotPollMs,
    keep: config.keepSnapshots,
    log,
  });
  if (!isRedisUrl(config.storage)) return follower;
  const subscription = subscribeCommits(config.storage, store.url, () => follower.wake(), log);
  return {
    ...follower,
    stop: async () => {
      await subscription.close();
      await follower.stop();
    },
  };
}

/**
 * The warning for trusted proxies on a server bound to every interface, or null: a client that
 * reaches the port directly, past the proxy, writes the X-Forwarded-For entries the server
 * trusts, and so picks a fresh anonymous rate-limit address for each request.
 */
export function describeProxyExposure(host: string, trustedProxies: number): string | null {
  if (trustedProxies === 0 || !isWildcardAddress(host)) return null;
  return (
    `MMDS_TRUSTED_PROXIES=${trustedProxies} with HOST ${host}: anyone who reaches this port directly can ` +
    'write X-Forwarded-For and get a new anonymous rate limit per request; bind to the address the proxy ' +
    'connects to (HOST=10.0.0.11, or 127.0.0.1 with the proxy on this machine) or firewall the port to the proxy (docs/operations.md)'
  );
}

/** Whether a listen address is the unspecified one (every IPv4 or IPv6 interface), however written. */
export function isWildcardAddress(host: string): boolean {
  // node:http listens on every interface when given no host at all.
  if (host === '') return true;
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  if (!URL.canParse(`http://${bracketed}/`)) return false;
  // The URL parser writes each address one way: `0`, `0.0.0.0` and `::0:0` come out alike.
  const { hostname } = new URL(`http://${bracketed}/`);
  return hostname === '0.0.0.0' || hostname === '[::]' || hostname === '[::ffff:0:0]';
}

/** The site's pages a person opens first, with the server's real address. */
export function describeSiteAddresses(serverUrl: string, distDir: string): string {
  const base = serverUrl.replace(/\/$/, '');
  const built = existsSync(join(distDir, 'index.html'));
  const lines = [
    `  home page       ${base}/${built ? '' : '   (after mmds build)'}`,
    `  API reference   ${base}/docs/api/${built ? '' : '   (after mmds build)'}`,
    `  status          ${base}/status/`,
    `  OpenAPI         ${base}/api/v1/openapi.json${built ? '' : '   (after mmds build)'}`,
  ];
  return `${lines.join('\n')}\n`;
}

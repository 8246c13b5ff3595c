import type { Command } from 'commander';
import { startServer } from '../../server/start-server.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';

/** Registers `mmds serve`. */
export function registerServe(program: Command, getContext: () => CommandContext): void {
  program
    .command('serve')
    .description('start the API server: keyed endpoints live, public files from dist/ in memory, rate limits')
    .option('--port <port>', 'port to listen on (default PORT or 4321; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default HOST or 127.0.0.1)')
    .addHelpText(
      'after',
      `
Serves the public endpoints from the files of mmds build (MMDS_DIST_DIR) held in memory, the
keyed endpoints live from the current snapshot, and /api/v1/openapi.json. Switches to a new
snapshot or build within a second, without dropping requests. Logs one JSON line per event on
stdout, with or without --json (never a key). Stops gracefully on SIGTERM or SIGINT: requests in
flight finish. Several instances share keys and rate limits with MMDS_STORAGE=redis://host:6379;
behind a proxy, set MMDS_TRUSTED_PROXIES (docs/operations.md).

Examples:
  mmds serve
  mmds serve --port 0
  PORT=8080 MMDS_STORAGE=redis://127.0.0.1:6379 MMDS_TRUSTED_PROXIES=1 mmds serve --host 0.0.0.0`,
    )
    .action(async (flags: { port?: string; host?: string }) => {
      const context = getContext();
      const port = flags.port === undefined ? context.config.port : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0 to 65535, got "${flags.port}"`);
      const config = { ...context.config, port, host: flags.host ?? context.config.host };
      // Lines are written once per event-loop turn: a write() per request line cost about a sixth
      // of the server's CPU under load (BENCHMARKS.md).
      let pending: string[] = [];
      const flush = () => {
        if (pending.length === 0) return;
        const lines = pending.join('');
        pending = [];
        context.stdout.write(lines);
      };
      // The line is `{"ts":…, ...entry}`, built without copying the entry into a new object, and
      // the time text is made once per millisecond: together a third of the cost per request line.
      let lastMs = -1;
      let lastTs = '';
      const log = (entry: Record<string, unknown>) => {
        if (pending.length === 0) setImmediate(flush);
        const now = Date.now();
        if (now !== lastMs) {
          lastMs = now;
          lastTs = new Date(now).toISOString();
        }
        const fields = JSON.stringify(entry);
        pending.push(fields.length > 2 ? `{"ts":"${lastTs}",${fields.slice(1)}\n` : `{"ts":"${lastTs}"}\n`);
      };
      const server = await startServer(config, { log });
      context.stderr.write(
        `mmds: serving on ${server.url} (data ${config.dataDir}, static ${config.distDir})\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log({ event: 'shutdown', signal });
          void server.close().then(() => {
            flush();
            resolve();
          });
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });
}

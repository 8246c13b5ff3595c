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
Logs one JSON line per request on stdout (never a key). Stops gracefully on SIGTERM or SIGINT.
Several instances share keys and rate limits with MMDS_STORAGE=redis://host:6379.

Examples:
  mmds serve
  PORT=8080 MMDS_STORAGE=redis://127.0.0.1:6379 mmds serve --host 0.0.0.0`,
    )
    .action(async (flags: { port?: string; host?: string }) => {
      const context = getContext();
      const port = flags.port === undefined ? context.config.port : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0 to 65535, got "${flags.port}"`);
      const config = { ...context.config, port, host: flags.host ?? context.config.host };
      const log = (entry: Record<string, unknown>) =>
        context.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
      const server = await startServer(config, { log });
      context.stderr.write(
        `mmds: serving on ${server.url} (data ${config.dataDir}, static ${config.distDir})\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log({ event: 'shutdown', signal });
          void server.close().then(resolve);
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });
}

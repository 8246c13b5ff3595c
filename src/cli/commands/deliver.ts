import type { Command } from 'commander';
import { startDelivery } from '../../hooks/start-delivery.ts';
import { openStoreEventFeed } from '../../hooks/store-feed.ts';
import { isRedisUrl, redisAddress } from '../../lib/redis-url.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';
import { warnUnsealedSecrets } from '../warn-unsealed-secrets.ts';

/** Registers `mmds deliver`. */
export function registerDeliver(program: Command, getContext: () => CommandContext): void {
  program
    .command('deliver')
    .description('post release events to webhook subscriptions (mmds hooks), signed, until stopped')
    .option('--once', 'make one pass over the subscriptions and exit')
    .addHelpText(
      'after',
      `
Reads the event log of the current snapshot chain and posts each subscription's events in order,
signed as Standard Webhooks says, retrying on the published schedule (docs/webhooks.md). Run as
many as you like over one MMDS_STORAGE=redis://...: a lease per subscription makes each attempt
one instance's, and a killed instance's subscriptions are taken over when its lease expires.
Logs one JSON line per attempt on stdout (never a secret or a URL). Stops on SIGTERM or SIGINT
after the attempts in flight.

Examples:
  mmds deliver
  MMDS_STORAGE=redis://127.0.0.1:6379 mmds deliver
  mmds deliver --once`,
    )
    .action(async (flags: { once?: boolean }) => {
      const context = getContext();
      let feed: Awaited<ReturnType<typeof openStoreEventFeed>>;
      try {
        feed = await openStoreEventFeed(context.config.dataDir);
      } catch (error) {
        throw new ReportedFailure((error as Error).message);
      }
      const log = (entry: Record<string, unknown>) =>
        context.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
      const delivery = await startDelivery(context.config, feed, log);
      warnUnsealedSecrets(context.config, context.stderr);
      if (flags.once) {
        try {
          await delivery.deliverer.runOnce();
        } finally {
          await delivery.close();
        }
        return;
      }
      const { storage } = context.config;
      // A redis:// URL may hold a password: only its address is shown.
      const state = isRedisUrl(storage) ? redisAddress(storage) : storage;
      context.stderr.write(`mmds: delivering webhooks (state ${state}); stop with Ctrl-C\n`);
      delivery.deliverer.start();
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log({ event: 'shutdown', signal });
          void delivery.close().then(resolve);
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });
}

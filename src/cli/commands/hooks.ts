import type { Command } from 'commander';
import { EVENT_TYPES } from '../../events/event.ts';
import { parseAllowHosts } from '../../hooks/address-policy.ts';
import { createHookStore, type HookStore } from '../../hooks/hook-store.ts';
import {
  addHook,
  pauseHook,
  removeHook,
  replayHook,
  resumeHook,
  rotateHookSecret,
} from '../../hooks/manage-hooks.ts';
import { type HookRecord, signingSecrets, toPublicHook } from '../../hooks/subscription-record.ts';
import type { KeyStore } from '../../keys/key-store.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';
import { warnUnsealedSecrets } from '../warn-unsealed-secrets.ts';
import { parseGrace, withKeyStore } from './keys.ts';

interface AddFlags {
  key: string;
  url: string;
  series: string;
  types?: string;
  signature: string;
}

/** Registers `mmds hooks add|list|rotate|pause|resume|remove|replay`. */
export function registerHooks(program: Command, getContext: () => CommandContext): void {
  const hooks = program
    .command('hooks')
    .description('webhook subscriptions: signed release events pushed to a URL (state in MMDS_STORAGE)')
    .addHelpText(
      'after',
      `
A subscription belongs to an API key: it receives only events the key may read, and is paused
when the key is revoked or expires. Its whsec_ secret is printed once, when it is added or
rotated. Deliveries follow Standard Webhooks (docs/webhooks.md); mmds deliver or mmds serve
sends them. Event types: ${EVENT_TYPES.join(', ')}.

Examples:
  mmds hooks add --key abcdefgh2345 --url https://example.com/hooks --series 'ecb.*,bls.CES*'
  mmds hooks list
  mmds hooks rotate qrstuvwx6789 --grace 24h
  mmds hooks replay qrstuvwx6789 --since 20261127T020000Z-1a2b3c4d:3`,
    );

  hooks
    .command('add')
    .description('subscribe a URL to events and print its signing secret once')
    .requiredOption('--key <id>', 'id of the API key whose scopes bound what the subscription receives')
    .requiredOption('--url <url>', 'https URL the events are posted to')
    .requiredOption(
      '--series <patterns>',
      'comma-separated series key patterns, * any characters: ecb.*,bls.CES*',
    )
    .option('--types <types>', `comma-separated event types (default all): ${EVENT_TYPES.join(', ')}`)
    .option(
      '--signature <scheme>',
      'v1: HMAC-SHA256 with a shared whsec_ secret (default); v1a: ed25519, the receiver gets a whpk_ public key',
      'v1',
    )
    .addHelpText(
      'after',
      `
Prints the whsec_ secret (v1) or the whpk_ public key (v1a) once on stdout; the receiver
verifies deliveries with it (docs/webhooks.md). The URL must be https unless its host is in
MMDS_HOOKS_ALLOW_HOSTS; loopback, private and link-local addresses are refused.

Examples:
  mmds hooks add --key abcdefgh2345 --url https://example.com/hooks --series 'ecb.*'
  mmds hooks add --key abcdefgh2345 --url https://example.com/h --series 'bls.CES*,fred.*' --types series.revised
  mmds --json hooks add --key abcdefgh2345 --url https://example.com/h --series '*' --signature v1a`,
    )
    .action(async (flags: AddFlags) => {
      const context = getContext();
      const policy = readPolicy(context);
      await withStores(context, async ({ hooks: store, keys }) => {
        const record = await addHook(
          {
            keyId: flags.key,
            url: flags.url,
            series: flags.series.split(','),
            types: flags.types?.split(',') ?? [],
            scheme: flags.signature,
          },
          { hooks: store, keys },
          policy,
          context.now(),
        );
        printSecret(context, record);
        context.stderr.write(
          `added webhook subscription ${record.id} for key ${record.key_id}: ${record.types.join(',')} of ${record.series.join(',')}\n`,
        );
        warnUnsealedSecrets(context.config, context.stderr);
      });
    });

  hooks
    .command('list')
    .description('list subscriptions: state, cursor, deliveries and dead letters (never a secret)')
    .addHelpText('after', '\nExamples:\n  mmds hooks list\n  mmds --json hooks list')
    .action(async () => {
      const context = getContext();
      await withStores(context, async ({ hooks: store }) => {
        const records = await store.list();
        context.reporter.result(records.map(toPublicHook));
        if (records.length === 0) context.reporter.line('no webhook subscriptions');
        for (const record of records) printRecord(context, record);
      });
    });

  hooks
    .command('rotate')
    .description('give a subscription a new secret, printed once; the old one signs too during --grace')
    .argument('<id>', 'subscription id (mmds hooks list)')
    .option(
      '--grace <duration>',
      'how long the old secret keeps signing: 0, 90s, 30m, 24h, 7d (at most 90d)',
      '24h',
    )
    .addHelpText(
      'after',
      `
During the grace period every delivery carries one signature per secret, so the receiver can
switch at leisure; --grace 0 for a leaked secret.

Examples:
  mmds hooks rotate qrstuvwx6789
  mmds hooks rotate qrstuvwx6789 --grace 0`,
    )
    .action(async (id: string, flags: { grace: string }) => {
      const context = getContext();
      const graceSeconds = parseGrace(flags.grace);
      await withStores(context, async ({ hooks: store }) => {
        const record = await rotateHookSecret(id, graceSeconds, store, context.now());
        printSecret(context, record);
        const others = signingSecrets(record, context.now()).length - 1;
        context.stderr.write(
          others > 0
            ? `rotated the secret of ${record.id}; deliveries carry ${others + 1} signatures until ${record.secrets[1]?.expires_at}\n`
            : `rotated the secret of ${record.id}; the old secret signs no more\n`,
        );
        warnUnsealedSecrets(context.config, context.stderr);
      });
    });

  for (const [name, description, run] of [
    ['pause', 'stop deliveries (events wait after the cursor)', pauseHook],
    ['resume', 'restart deliveries of a paused or disabled subscription from its cursor', resumeHook],
    ['remove', 'delete a subscription and its secret', removeHook],
  ] as const) {
    hooks
      .command(name)
      .description(description)
      .argument('<id>', 'subscription id (mmds hooks list)')
      .addHelpText('after', `\nExamples:\n  mmds hooks ${name} qrstuvwx6789`)
      .action(async (id: string) => {
        const context = getContext();
        await withStores(context, async ({ hooks: store }) => {
          const record = await run(id, store);
          context.reporter.result(toPublicHook(record));
          context.reporter.line(
            name === 'remove'
              ? `removed webhook subscription ${record.id}`
              : `webhook subscription ${record.id} is ${record.state}`,
          );
        });
      });
  }

  hooks
    .command('replay')
    .description('send again every event after an event id, dead letters included, then carry on')
    .argument('<id>', 'subscription id (mmds hooks list)')
    .requiredOption('--since <event id>', 'the last event NOT to send again (as Last-Event-ID)')
    .addHelpText(
      'after',
      `
<snapshot id>:0 names the start of a snapshot. The receiver sees the replayed events with their
original webhook-id, and should drop the ones it has processed.

Examples:
  mmds hooks replay qrstuvwx6789 --since 20261127T020000Z-1a2b3c4d:3
  mmds hooks replay qrstuvwx6789 --since 20261127T020000Z-1a2b3c4d:0`,
    )
    .action(async (id: string, flags: { since: string }) => {
      const context = getContext();
      await withStores(context, async ({ hooks: store }) => {
        const record = await replayHook(id, flags.since, store);
        context.reporter.result(toPublicHook(record));
        context.reporter.line(`webhook subscription ${record.id} replays the events after ${flags.since}`);
      });
    });
}

function readPolicy(context: CommandContext) {
  try {
    return parseAllowHosts(context.config.hooks.allowHosts);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function withStores(
  context: CommandContext,
  run: (stores: { hooks: HookStore; keys: KeyStore }) => Promise<void>,
): Promise<void> {
  await withKeyStore(context, (keys, storage) =>
    run({ hooks: createHookStore(storage, context.config.keyPepper), keys }),
  );
}

/**
 * What the receiver verifies with goes to stdout once: the newest v1 secret (never again, never
 * to a log), or for v1a the public key (the secret key never leaves the storage).
 */
function printSecret(context: CommandContext, record: HookRecord): void {
  const { secret, public_key } = record.secrets[0]!;
  if (public_key !== null) {
    context.reporter.result({ ...toPublicHook(record), public_key });
    context.reporter.line(public_key);
    context.reporter.warn('the receiver verifies v1a signatures with this public key (it is not secret)');
    return;
  }
  context.reporter.result({ secret, ...toPublicHook(record) });
  context.reporter.line(secret);
  context.reporter.warn(
    'this signing secret is shown only now: give it to the receiver through a secret manager',
  );
}

function printRecord(context: CommandContext, record: HookRecord): void {
  const state = record.state_reason ? `${record.state} (${record.state_reason})` : record.state;
  const pending = record.pending
    ? `; retrying ${record.pending.event_id} (${record.pending.attempts} attempts, ${record.pending.last_error})`
    : '';
  context.reporter.line(
    `${record.id}  ${state}  key ${record.key_id}  ${record.url}  ${record.types.join(',')}  ${record.series.join(',')}`,
  );
  context.reporter.line(
    `  cursor ${record.cursor ?? '-'}; ${record.delivered} delivered; ${record.dead_letters.length} dead letters${pending}`,
  );
  for (const letter of record.dead_letters)
    context.reporter.line(
      `  dead ${letter.event_id} ${letter.type} at ${letter.at} after ${letter.attempts} attempts: ${letter.reason}`,
    );
}

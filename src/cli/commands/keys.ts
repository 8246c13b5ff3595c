import type { Command } from 'commander';
import type { Storage } from 'unstorage';
import { SCOPES } from '../../contract/routes.ts';
import { checkStateStorage, createStateStorage } from '../../keys/create-storage.ts';
import { getKeyStatus, type KeyRecord, type PublicKeyRecord, toPublicRecord } from '../../keys/key-record.ts';
import { createKeyStore, type KeyStore } from '../../keys/key-store.ts';
import { issueKey, listKeys, MAX_GRACE_SECONDS, revokeKey, rotateKey } from '../../keys/manage-keys.ts';
import { formatTimestamp } from '../../lib/zoned-time.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DURATION = /^(\d{1,7})([smhd]?)$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

interface IssueFlags {
  org: string;
  scopes: string;
  rateLimit?: string;
  expires?: string;
  name?: string;
}

/** Registers `mmds keys issue|list|rotate|revoke`. */
export function registerKeys(program: Command, getContext: () => CommandContext): void {
  const keys = program
    .command('keys')
    .description('issue, list, rotate and revoke API keys (state in MMDS_STORAGE; only hashes are stored)')
    .addHelpText(
      'after',
      `
A key is printed once, when it is issued or rotated, and cannot be recovered afterwards.
Scopes: ${SCOPES.join(', ')}.

Examples:
  mmds keys issue --org "Example Bank" --scopes cot:history,macro:history --rate-limit 600
  mmds keys list
  mmds keys rotate abcdefgh2345 --grace 24h
  mmds keys revoke abcdefgh2345`,
    );

  keys
    .command('issue')
    .description('issue a key and print it once on stdout')
    .requiredOption('--org <org>', 'organisation the key is issued to (printable, at most 100 characters)')
    .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}`)
    .option('--rate-limit <n>', 'requests per minute, 1 to 100000 (default 60)')
    .option('--expires <when>', 'expiry: a date YYYY-MM-DD (00:00 UTC that day) or YYYY-MM-DDTHH:MM:SSZ')
    .option('--name <text>', 'note for operators: who holds the key and what for')
    .addHelpText(
      'after',
      `
Examples:
  mmds keys issue --org "Example Bank" --scopes observations:read
  mmds keys issue --org acme --scopes cot:history --rate-limit 300 --expires 2027-12-31 --name "research team"
  mmds --json keys issue --org acme --scopes macro:history`,
    )
    .action(async (flags: IssueFlags) => {
      const context = getContext();
      const options = {
        org: flags.org,
        name: flags.name ?? '',
        scopes: flags.scopes.split(',').map((scope) => scope.trim()),
        rateLimit: flags.rateLimit === undefined ? undefined : parseRateLimit(flags.rateLimit),
        expiresAt: flags.expires === undefined ? null : parseExpiry(flags.expires),
      };
      await withKeyStore(context, async (store) => {
        const { plaintext, record } = await issueKey(options, store, context.now(), context.config.keyPepper);
        printKey(context, plaintext, toPublicRecord(record));
        context.reporter.note(`issued key ${record.id} to ${record.org}: ${describe(record)}`);
      });
    });

  keys
    .command('list')
    .description('list keys and their state (never a secret or a hash)')
    .addHelpText('after', '\nExamples:\n  mmds keys list\n  mmds keys list --json')
    .action(async () => {
      const context = getContext();
      await withKeyStore(context, async (store) => {
        const now = context.now();
        const records = await listKeys(store);
        context.reporter.result(records.map((record) => ({ ...record, status: getKeyStatus(record, now) })));
        if (records.length === 0) context.reporter.line('no keys');
        else printTable(context, records, now);
      });
    });

  keys
    .command('rotate')
    .description('issue a replacement key (same org, name, scopes, limit, expiry) and print it once')
    .argument('<id>', 'id of the key to replace (the part between "mmds_" and the next "_")')
    .option(
      '--grace <duration>',
      'how long the old key keeps working: 0, 90s, 30m, 24h, 7d (at most 90d)',
      '0',
    )
    .addHelpText(
      'after',
      `
Without --grace the old key is refused at once (the right choice for a leaked key).

Examples:
  mmds keys rotate abcdefgh2345 --grace 7d
  mmds keys rotate abcdefgh2345`,
    )
    .action(async (id: string, flags: { grace: string }) => {
      const context = getContext();
      const graceSeconds = parseGrace(flags.grace);
      await withKeyStore(context, async (store) => {
        const now = context.now();
        const rotated = await rotateKey(id, { graceSeconds }, store, now, context.config.keyPepper);
        const previous = toPublicRecord(rotated.previous);
        printKey(context, rotated.plaintext, { ...toPublicRecord(rotated.record), previous });
        const until =
          graceSeconds === 0 ? 'is refused from now on' : `keeps working until ${previous.grace_until}`;
        context.reporter.note(`rotated key ${previous.id} to ${rotated.record.id}; the old key ${until}`);
      });
    });

  keys
    .command('revoke')
    .description('refuse a key from the next request on, on every instance (idempotent)')
    .argument('<id>', 'id of the key (the part between "mmds_" and the next "_")')
    .addHelpText('after', '\nExamples:\n  mmds keys revoke abcdefgh2345')
    .action(async (id: string) => {
      const context = getContext();
      await withKeyStore(context, async (store) => {
        const { record, changed } = await revokeKey(id, store, context.now());
        context.reporter.result({ ...toPublicRecord(record), changed });
        context.reporter.line(
          changed
            ? `revoked key ${record.id} (${record.org}) at ${record.revoked_at}`
            : `key ${record.id} was already revoked at ${record.revoked_at}`,
        );
      });
    });
}

/**
 * Runs a command over the key store (and the state storage under it, which `mmds hooks` shares):
 * Redis checked first, the storage closed after (a refusal exits as its code says, lib/errors.ts).
 */
export async function withKeyStore(
  context: CommandContext,
  run: (store: KeyStore, storage: Storage) => Promise<void>,
): Promise<void> {
  const storage = createStateStorage(context.config.storage, context.config.dataDir);
  try {
    // One clear line (exit 69) when Redis is down, before any key is generated or changed.
    await checkStateStorage(storage, context.config.storage);
    await run(createKeyStore(storage), storage);
  } finally {
    await storage.dispose();
  }
}

/**
 * The plaintext goes to stdout exactly once; everything else about it goes to stderr, and under
 * --json nowhere (the document is the whole answer).
 */
function printKey(context: CommandContext, plaintext: string, record: object): void {
  context.reporter.result({ key: plaintext, ...record });
  context.reporter.line(plaintext);
  context.reporter.note(
    'warning: this key is shown only now and cannot be recovered: store it in a secret manager',
  );
}

function describe(record: KeyRecord | PublicKeyRecord): string {
  const expiry = record.expires_at ? `expires ${record.expires_at}` : 'no expiry';
  return `scopes ${record.scopes.join(',')}, ${record.rate_limit}/min, ${expiry}`;
}

function printTable(context: CommandContext, records: readonly PublicKeyRecord[], now: Date): void {
  const rows = records.map((record) => {
    const status = getKeyStatus(record, now);
    return [
      record.id,
      status === 'grace' ? `grace until ${record.grace_until}` : status,
      record.org,
      record.name || '-',
      record.scopes.join(','),
      String(record.rate_limit),
      record.created_at,
      record.expires_at ?? '-',
    ];
  });
  const header = ['ID', 'STATUS', 'ORG', 'NAME', 'SCOPES', 'PER MIN', 'CREATED', 'EXPIRES'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => [...row[i]!].length)));
  for (const row of [header, ...rows]) {
    context.reporter.line(
      row
        .map((cell, i) => cell + ' '.repeat(widths[i]! - [...cell].length))
        .join('  ')
        .trimEnd(),
    );
  }
}

function parseRateLimit(text: string): number {
  if (!/^\d{1,9}$/.test(text)) {
    throw new UsageError(`--rate-limit must be a whole number from 1 to 100000, got "${text}"`);
  }
  return Number(text);
}

function parseExpiry(text: string): Date {
  const timestamp = DATE.test(text) ? `${text}T00:00:00Z` : text;
  const date = new Date(timestamp);
  if (!TIMESTAMP.test(timestamp) || Number.isNaN(date.getTime()) || formatTimestamp(date) !== timestamp) {
    throw new UsageError(
      `--expires must be a date YYYY-MM-DD or a UTC timestamp YYYY-MM-DDTHH:MM:SSZ, got "${text}"`,
    );
  }
  return date;
}

/** Reads a --grace duration (0, 90s, 30m, 24h, 7d; at most 90 days) in seconds; `mmds hooks rotate` uses it too. */
export function parseGrace(text: string): number {
  const match = DURATION.exec(text);
  const seconds = match ? Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? 1) : Number.NaN;
  // A bare number other than 0 is refused: "30" could mean seconds, minutes or days.
  if (!match || (match[2] === '' && seconds !== 0) || seconds > MAX_GRACE_SECONDS) {
    throw new UsageError(
      `--grace must be 0 or a duration such as 90s, 30m, 24h or 7d (at most 90d), got "${text}"`,
    );
  }
  return seconds;
}

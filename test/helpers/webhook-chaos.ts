import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { ReleaseEvent } from '../../src/events/event.ts';
import { parseAllowHosts } from '../../src/hooks/address-policy.ts';
import { createHookStore } from '../../src/hooks/hook-store.ts';
import { addHook } from '../../src/hooks/manage-hooks.ts';
import { openStoreEventFeed } from '../../src/hooks/store-feed.ts';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { mapConcurrent } from '../../src/lib/map-concurrent.ts';
import { REPO_ROOT, SHARED_DATA } from './paths.ts';
import { startRedis } from './redis-server.ts';
import { runMmds } from './run-cli.ts';
import { seededRandom } from './seeded-random.ts';
import { REAL_DATA_STEPS } from './snapshot-fixture.ts';
import { createTempDir } from './temp-dir.ts';
import { startWebhookReceiver, waitUntil } from './webhook-receiver.ts';

/**
 * The chaos test of webhook delivery (issue 24 item 5): real ECB releases, one business day at a
 * time from the ECB's own history file, each ingested and published with the CLI, while two
 * `mmds deliver` processes sharing one Redis are SIGKILLed and restarted and redis-server itself
 * is SIGKILLed and restarted (append-only file, fsync per write, so the subscriptions and
 * cursors it acknowledged survive). Every delivery is verified on arrival with the unmodified
 * `standardwebhooks` library. Besides four subscriptions with different filters, added with the
 * CLI, `subscriptions` brings the total up with subscriptions of the ECB's releases, each posting
 * to its own path (issue 38: 1,000 subscriptions in all). The outcome is measured, not judged
 * here: the test files assert on it (0 lost, 0 out of order) and print it for RELIABILITY.md.
 */

/** What one subscription was sent, against what the event log says it should receive. */
export interface SubscriptionOutcome {
  path: string;
  expected: number;
  deliveries: number;
  /** Expected events never received. */
  lost: string[];
  /** Received events the subscription should not have received. */
  unexpected: string[];
  /** Deliveries of an event after a later one of the log had already arrived. */
  outOfOrder: number;
  /** Deliveries of an event already received (at least once allows them). */
  duplicates: number;
}

export interface ChaosOutcome {
  releases: number;
  events: number;
  subscriptions: SubscriptionOutcome[];
  /** SIGKILLs of `mmds deliver` processes (each restarted at once). */
  deliverKills: number;
  /** SIGKILL and restart of redis-server. */
  redisRestarts: number;
  /** Deliverers that refused to start because Redis was away at that moment (started again). */
  startRefusals: number;
  /** Other deliverer exits nobody asked for (a crash on a lost Redis connection, say). */
  unexpectedExits: string[];
  /** Deliveries whose signature did not verify, or whose id did not match its payload. */
  badSignatures: string[];
  /** `webhook_error` lines the deliverers logged (Redis away, mostly). */
  deliverErrors: number;
  seconds: number;
}

/** One subscription of the run: what it asks for through the CLI and, independently, what it receives. */
interface Subscriber {
  path: string;
  scopes: string;
  series: string;
  types?: string;
  receives(event: ReleaseEvent): boolean;
}

const SUBSCRIBERS: readonly Subscriber[] = [
  { path: '/all', scopes: 'observations:read', series: '*', receives: () => true },
  {
    // A series pattern: its series' events and (its source part being `ecb`) the ECB's releases.
    path: '/usd',
    scopes: 'observations:read',
    series: 'ecb.USD*',
    receives: (event) =>
      event.series === null ? event.source === 'ecb' : event.series.startsWith('ecb.USD'),
  },
  {
    path: '/releases',
    scopes: 'cot:history',
    series: '*',
    types: 'release.published',
    receives: (event) => event.type === 'release.published',
  },
  // Matches nothing the ECB publishes: must receive nothing at all.
  {
    path: '/none',
    scopes: 'observations:read',
    series: 'bls.*',
    receives: (event) => event.source === 'bls',
  },
];

/** The ECB history file cut into one file per business day, oldest first: header plus that day's row. */
function ecbDays(count: number): Array<{ day: string; text: string }> {
  const lines = readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8').split('\n');
  const rows = lines.slice(1).filter((line) => /^\d{4}-\d{2}-\d{2},/.test(line));
  if (rows.length < count) throw new Error(`the ECB history holds ${rows.length} days, not ${count}`);
  // The file is newest first.
  return rows
    .slice(0, count)
    .reverse()
    .map((row) => ({ day: row.slice(0, 10), text: `${lines[0]}\n${row}\n` }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the chaos: `releases` ECB days published while, every 0.4–1.6 s (seeded), one deliverer
 * (most often), both at once, or redis-server is SIGKILLed and restarted (a deliverer only once it
 * has made an attempt since it started); then waits up to
 * `settleMs` for the deliveries to catch up and measures what every subscriber got.
 */
export async function runWebhookChaos(options: {
  releases: number;
  /** Subscriptions in all (at least the four of SUBSCRIBERS; default those four). */
  subscriptions?: number;
  seed?: number;
  settleMs?: number;
  log?: (line: string) => void;
}): Promise<ChaosOutcome> {
  const started = performance.now();
  const random = seededRandom(options.seed ?? 24);
  const say = options.log ?? (() => {});
  const temp = createTempDir('mmds-chaos-');
  const redisDir = join(temp.dir, 'redis');
  mkdirSync(redisDir);
  const redis = await startRedis({ dir: redisDir });
  const receiver = await startWebhookReceiver();
  const dataDir = join(temp.dir, 'data');
  const env: Record<string, string> = {
    MMDS_DATA_DIR: dataDir,
    MMDS_STORAGE: redis.url,
    MMDS_HOOKS_ALLOW_HOSTS: '127.0.0.1',
    // Every snapshot's events stay in the log however far the deliverers fall behind.
    MMDS_KEEP_SNAPSHOTS: '1000',
    MMDS_HOOKS_TIMEOUT_MS: '2000',
    // A killed deliverer's subscriptions are taken over 4 s after its last renewal.
    MMDS_HOOKS_LEASE_MS: '4000',
    MMDS_HOOKS_POLL_MS: '50',
    // Attempts only fail here by timing out on a loaded machine: retry soon, and long enough
    // never to dead-letter (a dead letter would be a lost event).
    MMDS_HOOKS_RETRY_SCHEDULE: ['200ms', '500ms', ...Array.from({ length: 18 }, () => '2s')].join(','),
  };
  const cli = async (argv: string[]) => {
    const run = await runMmds(argv, env, () => new Date());
    if (run.code !== 0) throw new Error(`mmds ${argv.join(' ')} failed (${run.code}): ${run.stderr}`);
    return run.stdout;
  };

  const secrets = new Map<string, string>();
  const subscribers: Subscriber[] = [
    ...SUBSCRIBERS,
    ...Array.from({ length: Math.max(0, (options.subscriptions ?? 0) - SUBSCRIBERS.length) }, (_, index) => ({
      path: `/bulk/${index}`,
      scopes: 'observations:read',
      series: 'ecb.*',
      types: 'release.published',
      receives: (event: ReleaseEvent) => event.type === 'release.published',
    })),
  ];
  const unexpectedExits: string[] = [];
  const badSignatures: string[] = [];
  let deliverErrors = 0;
  let deliverKills = 0;
  let redisRestarts = 0;
  let startRefusals = 0;
  const deliverers: Array<ChildProcess | null> = [null, null];
  /** Attempts each running deliverer has logged since it started. */
  const attempts = [0, 0];
  const stopping = new Set<ChildProcess>();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
  );

  /** Starts deliverer `slot` as a real process, as an operator would: `mmds deliver`. */
  const spawnDeliverer = (slot: number) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'deliver'], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.includes('"webhook_error"')) deliverErrors++;
        if (line.includes('"webhook_attempt"') && deliverers[slot] === child) attempts[slot]!++;
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.once('exit', (code, signal) => {
      if (stopping.has(child)) return;
      // `mmds deliver` refuses to start while Redis is away (exit 69, by design): a supervisor
      // starts it again, and so does this run.
      if (code === 69 && stderr.includes('cannot reach Redis')) {
        startRefusals++;
        if (deliverers[slot] === child)
          setTimeout(() => deliverers[slot] === child && spawnDeliverer(slot), 300);
        return;
      }
      unexpectedExits.push(`deliverer ${slot} exited (${code ?? signal}): ${stderr}`);
    });
    deliverers[slot] = child;
    attempts[slot] = 0;
  };
  const stopDeliverer = async (slot: number, signal: NodeJS.Signals) => {
    const child = deliverers[slot];
    deliverers[slot] = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    stopping.add(child);
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };

  // Verified as they arrive: the signature's timestamp must be fresh for the library.
  let verified = 0;
  /** The distinct event ids each path has received so far (verified or not). */
  const arrived = new Map(subscribers.map((s) => [s.path, new Set<string>()]));
  const verifyArrivals = () => {
    for (; verified < receiver.received.length; verified++) {
      const delivery = receiver.received[verified]!;
      arrived.get(delivery.path)?.add(delivery.headers['webhook-id']!);
      try {
        const payload = new Webhook(secrets.get(delivery.path)!).verify(delivery.body, delivery.headers) as {
          data: ReleaseEvent;
        };
        if (payload.data.id !== delivery.headers['webhook-id'])
          badSignatures.push(
            `${delivery.path}: webhook-id ${delivery.headers['webhook-id']} carries ${payload.data.id}`,
          );
      } catch (error) {
        badSignatures.push(`${delivery.path}: ${(error as Error).message}`);
      }
    }
  };
  const verifier = setInterval(verifyArrivals, 50);

  try {
    for (const subscriber of SUBSCRIBERS) {
      const key = JSON.parse(
        await cli([
          '--json',
          'keys',
          'issue',
          '--org',
          `chaos${subscriber.path.slice(1)}`,
          '--scopes',
          subscriber.scopes,
        ]),
      ) as { id: string };
      const argv = ['--json', 'hooks', 'add', '--key', key.id, '--url', `${receiver.url}${subscriber.path}`];
      argv.push('--series', subscriber.series);
      if (subscriber.types) argv.push('--types', subscriber.types);
      secrets.set(subscriber.path, (JSON.parse(await cli(argv)) as { secret: string }).secret);
    }
    await addBulkSubscribers(subscribers.slice(SUBSCRIBERS.length), receiver.url, env, cli, secrets);
    // The reference data an ECB release is checked against: the catalogue (rights) and currencies.
    for (const step of REAL_DATA_STEPS.filter(([kind]) => kind === 'catalog' || kind === 'iso4217'))
      await cli(['ingest', ...step]);
    const days = ecbDays(options.releases);
    const publishDay = async (index: number) => {
      const { day, text } = days[index]!;
      const file = join(temp.dir, `eurofxref-${day}.csv`);
      writeFileSync(file, text);
      await cli(['ingest', 'ecb', file]);
      await cli(['publish']);
    };
    // `mmds deliver` reads an existing store: the first release comes before the deliverers.
    await publishDay(0);
    spawnDeliverer(0);
    spawnDeliverer(1);

    let publishing = true;
    // A deliverer is killed only once it has posted something since it started: on a loaded
    // machine a process can take seconds to start, and killing it before would test nothing.
    const working = (slot: number) => attempts[slot]! > 0;
    const chaos = (async () => {
      while (publishing) {
        await sleep(400 + random() * 1200);
        if (!publishing) break;
        const roll = random();
        if (roll < 0.2) {
          await redis.restart();
          redisRestarts++;
          continue;
        }
        const slots = (roll < 0.35 ? [0, 1] : [random() < 0.5 ? 0 : 1]).filter(working);
        for (const slot of slots) {
          await stopDeliverer(slot, 'SIGKILL');
          deliverKills++;
        }
        for (const slot of slots) spawnDeliverer(slot);
      }
    })();
    try {
      for (let index = 1; index < days.length; index++) {
        await publishDay(index);
        if (index % 10 === 0)
          say(`published ${index + 1}/${days.length} releases, ${receiver.received.length} deliveries`);
      }
    } finally {
      publishing = false;
      await chaos;
    }

    const feed = await openStoreEventFeed(dataDir);
    const events: ReleaseEvent[] = [];
    for (
      let page = await feed.after(null, 1000);
      page.length > 0;
      page = await feed.after(page.at(-1)!.id, 1000)
    )
      events.push(...page);
    if (events.filter((event) => event.type === 'release.published').length !== days.length)
      throw new Error(
        `the event log holds ${events.length} events but not one release.published per release`,
      );
    const expected = new Map(subscribers.map((s) => [s.path, events.filter(s.receives).map((e) => e.id)]));
    const caughtUp = () => {
      verifyArrivals();
      return subscribers.every((s) => {
        const got = arrived.get(s.path)!;
        const want = expected.get(s.path)!;
        return got.size >= want.length && want.every((id) => got.has(id));
      });
    };
    // Past settleMs, what has not arrived is lost: measured and reported below, not thrown here.
    await waitUntil('every expected delivery', caughtUp, options.settleMs ?? 120_000).catch(() => {});
    // A moment more for late duplicates and stray deliveries to show.
    await sleep(500);
    await Promise.all([stopDeliverer(0, 'SIGTERM'), stopDeliverer(1, 'SIGTERM')]);
    verifyArrivals();

    return {
      releases: days.length,
      events: events.length,
      subscriptions: measureAll(subscribers, expected, receiver.received),
      deliverKills,
      redisRestarts,
      startRefusals,
      unexpectedExits,
      badSignatures,
      deliverErrors,
      seconds: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    clearInterval(verifier);
    await Promise.all([stopDeliverer(0, 'SIGKILL'), stopDeliverer(1, 'SIGKILL')]);
    await receiver.close();
    await redis.stop();
    temp.remove();
  }
}

/**
 * Adds the bulk subscriptions through the subscription store (the CLI's code, without a process
 * per subscription), all for one key, each with its own path and secret.
 */
async function addBulkSubscribers(
  bulk: readonly Subscriber[],
  receiverUrl: string,
  env: Record<string, string>,
  cli: (argv: string[]) => Promise<string>,
  secrets: Map<string, string>,
): Promise<void> {
  if (bulk.length === 0) return;
  const key = JSON.parse(
    await cli(['--json', 'keys', 'issue', '--org', 'chaosbulk', '--scopes', 'observations:read']),
  ) as { id: string };
  const storage = createStateStorage(env.MMDS_STORAGE!, env.MMDS_DATA_DIR!);
  try {
    const stores = { hooks: createHookStore(storage), keys: createKeyStore(storage) };
    const policy = parseAllowHosts(env.MMDS_HOOKS_ALLOW_HOSTS!);
    await mapConcurrent(bulk, 16, async (subscriber) => {
      const record = await addHook(
        {
          keyId: key.id,
          url: `${receiverUrl}${subscriber.path}`,
          series: ['ecb.*'],
          types: ['release.published'],
        },
        stores,
        policy,
        new Date(),
      );
      secrets.set(subscriber.path, record.secrets[0]!.secret);
    });
  } finally {
    await storage.dispose();
  }
}

/** measure() for every subscriber, the deliveries grouped by path once. */
function measureAll(
  subscribers: readonly Subscriber[],
  expected: ReadonlyMap<string, readonly string[]>,
  received: ReadonlyArray<{ path: string; headers: Record<string, string> }>,
): SubscriptionOutcome[] {
  const byPath = new Map<string, Array<{ headers: Record<string, string> }>>();
  for (const delivery of received) {
    const list = byPath.get(delivery.path) ?? [];
    list.push(delivery);
    byPath.set(delivery.path, list);
  }
  return subscribers.map((s) => measure(s.path, expected.get(s.path)!, byPath.get(s.path) ?? []));
}

/** Compares one subscription's deliveries, in arrival order, with the log's events it should receive. */
function measure(
  path: string,
  expected: readonly string[],
  deliveries: ReadonlyArray<{ headers: Record<string, string> }>,
): SubscriptionOutcome {
  const position = new Map(expected.map((id, index) => [id, index]));
  const seen = new Set<string>();
  const unexpected: string[] = [];
  let latest = -1;
  let outOfOrder = 0;
  let duplicates = 0;
  for (const delivery of deliveries) {
    const id = delivery.headers['webhook-id']!;
    const index = position.get(id);
    if (index === undefined) {
      unexpected.push(id);
      continue;
    }
    if (seen.has(id)) duplicates++;
    seen.add(id);
    if (index < latest) outOfOrder++;
    latest = Math.max(latest, index);
  }
  return {
    path,
    expected: expected.length,
    deliveries: deliveries.length,
    lost: expected.filter((id) => !seen.has(id)),
    unexpected,
    outOfOrder,
    duplicates,
  };
}

/** The one-line summary a test prints (RELIABILITY.md quotes it). */
export function describeChaos(outcome: ChaosOutcome): string {
  const sum = (pick: (s: SubscriptionOutcome) => number) =>
    outcome.subscriptions.reduce((total, s) => total + pick(s), 0);
  return (
    `webhook chaos: ${outcome.releases} releases, ${outcome.events} events, ` +
    `${sum((s) => s.expected)} expected deliveries to ${outcome.subscriptions.length} subscriptions, ` +
    `${sum((s) => s.lost.length)} lost, ${sum((s) => s.outOfOrder)} out of order, ` +
    `${sum((s) => s.duplicates)} duplicates, ${sum((s) => s.unexpected.length)} unexpected; ` +
    `${outcome.deliverKills} deliverer SIGKILLs, ${outcome.redisRestarts} Redis restarts, ` +
    `${outcome.startRefusals} deliverer starts refused while Redis was away, ` +
    `${outcome.unexpectedExits.length} deliverer crashes, ${outcome.deliverErrors} logged delivery errors; ` +
    `${outcome.seconds} s`
  );
}

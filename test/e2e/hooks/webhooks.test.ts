import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Storage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import type { EventType, ReleaseEvent } from '../../../src/events/event.ts';
import { EventGoneError } from '../../../src/events/event-log.ts';
import { parseAllowHosts, STRICT_POLICY } from '../../../src/hooks/address-policy.ts';
import { createDeliverer, type Deliverer, type DelivererOptions } from '../../../src/hooks/deliverer.ts';
import { deliveryLeaseName } from '../../../src/hooks/delivery-shards.ts';
import { createHookStore } from '../../../src/hooks/hook-store.ts';
import { createLease } from '../../../src/hooks/lease.ts';
import { startDelivery } from '../../../src/hooks/start-delivery.ts';
import { openStoreEventFeed } from '../../../src/hooks/store-feed.ts';
import type { HookRecord, PublicHookRecord } from '../../../src/hooks/subscription-record.ts';
import { createStateStorage } from '../../../src/keys/create-storage.ts';
import { formatTimestamp } from '../../../src/lib/zoned-time.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import {
  arrayFeed,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
  waitUntil,
} from '../../helpers/webhook-receiver.ts';

/**
 * Signed webhooks (issue 24 items 3 and 4) end to end: subscriptions made through the real CLI
 * entry (runCli) in a real data directory, the deliverer posting to a real HTTP receiver on a
 * random loopback port, every delivery checked with the unmodified `standardwebhooks` library.
 * The event log is an array of events the tests append to (the log's file format is not under
 * test here). Retry waits are milliseconds (the schedule is configurable); loopback is allowed
 * explicitly, as an operator would with MMDS_HOOKS_ALLOW_HOSTS.
 */

const SNAPSHOT = '20261127T030000Z-1a2b3c4d';
const LOOPBACK = parseAllowHosts('127.0.0.1');
const now = () => new Date();

interface Setup {
  env: Record<string, string>;
  storage: Storage;
  log: ReleaseEvent[];
  receiver: WebhookReceiver;
  /** Adds a key with these scopes through the CLI; returns its id. */
  key(scopes: string): Promise<string>;
  /** Adds a subscription through the CLI; returns its id and secret. */
  hook(key: string, path: string, series: string, types?: string): Promise<{ id: string; secret: string }>;
  /** Appends an event (seq in order) observed now unless given. */
  publish(fields: Partial<ReleaseEvent> & { type: EventType }): ReleaseEvent;
  deliverer(options?: Partial<DelivererOptions>): Deliverer;
  record(id: string): Promise<HookRecord>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: { pepper?: string } = {}): Promise<Setup> {
  const temp = createTempDir('mmds-hooks-');
  cleanups.push(() => temp.remove());
  const env: Record<string, string> = {
    MMDS_DATA_DIR: temp.dir,
    MMDS_STORAGE: 'file',
    MMDS_HOOKS_ALLOW_HOSTS: '127.0.0.1',
  };
  if (options.pepper) env.MMDS_KEY_PEPPER = options.pepper;
  const storage = createStateStorage('file', temp.dir);
  cleanups.push(() => storage.dispose());
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.close());
  const log: ReleaseEvent[] = [];
  const feed = arrayFeed(log);
  return {
    env,
    storage,
    log,
    receiver,
    async key(scopes) {
      const run = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'receiver', '--scopes', scopes],
        env,
        now,
      );
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { id: string }).id;
    },
    async hook(key, path, series, types) {
      const argv = [
        '--json',
        'hooks',
        'add',
        '--key',
        key,
        '--url',
        `${receiver.url}${path}`,
        '--series',
        series,
      ];
      const run = await runMmds(types ? [...argv, '--types', types] : argv, env, now);
      expect(run.code, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout) as { id: string; secret: string };
      expect(out.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      return out;
    },
    publish(fields) {
      const event: ReleaseEvent = {
        id: `${SNAPSHOT}:${log.length + 1}`,
        snapshot: SNAPSHOT,
        source: 'ecb',
        series: null,
        observed_at: formatTimestamp(new Date()),
        public: true,
        data: { n: log.length + 1 },
        ...fields,
      };
      log.push(event);
      return event;
    },
    deliverer(overrides = {}) {
      const deliverer = createDeliverer({
        storage,
        feed,
        policy: LOOPBACK,
        schedule: [40, 40, 40],
        timeoutMs: 2_000,
        leaseMs: 5_000,
        pollMs: 15,
        pepper: env.MMDS_KEY_PEPPER ?? null,
        ...overrides,
      });
      cleanups.push(() => deliverer.stop());
      return deliverer;
    },
    async record(id) {
      const record = await createHookStore(storage, env.MMDS_KEY_PEPPER ?? null).get(id);
      if (!record) throw new Error(`no hook ${id}`);
      return record;
    },
  };
}

/** Verifies a delivery with the library as a receiver would; returns the event it carries. */
function verify(secret: string, delivery: ReceivedWebhook): ReleaseEvent {
  const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as {
    type: string;
    timestamp: string;
    data: ReleaseEvent;
  };
  expect(delivery.headers['webhook-id']).toBe(payload.data.id);
  expect(payload.type).toBe(payload.data.type);
  expect(payload.timestamp).toBe(payload.data.observed_at);
  expect(delivery.headers['content-type']).toBe('application/json');
  return payload.data;
}

/**
 * Verifies a v1a (ed25519) delivery with Node's crypto, as a receiver holding the `whpk_` public
 * key does (standardwebhooks 1.1 has no v1a): some v1a signature must verify, the time be fresh.
 */
function verifyV1a(publicKey: string, delivery: ReceivedWebhook): ReleaseEvent {
  const key = createPublicKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url'),
    },
    format: 'jwk',
  });
  const {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures,
  } = delivery.headers;
  expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
  const content = Buffer.from(`${id}.${timestamp}.${delivery.body}`, 'utf8');
  const valid = signatures!
    .split(' ')
    .filter((signature) => signature.startsWith('v1a,'))
    .some((signature) => verifySignature(null, content, key, Buffer.from(signature.slice(4), 'base64')));
  if (!valid) throw new Error('no valid v1a signature');
  return (JSON.parse(delivery.body) as { data: ReleaseEvent }).data;
}

const ids = (deliveries: ReceivedWebhook[]) => deliveries.map((delivery) => delivery.headers['webhook-id']);
const seq = (...numbers: number[]) => numbers.map((n) => `${SNAPSHOT}:${n}`);

describe('webhook deliveries', () => {
  it('verify with standardwebhooks, come in log order, and carry only what the key may read', async () => {
    const s = await setup();
    // Observed before the subscriptions existed: not sent (a subscription starts at its creation).
    s.publish({ type: 'series.released', series: 'ecb.USD', observed_at: '2026-01-01T00:00:00Z' });
    const full = await s.key('observations:read');
    const cot = await s.key('cot:history');
    const a = await s.hook(full, '/a', 'ecb.*');
    const b = await s.hook(cot, '/b', '*', 'series.released');
    s.publish({ type: 'release.published' }); // 2
    s.publish({ type: 'series.released', series: 'ecb.USD' }); // 3
    s.publish({ type: 'series.released', series: 'ecb.JPY', public: false }); // 4: licensed
    s.publish({ type: 'series.revised', series: 'ecb.USD' }); // 5
    s.publish({ type: 'series.released', source: 'bls', series: 'bls.CES0000000001' }); // 6
    // A damaged record beside them is logged and skipped; it stops no other subscription.
    writeFileSync(join(s.env.MMDS_DATA_DIR!, 'state', 'hooks', 'aaaaaaaaaaaa'), '{"id":');
    const logged: Array<Record<string, unknown>> = [];
    const deliverer = s.deliverer({ log: (entry) => logged.push(entry) });
    deliverer.start();
    await waitUntil(
      'the first deliveries',
      () => s.receiver.at('/a').length === 4 && s.receiver.at('/b').length === 2,
    );
    s.publish({ type: 'series.released', series: 'ecb.GBP' }); // 7, while running
    await waitUntil(
      'the live event',
      () => s.receiver.at('/a').length === 5 && s.receiver.at('/b').length === 3,
    );
    await deliverer.stop();
    expect(ids(s.receiver.at('/a'))).toEqual(seq(2, 3, 4, 5, 7));
    expect(ids(s.receiver.at('/b'))).toEqual(seq(3, 6, 7));
    for (const delivery of s.receiver.at('/a')) verify(a.secret, delivery);
    for (const delivery of s.receiver.at('/b')) verify(b.secret, delivery);
    expect(verify(a.secret, s.receiver.at('/a')[2]!)).toEqual(s.log[3]);
    // One subscription's secret does not verify the other's deliveries.
    expect(() => verify(b.secret, s.receiver.at('/a')[0]!)).toThrow(WebhookVerificationError);
    expect((await s.record(a.id)).cursor).toBe(seq(7)[0]);
    expect((await s.record(a.id)).delivered).toBe(5);
    // One line per attempt, naming the subscription and the event; never a secret or the URL.
    expect(logged.filter((entry) => entry.event === 'webhook_attempt')).toHaveLength(8);
    expect(logged).toContainEqual(
      expect.objectContaining({ event: 'webhook_attempt', hook: a.id, event_id: seq(2)[0] }),
    );
    expect(logged).toContainEqual({
      event: 'webhook_error',
      hook: 'aaaaaaaaaaaa',
      error: 'the stored record of webhook subscription aaaaaaaaaaaa is not valid',
    });
    const text = JSON.stringify(logged);
    for (const secret of [a.secret, b.secret]) expect(text).not.toContain(secret.slice('whsec_'.length, 16));
    expect(text).not.toContain(s.receiver.url);
  });

  it('retries a 500 on the schedule and waits as long as Retry-After says; the next event waits for it', async () => {
    const s = await setup();
    const key = await s.key('observations:read');
    const hook = await s.hook(key, '/r', '*');
    s.receiver.script('/r', [
      { status: 500 },
      { status: 503, headers: { 'retry-after': '2' } },
      { status: 200 },
    ]);
    s.publish({ type: 'series.released', series: 'ecb.USD' });
    s.publish({ type: 'series.released', series: 'ecb.JPY' });
    s.deliverer().start();
    await waitUntil('four requests', () => s.receiver.at('/r').length === 4, 15_000);
    const got = s.receiver.at('/r');
    expect(ids(got)).toEqual(seq(1, 1, 1, 2));
    for (const delivery of got) verify(hook.secret, delivery);
    // Schedule 40 ms ±20% after the 500 (a loaded machine may add some); at least the 2 s of
    // Retry-After after the 503.
    expect(got[1]!.at - got[0]!.at).toBeLessThan(1500);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(1990);
    const record = await s.record(hook.id);
    expect(record.pending).toBeNull();
    expect(record.dead_letters).toEqual([]);
  });

  it('wake() starts the next pass at once (a publish) instead of after the poll wait', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    await s.hook(key, '/wake', '*');
    const deliverer = s.deliverer({ pollMs: 60_000 });
    deliverer.start();
    await deliverer.runOnce(); // the first pass has run (nothing to send): the loop now sleeps
    s.publish({ type: 'release.published' });
    deliverer.wake();
    await waitUntil('the woken delivery', () => s.receiver.at('/wake').length === 1, 5_000);
    await deliverer.stop();
  });

  it('gives up on a receiver that never answers after the time-out of each scheduled attempt', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/hang', '*');
    s.receiver.script('/hang', [{ status: 0 }, { status: 0 }, { status: 0 }, { status: 0 }]);
    s.publish({ type: 'release.published' });
    s.publish({ type: 'release.published' });
    s.deliverer({ timeoutMs: 150, leaseMs: 1_000 }).start();
    await waitUntil('the dead letter and the next event', () => s.receiver.at('/hang').length === 5);
    expect(ids(s.receiver.at('/hang'))).toEqual(seq(1, 1, 1, 1, 2));
    await waitUntil('the cursor', async () => (await s.record(hook.id)).cursor === seq(2)[0]);
    expect((await s.record(hook.id)).dead_letters).toEqual([
      expect.objectContaining({
        event_id: seq(1)[0],
        attempts: 4,
        reason: 'no answer within 150 ms (gave up after 4 attempts)',
      }),
    ]);
  });

  it('410 disables the subscription; a 400 is dead-lettered at once; list, resume and replay', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const gone = await s.hook(key, '/gone', '*');
    const bad = await s.hook(key, '/bad', '*');
    s.receiver.script('/gone', [{ status: 410 }]);
    s.receiver.script('/bad', [{ status: 400 }]);
    s.publish({ type: 'release.published' });
    s.publish({ type: 'series.released', series: 'ecb.USD' });
    const deliverer = s.deliverer();
    deliverer.start();
    await waitUntil('the dead letter', async () => (await s.record(bad.id)).cursor === seq(2)[0]);
    await waitUntil('the disabled state', async () => (await s.record(gone.id)).state === 'disabled');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(ids(s.receiver.at('/gone'))).toEqual(seq(1));
    expect(ids(s.receiver.at('/bad'))).toEqual(seq(1, 2));

    const list = await runMmds(['--json', 'hooks', 'list'], s.env, now);
    expect(list.code, list.stderr).toBe(0);
    const records = JSON.parse(list.stdout) as PublicHookRecord[];
    expect(list.stdout).not.toContain('whsec_');
    const byId = new Map(records.map((record) => [record.id, record]));
    expect(byId.get(gone.id)).toMatchObject({ state: 'disabled', cursor: null });
    expect(byId.get(gone.id)!.state_reason).toMatch(/^the receiver answered HTTP 410 Gone at /);
    expect(byId.get(bad.id)!.dead_letters).toEqual([
      expect.objectContaining({
        event_id: seq(1)[0],
        type: 'release.published',
        attempts: 1,
        reason: 'HTTP 400',
      }),
    ]);
    const text = await runMmds(['hooks', 'list'], s.env, now);
    expect(text.stdout).toContain(`dead ${seq(1)[0]} release.published`);
    expect(text.stdout).toContain(`${gone.id}  disabled (the receiver answered HTTP 410 Gone`);

    // Resume: from the refused event on. Replay: the dead letter again, then what followed.
    expect((await runMmds(['hooks', 'resume', gone.id], s.env, now)).code).toBe(0);
    const replay = await runMmds(['hooks', 'replay', bad.id, '--since', `${SNAPSHOT}:0`], s.env, now);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(`webhook subscription ${bad.id} replays the events after ${SNAPSHOT}:0\n`);
    await waitUntil(
      'resumed and replayed deliveries',
      () => s.receiver.at('/gone').length === 3 && s.receiver.at('/bad').length === 4,
    );
    expect(ids(s.receiver.at('/gone'))).toEqual(seq(1, 1, 2));
    expect(ids(s.receiver.at('/bad'))).toEqual(seq(1, 2, 1, 2));
    expect((await s.record(bad.id)).dead_letters).toEqual([]);
    for (const delivery of s.receiver.at('/bad')) verify(bad.secret, delivery);
  });

  it('signs with both secrets during a rotation grace period, with one after --grace 0', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/rot', '*');
    // Passes run by hand: a pass that read the record just before a rotation signs with the
    // secrets it read (still valid), which would make the count of signatures a race here.
    const deliverer = s.deliverer();
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    expect(s.receiver.at('/rot')[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    const rotated = await runMmds(['--json', 'hooks', 'rotate', hook.id, '--grace', '1h'], s.env, now);
    expect(rotated.code, rotated.stderr).toBe(0);
    const second = (JSON.parse(rotated.stdout) as { secret: string }).secret;
    expect(second).not.toBe(hook.secret);
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    const during = s.receiver.at('/rot')[1]!;
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verify(second, during).id).toBe(seq(2)[0]);
    expect(verify(hook.secret, during).id).toBe(seq(2)[0]);

    const third = await runMmds(['hooks', 'rotate', hook.id, '--grace', '0'], s.env, now);
    expect(third.code, third.stderr).toBe(0);
    const newest = third.stdout.trim();
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    const after = s.receiver.at('/rot')[2]!;
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verify(newest, after).id).toBe(seq(3)[0]);
    expect(() => verify(second, after)).toThrow(WebhookVerificationError);
    expect(() => verify(hook.secret, after)).toThrow(WebhookVerificationError);
  });

  it('signs v1a (ed25519) for a subscription that asks, the receiver holding only the public key', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const argv = [
      'hooks',
      'add',
      '--key',
      key,
      '--url',
      `${s.receiver.url}/ed`,
      '--series',
      '*',
      '--signature',
      'v1a',
    ];
    const added = await runMmds(['--json', ...argv], s.env, now);
    expect(added.code, added.stderr).toBe(0);
    const { id, public_key: first } = JSON.parse(added.stdout) as { id: string; public_key: string };
    expect(first).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(added.stdout).not.toMatch(/whsk_|whsec_/);
    const deliverer = s.deliverer();
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    expect(s.receiver.at('/ed')[0]!.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifyV1a(first, s.receiver.at('/ed')[0]!).id).toBe(seq(1)[0]);

    const rotated = await runMmds(['hooks', 'rotate', id, '--grace', '1h'], s.env, now);
    expect(rotated.code, rotated.stderr).toBe(0);
    const second = rotated.stdout.trim();
    expect(second).toMatch(/^whpk_/);
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    const during = s.receiver.at('/ed')[1]!;
    expect(during.headers['webhook-signature']).toMatch(/^v1a,\S+ v1a,\S+$/);
    expect(verifyV1a(second, during).id).toBe(seq(2)[0]);
    expect(verifyV1a(first, during).id).toBe(seq(2)[0]);
    expect(() => verifyV1a(second, { ...during, body: during.body.replace('"n":2', '"n":3') })).toThrow(
      'no valid v1a signature',
    );
    const bad = await runMmds([...argv.slice(0, -1), 'v2'], s.env, now);
    expect(bad).toMatchObject({
      code: 2,
      stderr: 'mmds: --signature must be v1 (HMAC-SHA256) or v1a (ed25519), got "v2"\n',
    });
  });
});

describe('signing secrets at rest', () => {
  it('are sealed with MMDS_KEY_PEPPER: the storage holds no secret, deliveries still verify', async () => {
    const s = await setup({ pepper: 'pepper-of-this-test' });
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/sealed', '*');
    const stored = readFileSync(join(s.env.MMDS_DATA_DIR!, 'state', 'hooks', hook.id), 'utf8');
    expect(stored).not.toContain(hook.secret);
    expect(stored).not.toContain(hook.secret.slice('whsec_'.length, 20));
    expect(stored).toMatch(/"secret":"sealed:[A-Za-z0-9+/]+={0,2}"/);
    s.publish({ type: 'release.published' });
    await s.deliverer().runOnce();
    expect(verify(hook.secret, s.receiver.at('/sealed')[0]!).id).toBe(seq(1)[0]);

    const withoutPepper = { ...s.env, MMDS_KEY_PEPPER: '' };
    const list = await runMmds(['hooks', 'list'], withoutPepper, now);
    expect(list).toMatchObject({
      code: 1,
      stderr: `mmds: the stored record of webhook subscription ${hook.id} cannot be read: its secret is sealed with MMDS_KEY_PEPPER, which is not set\n`,
    });
    const other = await runMmds(['hooks', 'list'], { ...s.env, MMDS_KEY_PEPPER: 'another' }, now);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('its secret was sealed with another MMDS_KEY_PEPPER; rotate its secret');
  });
});

describe('SSRF protection', () => {
  it('refuses loopback and private URLs at add unless allowed, and addresses at delivery', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const strict = { ...s.env, MMDS_HOOKS_ALLOW_HOSTS: '' };
    const http = await runMmds(
      ['hooks', 'add', '--key', key, '--url', `${s.receiver.url}/x`, '--series', '*'],
      strict,
      now,
    );
    expect(http.code).toBe(2);
    expect(http.stderr).toBe(
      'mmds: --url must use https (plain http only for a host in MMDS_HOOKS_ALLOW_HOSTS), got "http:"\n',
    );
    const metadata = await runMmds(
      ['hooks', 'add', '--key', key, '--url', 'https://169.254.169.254/latest', '--series', '*'],
      strict,
      now,
    );
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toMatch(/^mmds: --url: refused address 169\.254\.169\.254: .*\n$/);

    // Added while loopback was allowed, delivered by a deliverer that does not allow it: the
    // address is checked when connecting, too (a literal address is never resolved).
    const literal = await s.hook(key, '/literal', '*');
    const resolved = await runMmds(
      ['--json', 'hooks', 'add', '--key', key, '--url', 'https://rebind.example:8443/h', '--series', '*'],
      strict,
      now,
    );
    expect(resolved.code, resolved.stderr).toBe(0);
    const named = (JSON.parse(resolved.stdout) as { id: string }).id;
    // The name has a public and a private address: refused, whichever would be used.
    const lookup: LookupFunction = (_host, _options, callback) =>
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '203.0.113.7', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ]);
    s.publish({ type: 'release.published' });
    const deliverer = s.deliverer({ policy: STRICT_POLICY, lookup });
    await deliverer.runOnce();
    expect(s.receiver.received).toEqual([]);
    expect((await s.record(literal.id)).dead_letters[0]!.reason).toMatch(/^refused address 127\.0\.0\.1: /);
    expect((await s.record(named)).dead_letters[0]!.reason).toMatch(/^refused address 10\.0\.0\.5: /);
  });
});

describe('several deliverers over one storage', () => {
  it('share the work: every event once per subscription, in order', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hooks = await Promise.all(['/p1', '/p2', '/p3'].map((path) => s.hook(key, path, '*')));
    for (let n = 0; n < 20; n++) s.publish({ type: 'series.released', series: `ecb.S${n}` });
    // A second storage instance over the same directory: what a second process has.
    const other = createStateStorage('file', s.env.MMDS_DATA_DIR!);
    cleanups.push(() => other.dispose());
    const first = s.deliverer();
    const second = s.deliverer({ storage: other });
    first.start();
    second.start();
    await waitUntil('every delivery', () => s.receiver.received.length >= 60, 20_000);
    await Promise.all([first.stop(), second.stop()]);
    const all = seq(...Array.from({ length: 20 }, (_, i) => i + 1));
    for (const [index, path] of ['/p1', '/p2', '/p3'].entries()) {
      expect(ids(s.receiver.at(path)), path).toEqual(all);
      for (const delivery of s.receiver.at(path)) verify(hooks[index]!.secret, delivery);
    }
  });

  it('lose no change to a record written at once from two processes (compare-and-set)', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/cas', '*');
    const other = createStateStorage('file', s.env.MMDS_DATA_DIR!);
    cleanups.push(() => other.dispose());
    const stores = [createHookStore(s.storage), createHookStore(other)];
    const count = (current: HookRecord) => ({ ...current, delivered: current.delivered + 1 });
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => stores[i % 2]!.update(hook.id, count)),
      runMmds(['hooks', 'pause', hook.id], s.env, now),
    ]);
    expect(await s.record(hook.id)).toMatchObject({ delivered: 30, state: 'paused' });
  });

  it("take over a killed deliverer's subscription once its lease expires", async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/k', '*');
    s.publish({ type: 'release.published' });
    // A deliverer that took the lease and was killed: it never renews or releases it.
    const killedAt = performance.now();
    expect(
      await createLease(s.storage, 'killed-instance', 600).acquire(deliveryLeaseName(hook.id), Date.now()),
    ).toBe(true);
    s.deliverer().start();
    await waitUntil('the delivery by the survivor', () => s.receiver.at('/k').length === 1);
    expect(s.receiver.at('/k')[0]!.at - killedAt).toBeGreaterThanOrEqual(550);
    verify(hook.secret, s.receiver.at('/k')[0]!);
  });
});

describe('mmds hooks', () => {
  it('pause holds deliveries back, resume sends them; a revoked key pauses; remove deletes', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/p', '*');
    const paused = await runMmds(['--json', 'hooks', 'pause', hook.id], s.env, now);
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({
      id: hook.id,
      state: 'paused',
      state_reason: 'paused by operator',
    });
    expect(paused.stdout).not.toContain('whsec_');
    s.publish({ type: 'release.published' });
    const deliverer = s.deliverer();
    await deliverer.runOnce();
    expect(s.receiver.at('/p')).toEqual([]);
    expect((await runMmds(['hooks', 'resume', hook.id], s.env, now)).stdout).toBe(
      `webhook subscription ${hook.id} is active\n`,
    );
    await deliverer.runOnce();
    expect(ids(s.receiver.at('/p'))).toEqual(seq(1));

    expect((await runMmds(['keys', 'revoke', key], s.env, now)).code).toBe(0);
    s.publish({ type: 'release.published' });
    await deliverer.runOnce();
    expect(s.receiver.at('/p')).toHaveLength(1);
    expect(await s.record(hook.id)).toMatchObject({ state: 'paused', state_reason: `key ${key} is revoked` });

    const removed = await runMmds(['hooks', 'remove', hook.id], s.env, now);
    expect(removed).toMatchObject({ code: 0, stdout: `removed webhook subscription ${hook.id}\n` });
    expect((await runMmds(['hooks', 'list'], s.env, now)).stdout).toBe('no webhook subscriptions\n');
    const again = await runMmds(['hooks', 'remove', hook.id], s.env, now);
    expect(again).toMatchObject({ code: 2, stderr: `mmds: no webhook subscription with id ${hook.id}\n` });
  });

  it('refuses bad input with one line and a non-zero exit, and a revoked key', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const url = `${s.receiver.url}/x`;
    const cases: Array<[string[], number, string]> = [
      [
        ['hooks', 'add', '--key', 'abcdefgh2345', '--url', url, '--series', '*'],
        2,
        'no key with id abcdefgh2345',
      ],
      [['hooks', 'add', '--key', 'mmds_x', '--url', url, '--series', '*'], 2, '--key must be a key id'],
      [['hooks', 'add', '--key', key, '--url', url, '--series', ' , '], 2, '--series needs at least one'],
      [
        ['hooks', 'add', '--key', key, '--url', url, '--series', 'a b'],
        2,
        'series pattern "a b" may hold only',
      ],
      [
        ['hooks', 'add', '--key', key, '--url', url, '--series', '*', '--types', 'x'],
        2,
        'unknown event type "x"',
      ],
      [['hooks', 'pause', 'NOT-AN-ID'], 2, 'not a subscription id'],
      [['hooks', 'rotate', 'abcdefgh2345', '--grace', '30'], 2, '--grace must be 0 or a duration'],
      [['hooks', 'replay', 'abcdefgh2345', '--since', 'a b'], 2, '--since must be an event id'],
    ];
    for (const [argv, code, message] of cases) {
      const run = await runMmds(argv, s.env, now);
      expect(run.code, argv.join(' ')).toBe(code);
      expect(run.stderr.split('\n').filter(Boolean), argv.join(' ')).toHaveLength(1);
      expect(run.stderr, argv.join(' ')).toContain(message);
    }
    await runMmds(['keys', 'revoke', key], s.env, now);
    const revoked = await runMmds(
      ['--json', 'hooks', 'add', '--key', key, '--url', url, '--series', '*'],
      s.env,
      now,
    );
    expect(revoked.code).toBe(1);
    expect(JSON.parse(revoked.stdout)).toEqual({
      error: { code: 'failed', exit_code: 1, message: `key ${key} is revoked; subscribe with a usable key` },
    });
  });

  it('records a gap when the cursor was pruned from the log, and goes on from the oldest snapshot', async () => {
    const s = await setup();
    const key = await s.key('cot:history');
    const hook = await s.hook(key, '/g', '*');
    const pruned = '20261120T030000Z-00000000:4';
    expect((await runMmds(['hooks', 'replay', hook.id, '--since', pruned], s.env, now)).code).toBe(0);
    s.publish({ type: 'release.published' });
    const inner = arrayFeed(s.log);
    const feed = {
      after: async (after: string | null, limit: number) => {
        if (after === pruned) throw new EventGoneError(`event ${after} is not in the log`, SNAPSHOT);
        return inner.after(after, limit);
      },
    };
    await s.deliverer({ feed }).runOnce();
    await s.deliverer({ feed }).runOnce();
    expect(ids(s.receiver.at('/g'))).toEqual(seq(1));
    expect((await s.record(hook.id)).dead_letters).toEqual([
      expect.objectContaining({ event_id: pruned, type: 'gap', attempts: 0 }),
    ]);
  });
});

// The event log (src/events/event-log.ts) is issue 24 item 1, built beside this part: the CLI
// entry is exercised once both are in the tree.
describe.skipIf(!existsSync(join(REPO_ROOT, 'src/events/event-log.ts')))('mmds deliver', () => {
  it('posts the events a publish wrote, signed, in log order; --once makes one pass', async () => {
    const s = await setup();
    const key = await s.key('observations:read');
    const hook = await s.hook(key, '/cli', 'ecb.*');
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')],
      ['publish'],
    ]) {
      const run = await runMmds(argv, s.env, now);
      expect(run.code, run.stderr).toBe(0);
    }
    const snapshot = readFileSync(join(s.env.MMDS_DATA_DIR!, 'CURRENT'), 'utf8').trim();
    // From the snapshot's start, whatever times its events carry.
    expect((await runMmds(['hooks', 'replay', hook.id, '--since', `${snapshot}:0`], s.env, now)).code).toBe(
      0,
    );
    const run = await runMmds(['deliver', '--once'], s.env, now);
    expect(run.code, run.stderr).toBe(0);
    const got = s.receiver.at('/cli');
    expect(got.length).toBeGreaterThan(0);
    const events = got.map((delivery) => verify(hook.secret, delivery));
    const numbers = events.map((event) => Number(event.id.split(':')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const event of events) expect(event.snapshot).toBe(snapshot);
    expect(run.stdout).toContain('"event":"webhook_attempt"');
    expect(run.stdout).not.toContain(hook.secret);
  });
  it("wakes on a publish's switch of CURRENT, not at its next poll (mmds deliver, serve --deliver)", async () => {
    const s = await setup();
    const dataDir = s.env.MMDS_DATA_DIR!;
    // The ECB sample without its newest day, published; that day follows as a release.
    const [header, newest, ...older] = readFileSync(
      join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv'),
      'utf8',
    ).split('\n');
    const inputs = createTempDir('mmds-hooks-input-');
    cleanups.push(() => inputs.remove());
    const history = join(inputs.dir, 'ecb-without-newest-day.csv');
    writeFileSync(history, [header, ...older].join('\n'));
    const release = join(inputs.dir, 'ecb-newest-day.csv');
    writeFileSync(release, `${header}\n${newest}\n`);
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'ecb', history],
      ['publish'],
    ]) {
      const run = await runMmds(argv, s.env, now);
      expect(run.code, run.stderr).toBe(0);
    }
    const key = await s.key('observations:read');
    // A subscription takes the events observed from the second it is created on, that second
    // included: created in the second of the first publish, it would rightly get that release.
    await new Promise((resolve) => setTimeout(resolve, 1_005 - (Date.now() % 1_000)));
    await s.hook(key, '/watch', 'ecb.*', 'release.published');
    const config = loadConfig(s.env, dataDir);
    // A poll of an hour: only the watch of CURRENT can start the pass that delivers.
    const delivery = await startDelivery(config, await openStoreEventFeed(dataDir), () => {}, {
      pollMs: 3_600_000,
    });
    cleanups.push(() => delivery.close());
    delivery.deliverer.start();
    await delivery.deliverer.runOnce(); // nothing to send yet: the loop now sleeps
    expect(s.receiver.at('/watch')).toHaveLength(0);
    for (const argv of [['ingest', 'ecb', release], ['publish']]) {
      const run = await runMmds(argv, s.env, now);
      expect(run.code, run.stderr).toBe(0);
    }
    await waitUntil('the delivery after the publish', () => s.receiver.at('/watch').length === 1, 20_000);
  });
});

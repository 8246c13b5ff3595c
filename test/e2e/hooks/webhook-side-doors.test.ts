import { readFileSync, writeFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../../src/events/event.ts';
import { parseAllowHosts, STRICT_POLICY } from '../../../src/hooks/address-policy.ts';
import { createDeliverer } from '../../../src/hooks/deliverer.ts';
import { createHookStore } from '../../../src/hooks/hook-store.ts';
import { createStateStorage } from '../../../src/keys/create-storage.ts';
import { formatTimestamp } from '../../../src/lib/zoned-time.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { arrayFeed, startWebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { closedPort, linesOf } from '../cli/spawn-mmds.ts';

/**
 * Issue 37, "no side doors", for webhooks: an IPv6 target that carries a refused IPv4 address is
 * refused when added and when delivered to, and no log line names a receiver's host, address or
 * port. Subscriptions through the real CLI, deliveries to a real receiver on loopback; only name
 * resolution is replaced (the outside network).
 */

const now = () => new Date();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(allowHosts: string) {
  const temp = createTempDir('mmds-side-doors-');
  cleanups.push(() => temp.remove());
  const env = { MMDS_DATA_DIR: temp.dir, MMDS_STORAGE: 'file', MMDS_HOOKS_ALLOW_HOSTS: allowHosts };
  const storage = createStateStorage('file', temp.dir);
  cleanups.push(() => storage.dispose());
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.close());
  const issued = await runMmds(
    ['--json', 'keys', 'issue', '--org', 'r', '--scopes', 'cot:history'],
    env,
    now,
  );
  expect(issued.code, issued.stderr).toBe(0);
  const key = (JSON.parse(issued.stdout) as { id: string }).id;
  const hook = async (url: string) => {
    const run = await runMmds(
      ['--json', 'hooks', 'add', '--key', key, '--url', url, '--series', '*'],
      env,
      now,
    );
    expect(run.code, `${url}: ${run.stderr}`).toBe(0);
    return (JSON.parse(run.stdout) as { id: string }).id;
  };
  const record = async (id: string) => (await createHookStore(storage).get(id))!;
  return { env, storage, receiver, key, hook, record };
}

function event(n: number): ReleaseEvent {
  const snapshot = '20261127T030000Z-1a2b3c4d';
  return {
    id: `${snapshot}:${n}`,
    type: 'release.published',
    snapshot,
    source: 'ecb',
    series: null,
    observed_at: formatTimestamp(new Date()),
    public: true,
    data: { n },
  };
}

/** Fails naming the line when a log line holds any of the receivers' hosts or ports. */
function expectNoReceiver(lines: string[], secrets: { hosts: string[]; ports: number[] }): void {
  for (const line of lines) {
    for (const host of secrets.hosts) expect(line, line).not.toContain(host);
    for (const port of secrets.ports) expect(line, line).not.toContain(`:${port}`);
  }
}

describe('webhook targets carrying a refused IPv4 address', () => {
  it('are refused by hooks add, with one line naming the address carried', async () => {
    const s = await setup('');
    for (const [host, carried] of [
      ['[::127.0.0.1]', '127.0.0.1'],
      ['[64:ff9b::7f00:1]', '127.0.0.1'],
      ['[2002:7f00:1::]', '127.0.0.1'],
      ['[2001:0:4136:e378:8000:63bf:f5ff:fffe]', '10.0.0.1'],
    ]) {
      const argv = ['hooks', 'add', '--key', s.key, '--url', `https://${host}/h`, '--series', '*'];
      const run = await runMmds(argv, s.env, now);
      expect(run.code, host).toBe(2);
      expect(linesOf(run.stderr), host).toEqual([
        expect.stringMatching(new RegExp(`^mmds: --url: refused address .* \\(carrying ${carried}\\): `)),
      ]);
    }
    expect(await s.storage.getKeys('hooks')).toEqual([]);
  });

  it('are dead-lettered at delivery: a name resolving to one, and a literal never connected to', async () => {
    // The literal was allowed when it was added (an operator's exception since withdrawn).
    const s = await setup('2002:7f00:1::');
    const named = await s.hook('https://dns64.example/h');
    const literal = await s.hook(`http://[2002:7f00:1::]:${new URL(s.receiver.url).port}/h`);
    // A DNS64 resolver answers an A record 169.254.169.254 with this synthesised address.
    const lookup: LookupFunction = (_host, _options, callback) =>
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '64:ff9b::a9fe:a9fe', family: 6 },
      ]);
    const deliverer = createDeliverer({
      storage: s.storage,
      feed: arrayFeed([event(1)]),
      policy: STRICT_POLICY,
      schedule: [40],
      timeoutMs: 2_000,
      lookup,
    });
    await deliverer.runOnce();
    expect(s.receiver.received).toEqual([]);
    expect((await s.record(named)).dead_letters).toEqual([
      expect.objectContaining({
        attempts: 1,
        reason: expect.stringMatching(
          /^refused address 64:ff9b::a9fe:a9fe \(carrying 169\.254\.169\.254\): /,
        ),
      }),
    ]);
    expect((await s.record(literal)).dead_letters).toEqual([
      expect.objectContaining({
        attempts: 1,
        reason: expect.stringMatching(/^refused address 2002:7f00:1:: \(carrying 127\.0\.0\.1\): /),
      }),
    ]);
  });
});

describe('delivery log lines', () => {
  it('of mmds deliver name the subscription and an error code, never the receiver', async () => {
    const s = await setup('127.0.0.1');
    const closed = await closedPort();
    const port = Number(new URL(s.receiver.url).port);
    s.receiver.script('/failing', [{ status: 500 }]);
    const hooks = {
      failing: await s.hook(`${s.receiver.url}/failing`),
      closed: await s.hook(`http://127.0.0.1:${closed}/h`),
      refused: await s.hook(`${s.receiver.url}/refused`),
    };
    // One small publish, so that the real event log holds an event.
    const [header, newest] = readFileSync(
      join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv'),
      'utf8',
    ).split('\n');
    const csv = join(s.env.MMDS_DATA_DIR, 'ecb-one-day.csv');
    writeFileSync(csv, `${header}\n${newest}\n`);
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'ecb', csv],
      ['publish'],
    ]) {
      const run = await runMmds(argv, s.env, now);
      expect(run.code, run.stderr).toBe(0);
    }
    const snapshot = readFileSync(join(s.env.MMDS_DATA_DIR, 'CURRENT'), 'utf8').trim();
    for (const id of Object.values(hooks))
      expect((await runMmds(['hooks', 'replay', id, '--since', `${snapshot}:0`], s.env, now)).code).toBe(0);
    // /refused is delivered to alone, by a deliverer that no longer allows 127.0.0.1.
    const pause = async (action: string, ids: string[]) => {
      for (const id of ids) expect((await runMmds(['hooks', action, id], s.env, now)).code).toBe(0);
    };
    await pause('pause', [hooks.refused]);
    const first = await runMmds(['deliver', '--once'], s.env, now);
    await pause('pause', [hooks.failing, hooks.closed]);
    await pause('resume', [hooks.refused]);
    const strict = { ...s.env, MMDS_HOOKS_ALLOW_HOSTS: '' };
    const runs = [first, await runMmds(['deliver', '--once'], strict, now)];
    const lines = runs.flatMap((run) => linesOf(run.stdout));
    const attempts = lines
      .map((line) => JSON.parse(line) as { event: string; hook: string; outcome: unknown })
      .filter((entry) => entry.event === 'webhook_attempt');
    const outcomes = (id: string) => new Set(attempts.filter((a) => a.hook === id).map((a) => a.outcome));
    expect(outcomes(hooks.failing)).toContain(500);
    expect(outcomes(hooks.closed)).toContain('ECONNREFUSED');
    expect(outcomes(hooks.refused)).toContain('EREFUSEDADDRESS');
    expectNoReceiver(lines, { hosts: ['127.0.0.1', 'localhost'], ports: [port, closed] });
    // The operator's own view keeps the detail.
    expect((await s.record(hooks.closed)).pending?.last_error).toContain(`127.0.0.1:${closed}`);
  });

  it('of a deliverer hold no host name for a failed lookup, a refused name or a time-out', async () => {
    const s = await setup('127.0.0.1');
    s.receiver.script('/hung', [{ status: 0 }]);
    const unknown = await s.hook('https://unknown-host.example/h');
    const privateName = await s.hook('https://private-name.example/h');
    const hung = await s.hook(`${s.receiver.url}/hung`);
    const lookup: LookupFunction = (host, _options, callback) => {
      if (host === 'unknown-host.example')
        return callback(
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host }),
          '',
          0,
        );
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '10.20.30.40', family: 4 },
      ]);
    };
    const lines: string[] = [];
    const deliverer = createDeliverer({
      storage: s.storage,
      feed: arrayFeed([event(1)]),
      policy: parseAllowHosts('127.0.0.1'),
      schedule: [60_000],
      timeoutMs: 300,
      lookup,
      // As mmds deliver writes them.
      log: (entry) => lines.push(JSON.stringify({ ts: new Date().toISOString(), ...entry })),
    });
    await deliverer.runOnce();
    const outcome = (id: string) =>
      lines.map((line) => JSON.parse(line)).find((entry) => entry.hook === id)?.outcome as unknown;
    expect([outcome(unknown), outcome(privateName), outcome(hung)]).toEqual([
      'ENOTFOUND',
      'EREFUSEDADDRESS',
      'ETIMEOUT',
    ]);
    expectNoReceiver(lines, {
      hosts: ['unknown-host.example', 'private-name.example', '10.20.30.40', '127.0.0.1'],
      ports: [Number(new URL(s.receiver.url).port)],
    });
  });
});

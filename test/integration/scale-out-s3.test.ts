import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { logKey, readLogEntry } from '../../src/store/object-store/bucket-log.ts';
import type { ObjectStore } from '../../src/store/object-store/object-store.ts';
import { linesOf, spawnMmds } from '../e2e/cli/spawn-mmds.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../helpers/paths.ts';
import { openGatewayStore, type RadosGateway, startRadosGateway } from '../helpers/radosgw.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { type ServeProcess, spawnServe } from '../helpers/spawn-serve.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * Scale-out over a real S3 server (Ceph's RADOS Gateway) and a real Redis: three `mmds serve
 * --from` instances behind a round-robin client while `mmds publish --to` (its own process, as a
 * publisher is) commits ten incremental publishes, each one more real ECB day. The instances poll
 * the log only every ten minutes: they switch because the publisher's Redis message wakes them.
 */
const temp = createTempDir('mmds-scale-out-');
const publisherDir = join(temp.dir, 'publisher');
const PREFIX = 'fleet/prod';
const INSTANCES = 3;
const PUBLISHES = 10;
/** What the test allows from commit to all three instances serving (measured: see the log line). */
const SWITCH_BOUND_MS = 5_000;
/** The newest days of the sample's real ECB history are held back and ingested one per publish. */
const HELD_BACK = PUBLISHES + 2;
const ECB_HISTORY = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');

let gateway: RadosGateway;
let redis: RedisServer;
let store: ObjectStore;
let url: string;
let env: Record<string, string>;
let key: string;
const servers: ServeProcess[] = [];
/** One file per held-back day (header and that day's row), oldest first. */
let dayFiles: string[];
let nextDay = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ingests the next held-back ECB day into the publisher's store (in process: not timed). */
async function ingestNextDay(): Promise<void> {
  const run = await runMmds(['ingest', 'ecb', dayFiles[nextDay++]!], env, () => new Date());
  expect(run.code, run.stderr).toBe(0);
}

/**
 * Runs `mmds publish --to` as its own process, and meanwhile looks for its log entry every 10 ms:
 * the time the commit was first seen (the commit itself is at most one look earlier).
 */
async function publishTimed(seq: number): Promise<{ stdout: string; stderr: string; committedAt: number }> {
  let committedAt = 0;
  let publishing = true;
  const watch = (async () => {
    while (publishing && committedAt === 0) {
      if (await store.head(logKey(seq))) committedAt = Date.now();
      else await sleep(10);
    }
  })();
  const run = await spawnMmds(['publish', '--to', url], env);
  publishing = false;
  await watch;
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`as log entry ${seq}`);
  expect(committedAt, 'the log entry was never seen').toBeGreaterThan(0);
  return { stdout: run.stdout, stderr: run.stderr, committedAt };
}

/** The time (ms) each instance logged its switch to `snapshot`, waiting up to `timeoutMs`. */
async function switchTimes(snapshot: string, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const times = servers.map((server) => {
      const line = server.stdout.find(
        (text) => text.includes('"snapshot_switched"') && text.includes(`"snapshot":"${snapshot}"`),
      );
      return line ? Date.parse((JSON.parse(line) as { ts: string }).ts) : null;
    });
    if (times.every((time) => time !== null)) return times as number[];
    if (Date.now() > deadline)
      throw new Error(
        `not every instance switched to ${snapshot} within ${timeoutMs} ms:\n` +
          servers.map((server, i) => `--- instance ${i}\n${server.stdout.slice(-8).join('\n')}`).join('\n'),
      );
    await sleep(20);
  }
}

/** The ms below which `share` of the values lie (nearest rank). */
function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

async function getStatus(server: ServeProcess) {
  const response = await fetch(`${server.url}/api/v1/status`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await response.json()) as { data: { snapshot: { id: string }; replica: unknown } };
  return { status: response.status, snapshot: response.headers.get('x-snapshot-id'), body };
}

beforeAll(async () => {
  [gateway, redis] = await Promise.all([startRadosGateway(), startRedis()]);
  console.log(`radosgw up in ${gateway.startMs} ms`);
  url = `s3://${gateway.bucket}/${PREFIX}`;
  env = {
    ...gateway.env,
    MMDS_DATA_DIR: publisherDir,
    MMDS_DIST_DIR: join(temp.dir, 'no-dist'),
    MMDS_STORAGE: redis.url,
  };
  store = openGatewayStore(gateway, PREFIX);
  // The real history without its newest days (the file is newest first), and one file per day.
  const [header, ...rows] = readFileSync(ECB_HISTORY, 'utf8').split('\n');
  const held = rows.slice(0, HELD_BACK).reverse();
  writeFileSync(join(temp.dir, 'ecb-history.csv'), [header, ...rows.slice(HELD_BACK)].join('\n'));
  dayFiles = held.map((row, i) => {
    const file = join(temp.dir, `ecb-day-${i}.csv`);
    writeFileSync(file, `${header}\n${row}\n`);
    return file;
  });
  const now = () => new Date();
  for (const argv of [
    ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
    ['ingest', 'ecb', join(temp.dir, 'ecb-history.csv')],
  ]) {
    const run = await runMmds(argv, env, now);
    expect(run.code, run.stderr).toBe(0);
  }
  const issued = await runMmds(
    [
      '--json',
      'keys',
      'issue',
      '--org',
      'Scale-out test',
      '--scopes',
      'observations:read',
      '--rate-limit',
      '100000',
    ],
    env,
    now,
  );
  expect(issued.code, issued.stderr).toBe(0);
  key = (JSON.parse(issued.stdout) as { key: string }).key;
  const first = await runMmds(['publish', '--to', url], env, now);
  expect(first.stdout, first.stderr).toContain('as log entry 1');
  const firstId = (await readLogEntry(store, 1)).snapshot_id;
  servers.push(
    ...(await Promise.all(
      Array.from({ length: INSTANCES }, (_, i) =>
        spawnServe(
          {
            ...gateway.env,
            MMDS_DATA_DIR: join(temp.dir, `instance-${i}`),
            MMDS_DIST_DIR: join(temp.dir, 'no-dist'),
            MMDS_STORAGE: redis.url,
            // Ten minutes: a switch within seconds can only come from the Redis message.
            MMDS_SNAPSHOT_POLL_MS: '600000',
            MMDS_SNAPSHOT_WAIT_MS: '5000',
            PORT: '0',
          },
          ['--from', url],
        ),
      ),
    )),
  );
  // At start each instance reads the log once and pulls entry 1.
  await switchTimes(firstId, 30_000);
}, 180_000);

afterAll(async () => {
  await Promise.all(
    servers.map(async (server) => {
      server.child.kill('SIGTERM');
      await server.exited;
    }),
  );
  store?.close();
  await Promise.all([gateway?.stop(), redis?.stop()]);
  temp.remove();
});

describe('three mmds serve --from instances, one bucket, one Redis', () => {
  it('ten publishes under a round-robin client: 0 × 5xx, every instance on each commit within the bound, no snapshot goes backwards', async () => {
    const seen: Array<{ instance: number; status: number; snapshot: string | null; sent: string | null }> =
      [];
    let clientRunning = true;
    const client = (async () => {
      // Sends back the X-Snapshot-Id it last saw, as a client that wants monotonic reads does.
      let last: string | null = null;
      for (let i = 0; clientRunning; i++) {
        const instance = i % INSTANCES;
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        if (last) headers['x-snapshot-id'] = last;
        try {
          const response = await fetch(`${servers[instance]!.url}/api/v1/status`, { headers });
          await response.arrayBuffer();
          const snapshot = response.headers.get('x-snapshot-id');
          seen.push({ instance, status: response.status, snapshot, sent: last });
          if (response.status === 200 && snapshot) last = snapshot;
        } catch {
          seen.push({ instance, status: 0, snapshot: null, sent: last });
        }
      }
    })();
    const latencies: number[] = [];
    try {
      for (let n = 0; n < PUBLISHES; n++) {
        await ingestNextDay();
        const seq = n + 2;
        const { committedAt } = await publishTimed(seq);
        const id = (await readLogEntry(store, seq)).snapshot_id;
        const times = await switchTimes(id, 30_000);
        latencies.push(Math.max(...times) - committedAt);
        // And each instance answers from it now.
        for (const server of servers) expect((await getStatus(server)).snapshot).toBe(id);
      }
    } finally {
      clientRunning = false;
      await client;
    }
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    console.log(
      `commit to all ${INSTANCES} instances serving, over ${PUBLISHES} publishes: p50 ${p50} ms, p99 ${p99} ms ` +
        `(each: ${latencies.join(', ')} ms); ${seen.length} client requests`,
    );
    expect(
      latencies.every((ms) => ms < SWITCH_BOUND_MS),
      latencies.join(', '),
    ).toBe(true);
    expect(seen.filter((entry) => entry.status === 0 || entry.status >= 500)).toEqual([]);
    expect(seen.length).toBeGreaterThan(PUBLISHES * INSTANCES);
    // Every answer came from the snapshot the client sent back or a newer one (the log's order).
    const seqOf = new Map<string, number>();
    for (let seq = 1; seq <= PUBLISHES + 1; seq++)
      seqOf.set((await readLogEntry(store, seq)).snapshot_id, seq);
    const backwards = seen.filter(
      (entry) =>
        entry.status === 200 && entry.sent !== null && seqOf.get(entry.snapshot!)! < seqOf.get(entry.sent)!,
    );
    expect(backwards).toEqual([]);
    // Each instance logged its ten switches, in the log's order, and pulled nothing twice.
    for (const server of servers) {
      const switched = server.stdout
        .map((line) => JSON.parse(line) as { event?: string; snapshot?: string })
        .filter((entry) => entry.event === 'snapshot_switched')
        .map((entry) => seqOf.get(entry.snapshot!));
      expect(switched).toEqual(Array.from({ length: PUBLISHES + 1 }, (_, i) => i + 1));
    }
  }, 480_000);

  it('/api/v1/status on each instance: the store, the log head it knows, its own seq, not behind', async () => {
    const head = PUBLISHES + 1;
    for (const [i, server] of servers.entries()) {
      const { status, snapshot, body } = await getStatus(server);
      expect(status).toBe(200);
      expect(body.data.snapshot.id).toBe(snapshot);
      expect(body.data.replica, `instance ${i}`).toMatchObject({
        store: url,
        log_seq: head,
        seq: head,
        behind_commits: 0,
        behind_seconds: 0,
        last_error: null,
      });
      expect(JSON.stringify(body.data.replica)).not.toContain(gateway.secretAccessKey);
      expect(readCurrentId(resolveLayout(join(temp.dir, `instance-${i}`)))).toBe(snapshot);
    }
    // The status page says it in words.
    const page = await fetch(`${servers[0]!.url}/status/`, { headers: { authorization: `Bearer ${key}` } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(`<code>${url}</code>: commit ${head} of ${head}`);
    expect(html).toContain('<dt>Behind the log</dt><dd>up to date</dd>');
  });

  it('Redis down: the publish still commits and says so in one line; the instances log it once, and are woken again once Redis is back', async () => {
    await redis.stop();
    await ingestNextDay();
    const run = await publishTimed(PUBLISHES + 2);
    const warnings = linesOf(run.stderr).filter((line) => line.includes('could not tell the followers'));
    expect(warnings, run.stderr).toHaveLength(1);
    expect(warnings[0]).toContain(`committed log entry ${PUBLISHES + 2}`);
    expect(warnings[0]).toContain(`redis://127.0.0.1:${redis.port}`);
    // Each instance says once that it polls only, however often ioredis tries to reconnect.
    await sleep(1_500);
    const wakeEvents = (server: ServeProcess) =>
      server.stdout
        .map((line) => JSON.parse(line) as { event?: string; subscribed?: boolean })
        .filter((entry) => entry.event === 'store_wake');
    for (const server of servers)
      expect(wakeEvents(server).map((entry) => entry.subscribed)).toEqual([true, false]);
    await redis.restart();
    const deadline = Date.now() + 15_000;
    while (!servers.every((server) => wakeEvents(server).length === 3)) {
      if (Date.now() > deadline) throw new Error('the instances did not subscribe again');
      await sleep(50);
    }
    // The next commit wakes them; they pull the log's newest entry, which includes the one
    // committed while Redis was down.
    await ingestNextDay();
    await publishTimed(PUBLISHES + 3);
    const newest = (await readLogEntry(store, PUBLISHES + 3)).snapshot_id;
    await switchTimes(newest, SWITCH_BOUND_MS);
  });
});

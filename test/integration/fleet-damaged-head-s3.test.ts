import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { manifestFiles, readCurrentId, readManifest } from '../../src/store/manifest.ts';
import { logKey, objectKey } from '../../src/store/object-store/bucket-log.ts';
import type { ObjectStore } from '../../src/store/object-store/object-store.ts';
import { SAMPLE_DATA } from '../helpers/paths.ts';
import { openGatewayStore, type RadosGateway, startRadosGateway } from '../helpers/radosgw.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { type ServeProcess, spawnServe } from '../helpers/spawn-serve.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * A fleet past a damaged newest commit, on a real S3 server (Ceph's RADOS Gateway, one for the
 * file) with real `mmds serve --from` processes: commit 3 has a damaged Parquet object, so an
 * instance on an empty disk serves commit 2 and says it is one behind, also after a restart; a
 * request naming commit 3 is told about the damage at once; a garbage log entry neither stops
 * `mmds publish --to` nor the followers.
 */
let gateway: RadosGateway;
let store: ObjectStore;
let url: string;
let env: Record<string, string>;
const temp = createTempDir('mmds-fleet-damaged-');
const publisherDir = join(temp.dir, 'publisher');
const PREFIX = 'fleet/damaged';
/** A request naming a snapshot on its way waits this long: the damaged one must not. */
const WAIT_MS = 5_000;
/** Snapshot ids of log entries 1 to 3, and the object of commit 3 that is damaged. */
const ids: string[] = [];
let victim: string;
let victimBytes: Buffer;
const running: ServeProcess[] = [];

const at = (iso: string) => () => new Date(iso);

async function ok(argv: string[], now: () => Date) {
  const run = await runMmds(argv, env, now);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

/** Starts a follower of the bucket on `dir`, polling the log every 100 ms. */
async function follow(dir: string): Promise<ServeProcess> {
  const server = await spawnServe(
    {
      ...gateway.env,
      MMDS_DATA_DIR: dir,
      MMDS_DIST_DIR: join(temp.dir, 'no-dist'),
      MMDS_STORAGE: 'memory',
      MMDS_SNAPSHOT_POLL_MS: '100',
      MMDS_SNAPSHOT_WAIT_MS: String(WAIT_MS),
      PORT: '0',
    },
    ['--from', url],
  );
  running.push(server);
  return server;
}

async function stop(server: ServeProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

/**
 * Waits for the follower's `snapshot_switched` to `id` (its log, not requests: polling /status
 * would run into the anonymous rate limit), then checks that /status answers from it; the
 * milliseconds it took.
 */
async function servingAfter(server: ServeProcess, id: string): Promise<number> {
  const started = Date.now();
  const switched = () =>
    server.stdout.some((line) => line.includes('"snapshot_switched"') && line.includes(`"snapshot":"${id}"`));
  while (!switched()) {
    if (Date.now() - started > 30_000)
      throw new Error(`not serving ${id} within 30 s; log:\n${server.stdout.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = Date.now() - started;
  const response = await fetch(`${server.url}/api/v1/status`);
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-snapshot-id')).toBe(id);
  return elapsed;
}

async function replicaOf(server: ServeProcess): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/api/v1/status`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { replica: Record<string, unknown> } }).data.replica;
}

/** The store_pull_failed lines a follower logged that mention `text`. */
const failures = (server: ServeProcess, text: string) =>
  server.stdout.filter((line) => line.includes('"store_pull_failed"') && line.includes(text));

beforeAll(async () => {
  gateway = await startRadosGateway();
  env = { MMDS_DATA_DIR: publisherDir, MMDS_DIST_DIR: join(temp.dir, 'dist'), ...gateway.env };
  url = `s3://${gateway.bucket}/${PREFIX}`;
  store = openGatewayStore(gateway, PREFIX);
  const steps: Array<[string[], string]> = [
    [['ingest', 'catalog', join(SAMPLE_DATA, '../catalog/catalog.yaml')], '2026-11-23T12:00:00Z'],
    [['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml')], '2026-11-23T12:00:00Z'],
    [['publish', '--to', url], '2026-11-23T12:00:00Z'],
    [
      ['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')],
      '2026-11-24T12:00:00Z',
    ],
    [['publish', '--to', url], '2026-11-24T12:00:00Z'],
    [['ingest', 'm49', join(SAMPLE_DATA, 'reference/unsd_m49_overview_en.csv')], '2026-11-25T12:00:00Z'],
    [['publish', '--to', url], '2026-11-25T12:00:00Z'],
  ];
  const layout = resolveLayout(publisherDir);
  for (const [argv, now] of steps) {
    await ok(argv, at(now));
    if (argv[0] === 'publish') ids.push(readCurrentId(layout)!);
  }
  // A Parquet object only commit 3 has, its bytes flipped in the bucket.
  const older = new Set(manifestFiles(readManifest(layout, ids[1]!)).map((file) => file.sha256));
  const file = manifestFiles(readManifest(layout, ids[2]!)).find(
    (one) => !older.has(one.sha256) && one.file.endsWith('.parquet'),
  )!;
  victim = file.sha256;
  victimBytes = readFileSync(join(snapshotDir(layout, ids[2]!), file.file));
  const damaged = Buffer.from(victimBytes);
  damaged[damaged.length >> 1]! ^= 0xff;
  await store.put(objectKey(victim), damaged);
}, 240_000);

afterAll(async () => {
  await Promise.all(running.map((server) => stop(server).catch(() => {})));
  store?.close();
  await gateway?.stop();
  temp.remove();
});

describe('a fleet past a damaged newest commit', () => {
  const followerDir = join(temp.dir, 'follower');
  let follower: ServeProcess;

  it('an instance on an empty disk serves the newest intact commit and says it is one behind', async () => {
    const started = Date.now();
    follower = await follow(followerDir);
    const ms = await servingAfter(follower, ids[1]!);
    console.log(
      `empty disk, damaged head: serving commit 2 ${Date.now() - started} ms after spawn (${ms} ms after listening)`,
    );
    expect(await replicaOf(follower)).toMatchObject({
      store: url,
      log_seq: 3,
      seq: 2,
      behind_commits: 1,
      behind_seconds: expect.any(Number),
      last_error: { message: expect.stringContaining(objectKey(victim)) },
    });
    // Polled every 100 ms, the damage is one log line, not one per poll.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(failures(follower, victim)).toHaveLength(1);
  });

  it('a request naming the damaged commit: 503 at once, naming the damage', async () => {
    const started = Date.now();
    const response = await fetch(`${follower.url}/api/v1/status`, { headers: { 'X-Snapshot-Id': ids[2]! } });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(elapsed).toBeLessThan(WAIT_MS / 5);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toContain(ids[2]);
    expect(body.error.message).toContain(`${objectKey(victim)}`);
    expect(body.error.message).toContain('is damaged');
    expect(body.error.message).not.toContain('on its way');
  });

  it('an X-Snapshot-Id of no snapshot is a 400 in the envelope; an older one of the store is answered', async () => {
    const get = (id: string) => fetch(`${follower.url}/api/v1/status`, { headers: { 'X-Snapshot-Id': id } });
    const unknown = await get('19700101T000000Z-00000000');
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_parameter' });
    expect(body.error.message).toContain('19700101T000000Z-00000000 is not a snapshot of this service');
    // Commit 1 was never on this disk: it is still an older snapshot of this store.
    const older = await get(ids[0]!);
    expect(older.status).toBe(200);
    expect(older.headers.get('x-snapshot-id')).toBe(ids[1]);
  });

  it('after a restart /status still says seq and behind_commits, from the first request', async () => {
    await stop(follower);
    follower = await follow(followerDir);
    const replica = await replicaOf(follower);
    expect(replica).toMatchObject({ log_seq: 3, seq: 2, behind_commits: 1 });
    expect(replica.behind_commits).toBeGreaterThan(0);
  });

  it('a garbage log entry: followers skip it, publish --to warns once and commits the next seq', async () => {
    await store.put(logKey(4), 'not a log entry\n');
    // A new instance on an empty disk starts past it (and past the damaged commit 3).
    const fresh = await follow(join(temp.dir, 'fresh'));
    await servingAfter(fresh, ids[1]!);
    expect(await replicaOf(fresh)).toMatchObject({ log_seq: 3, seq: 2, behind_commits: 1 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(failures(fresh, logKey(4))).toHaveLength(1);
    // The operator repairs the object (the next publish would reuse it as it is: docs/operations.md).
    await store.put(objectKey(victim), victimBytes);
    await ok(
      ['ingest', 'countries', join(SAMPLE_DATA, 'reference/country-codes.csv')],
      at('2026-11-26T12:00:00Z'),
    );
    const run = await ok(['publish', '--to', url], at('2026-11-26T12:00:00Z'));
    const warnings = run.stderr.split('\n').filter((line) => line.includes('/log/'));
    expect(warnings, run.stderr).toEqual([
      `warning: ${url}/${logKey(4)} is not JSON: passed over (followers skip it too); the next commit is log entry 5`,
    ]);
    const newest = readCurrentId(resolveLayout(publisherDir))!;
    expect(run.stdout).toContain(`committed snapshot ${newest} to ${url} as log entry 5`);
    for (const server of [follower, fresh]) {
      await servingAfter(server, newest);
      expect(await replicaOf(server)).toMatchObject({
        log_seq: 5,
        seq: 5,
        behind_commits: 0,
        last_error: null,
      });
    }
  });
});

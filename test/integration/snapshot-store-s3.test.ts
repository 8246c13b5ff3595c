import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { listBatches } from '../../src/store/batches.ts';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { manifestFiles, readCurrentId, readManifest } from '../../src/store/manifest.ts';
import {
  logKey,
  objectKey,
  readLogEntry,
  readLogHead,
  sha256Of,
} from '../../src/store/object-store/bucket-log.ts';
import type { ObjectStore } from '../../src/store/object-store/object-store.ts';
import { pullLatestSnapshot } from '../../src/store/object-store/pull-snapshot.ts';
import { verifySnapshotFiles } from '../../src/store/verify-files.ts';
import { startUpdatePublisher, type UpdatePublisher } from '../e2e/pipeline/update-publisher.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../helpers/paths.ts';
import { openGatewayStore, type RadosGateway, startRadosGateway } from '../helpers/radosgw.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/**
 * `mmds publish --to s3://…` against a real S3 server (Ceph's RADOS Gateway, started once for the
 * file): content-addressed upload, incremental upload, and the create-only commit with two
 * publishers racing for one log entry; and `mmds update` with MMDS_SNAPSHOT_STORE.
 */
let gateway: RadosGateway;
let store: ObjectStore;
const temp = createTempDir('mmds-s3-publish-');
const dataDir = join(temp.dir, 'a');
const PREFIX = 'snapshots/test';
const followerLayout = resolveLayout(join(temp.dir, 'follower'));
let env: Record<string, string>;
/** The data directory of the publisher that lost the race (its snapshot not committed). */
let loserEnv: Record<string, string>;
let url: string;

const at = (iso: string) => () => new Date(iso);

async function ok(argv: string[], environment = env, now = at('2026-11-23T12:00:00Z')) {
  const run = await runMmds(argv, environment, now);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

/** Snapshot files' sha256s of the current local snapshot. */
function currentFiles(dir: string) {
  const layout = resolveLayout(dir);
  const id = readCurrentId(layout)!;
  return { id, layout, files: manifestFiles(readManifest(layout, id)) };
}

beforeAll(async () => {
  gateway = await startRadosGateway();
  console.log(`radosgw up in ${gateway.startMs} ms`);
  env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(temp.dir, 'dist'), ...gateway.env };
  url = `s3://${gateway.bucket}/${PREFIX}`;
  store = openGatewayStore(gateway, PREFIX);
  await ok(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')]);
  await ok(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml')]);
}, 180_000);

afterAll(async () => {
  store?.close();
  await gateway?.stop();
  temp.remove();
});

describe('mmds publish --to s3://bucket/prefix', () => {
  it('uploads every file of the snapshot as objects/<sha256>, the manifest, then log entry 1 and CURRENT', async () => {
    const run = await ok(['publish', '--to', url]);
    const { id, layout, files } = currentFiles(dataDir);
    expect(run.stdout).toContain(`committed snapshot ${id} to ${url} as log entry 1`);
    const distinct = new Set(files.map((file) => file.sha256));
    expect((await store.list('objects/')).sort()).toEqual([...distinct].map(objectKey).sort());
    for (const file of files) {
      const bytes = (await store.get(objectKey(file.sha256)))!;
      expect(sha256Of(bytes), file.file).toBe(file.sha256);
      expect(bytes.equals(readFileSync(join(snapshotDir(layout, id), file.file))), file.file).toBe(true);
    }
    const entry = await readLogEntry(store, 1);
    expect(entry).toMatchObject({ seq: 1, snapshot_id: id, previous: null, files: files.length });
    const manifest = (await store.get(entry.manifest))!;
    expect(sha256Of(manifest)).toBe(entry.manifest_sha256);
    expect(manifest.equals(readFileSync(join(snapshotDir(layout, id), 'manifest.json')))).toBe(true);
    expect((await store.get('CURRENT'))!.toString()).toBe(`1 ${id}\n`);
  });

  it('run again with nothing new: uploads nothing and commits nothing', async () => {
    const before = await store.list('');
    const run = await ok(['publish', '--to', url]);
    expect(run.stdout).toMatch(/log entry 1 already names snapshot .*; nothing uploaded/);
    expect(await store.list('')).toEqual(before);
  });

  it('a follower with an empty data directory pulls the newest snapshot, verified, and can open it', async () => {
    const { id, files } = currentFiles(dataDir);
    const pulled = await pullLatestSnapshot(store, followerLayout, { keep: 5 });
    expect(pulled).toMatchObject({ status: 'pulled', seq: 1, snapshot_id: id });
    expect(pulled.downloaded.files).toBe(new Set(files.map((file) => file.sha256)).size);
    expect(pulled.downloaded.files + pulled.linked).toBe(files.length);
    expect(readCurrentId(followerLayout)).toBe(id);
    const manifest = readManifest(followerLayout, id);
    expect(await verifySnapshotFiles(snapshotDir(followerLayout, id), manifest)).toEqual([]);
    const db = await openSnapshotDb(followerLayout, id);
    try {
      expect(db.manifest.id).toBe(id);
    } finally {
      await db.close();
    }
    expect(await pullLatestSnapshot(store, followerLayout, { keep: 5 })).toMatchObject({
      status: 'current',
      seq: 1,
    });
  });

  it('an incremental publish uploads only the objects the bucket lacks', async () => {
    const before = new Set(await store.list('objects/'));
    await ok(['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv')]);
    const run = await ok(['--json', 'publish', '--to', url], env, at('2026-11-24T12:00:00Z'));
    const { id, files } = currentFiles(dataDir);
    const fresh = new Set(files.map((file) => objectKey(file.sha256)).filter((key) => !before.has(key)));
    const after = await store.list('objects/');
    expect(after.filter((key) => !before.has(key)).sort()).toEqual([...fresh].sort());
    const result = JSON.parse(run.stdout) as {
      store: { status: string; seq: number; uploaded: { files: number } };
    };
    expect(result.store).toMatchObject({ status: 'committed', seq: 2, uploaded: { files: fresh.size } });
    // Unchanged partitions were not uploaded again: fewer uploads than files.
    expect(fresh.size).toBeGreaterThan(0);
    expect(fresh.size).toBeLessThan(new Set(files.map((file) => file.sha256)).size);
    expect(await readLogEntry(store, 2)).toMatchObject({ snapshot_id: id, previous: expect.any(String) });
  });

  it('a damaged object is refused and the follower stays on its snapshot; repaired, it downloads only the new objects', async () => {
    const before = readCurrentId(followerLayout);
    const { id, layout, files } = currentFiles(dataDir);
    const local = new Set(manifestFiles(readManifest(followerLayout, before!)).map((file) => file.sha256));
    const missing = files.filter((file) => !local.has(file.sha256));
    expect(missing.length).toBeGreaterThan(0);
    const victim = missing[0]!;
    const good = readFileSync(join(snapshotDir(layout, id), victim.file));
    const damaged = Buffer.from(good);
    damaged[damaged.length >> 1]! ^= 0xff;
    await store.put(objectKey(victim.sha256), damaged);
    // The damaged commit is passed over: the follower stays on the commit before it and says why.
    const refused = await pullLatestSnapshot(store, followerLayout, { keep: 5 });
    expect(refused).toMatchObject({ status: 'current', seq: 1, snapshot_id: before });
    expect(refused.skipped).toEqual([
      {
        seq: 2,
        snapshot_id: id,
        message: expect.stringContaining(
          `objects/${victim.sha256} (${victim.file} of snapshot ${id}) is damaged`,
        ),
      },
    ]);
    expect(readCurrentId(followerLayout)).toBe(before);
    expect(readdirSync(followerLayout.snapshotsDir).filter((name) => name.startsWith('.staging'))).toEqual(
      [],
    );
    await store.put(objectKey(victim.sha256), good);
    const pulled = await pullLatestSnapshot(store, followerLayout, { keep: 5 });
    expect(pulled).toMatchObject({ status: 'pulled', seq: 2, snapshot_id: id });
    // Only the objects the follower lacked were downloaded; the rest are hard links.
    const lacking = new Set(missing.map((file) => file.sha256)).size;
    expect(pulled.downloaded.files).toBe(lacking);
    expect(pulled.linked).toBe(files.length - lacking);
    expect(
      await verifySnapshotFiles(snapshotDir(followerLayout, id), readManifest(followerLayout, id)),
    ).toEqual([]);
  });

  it('two publishers racing for one log entry: exactly one commits, the other exits 1 in one line', async () => {
    const other = join(temp.dir, 'b');
    cpSync(dataDir, other, { recursive: true });
    const envB = { ...env, MMDS_DATA_DIR: other };
    await ok(['ingest', 'm49', join(SAMPLE_DATA, 'reference/unsd_m49_overview_en.csv')]);
    await ok(['ingest', 'countries', join(SAMPLE_DATA, 'reference/country-codes.csv')], envB);
    const now = at('2026-11-25T12:00:00Z');
    // Both read the log's end (entry 2) before either commits: both aim at entry 3.
    const [a, b] = await Promise.all([
      runMmds(['publish', '--to', url], env, now),
      runMmds(['publish', '--to', url], envB, now),
    ]);
    const runs = [
      { run: a, dir: dataDir },
      { run: b, dir: other },
    ];
    const winners = runs.filter(({ run }) => run.code === 0);
    const losers = runs.filter(({ run }) => run.code !== 0);
    expect(winners, `${a.stderr}\n${b.stderr}`).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const loser = losers[0]!.run;
    expect(loser.code).toBe(1);
    // Progress and warnings aside, the failure is one line.
    const errors = loser.stderr.split('\n').filter((line) => line.startsWith('mmds: '));
    expect(errors, loser.stderr).toHaveLength(1);
    const message = errors[0]!;
    expect(message).toContain(`another publisher committed ${url}/${logKey(3)} first`);
    const winnerId = currentFiles(winners[0]!.dir).id;
    expect(message).toContain(winnerId);
    expect((await store.list('log/')).sort()).toEqual([logKey(1), logKey(2), logKey(3)]);
    expect(await readLogEntry(store, 3)).toMatchObject({ snapshot_id: winnerId });
    // The loser's local publish stands (the data directory is its source of truth).
    expect(currentFiles(losers[0]!.dir).id).not.toBe(winnerId);
    loserEnv = { ...env, MMDS_DATA_DIR: losers[0]!.dir };
  });

  it('mmds serve --from: starts on an empty disk, follows each commit with no 5xx, refuses a damaged object and keeps serving', async () => {
    const head = await readLogEntry(store, 3);
    const served = join(temp.dir, 'served');
    const server = await spawnServe(
      {
        ...gateway.env,
        MMDS_DATA_DIR: served,
        MMDS_DIST_DIR: join(temp.dir, 'no-dist'),
        MMDS_STORAGE: 'memory',
        MMDS_SNAPSHOT_POLL_MS: '100',
        PORT: '0',
      },
      ['--from', url],
    );
    try {
      const statuses: number[] = [];
      /** Polls /api/v1/status until it answers from `id`; the statuses it saw after the first 200. */
      const waitFor = async (id: string) => {
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline) {
          const response = await fetch(`${server.url}/api/v1/status`);
          await response.arrayBuffer();
          if (response.status === 200 || statuses.length > 0) statuses.push(response.status);
          if (response.headers.get('x-snapshot-id') === id) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`not serving ${id} within 30 s; log:\n${server.stdout.join('\n')}`);
      };
      await waitFor(head.snapshot_id);
      // The loser commits its snapshot after the winner's, as its message advised.
      const again = await ok(['publish', '--to', url], loserEnv);
      expect(again.stdout).toContain('as log entry 4');
      const next = (await readLogEntry(store, 4)).snapshot_id;
      await waitFor(next);
      // The next commit has a damaged object (the publisher keeps an object of the right name and
      // size that is already there): the instance refuses it and stays on `next`, then switches
      // once the object is repaired.
      const loserDir = loserEnv.MMDS_DATA_DIR!;
      await ok(
        ['ingest', 'tz', ...['zone1970.tab', 'zone.tab'].map((f) => join(SAMPLE_DATA, 'reference', f))],
        loserEnv,
      );
      await ok(['publish'], loserEnv, at('2026-11-26T12:00:00Z'));
      const { id: third, layout: loserLayout, files: thirdFiles } = currentFiles(loserDir);
      const inBucket = new Set(await store.list('objects/'));
      const victim = thirdFiles.find((file) => !inBucket.has(objectKey(file.sha256)))!;
      const good = readFileSync(join(snapshotDir(loserLayout, third), victim.file));
      const damaged = Buffer.from(good);
      damaged[damaged.length >> 1]! ^= 0xff;
      await store.put(objectKey(victim.sha256), damaged);
      expect((await ok(['publish', '--to', url], loserEnv)).stdout).toContain('as log entry 5');
      const deadline = Date.now() + 30_000;
      while (
        !server.stdout.some((line) => line.includes('store_pull_failed') && line.includes(victim.sha256))
      ) {
        if (Date.now() > deadline) throw new Error(`no store_pull_failed:\n${server.stdout.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const meanwhile = await fetch(`${server.url}/api/v1/status`);
      const { data } = (await meanwhile.json()) as { data: { replica: Record<string, unknown> } };
      expect(meanwhile.status).toBe(200);
      expect(meanwhile.headers.get('x-snapshot-id')).toBe(next);
      // /status says how far behind the log the instance is, and why.
      expect(data.replica).toMatchObject({
        store: url,
        log_seq: 5,
        seq: 4,
        behind_commits: 1,
        behind_seconds: expect.any(Number),
        last_error: { message: expect.stringContaining(`objects/${victim.sha256}`), at: expect.any(String) },
      });
      expect(data.replica.behind_seconds).toBeGreaterThanOrEqual(0);
      await store.put(objectKey(victim.sha256), good);
      await waitFor(third);
      const caughtUp = (await (await fetch(`${server.url}/api/v1/status`)).json()) as {
        data: { replica: Record<string, unknown> };
      };
      expect(caughtUp.data.replica).toMatchObject({
        log_seq: 5,
        seq: 5,
        behind_commits: 0,
        behind_seconds: 0,
        last_error: null,
      });
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      const events = server.stdout.map((line) => JSON.parse(line) as { event?: string; snapshot?: string });
      expect(events.filter((e) => e.event === 'store_pulled').map((e) => e.snapshot)).toEqual([
        head.snapshot_id,
        next,
        third,
      ]);
      expect(events.filter((e) => e.event === 'snapshot_switched').map((e) => e.snapshot)).toEqual([
        head.snapshot_id,
        next,
        third,
      ]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('monotonic reads: a follower asked for a snapshot committed ahead of it pulls at once and answers from it', async () => {
    const server = await spawnServe(
      {
        ...gateway.env,
        MMDS_DATA_DIR: join(temp.dir, 'lagging'),
        MMDS_DIST_DIR: join(temp.dir, 'no-dist'),
        MMDS_STORAGE: 'memory',
        // It would not poll again for ten minutes: only the request can make it pull.
        MMDS_SNAPSHOT_POLL_MS: '600000',
        MMDS_SNAPSHOT_WAIT_MS: '20000',
        PORT: '0',
      },
      ['--from', url],
    );
    try {
      const status = (headers: Record<string, string> = {}) =>
        fetch(`${server.url}/api/v1/status`, { headers });
      let before: string | null = null;
      for (const deadline = Date.now() + 30_000; before === null && Date.now() < deadline; ) {
        const response = await status();
        await response.arrayBuffer();
        if (response.status === 200) before = response.headers.get('x-snapshot-id');
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(before).toBe((await readLogHead(store))!.snapshot_id);
      // Something this store has not ingested yet: a new snapshot.
      await ok(
        ['ingest', 'mic', join(SAMPLE_DATA, 'reference/ISO10383_MIC.csv')],
        loserEnv,
        at('2026-11-26T13:00:00Z'),
      );
      await ok(['publish', '--to', url], loserEnv, at('2026-11-26T13:00:00Z'));
      const ahead = (await readLogHead(store))!.snapshot_id;
      expect(ahead).not.toBe(before);
      const unchanged = await status();
      expect(unchanged.headers.get('x-snapshot-id')).toBe(before);
      const response = await status({ 'X-Snapshot-Id': ahead });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-snapshot-id')).toBe(ahead);
      const bogus = await status({ 'X-Snapshot-Id': '20991231T000000Z-00000000' });
      expect(bogus.status).toBe(400);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('If-None-Match: * on the real server: of 20 concurrent creators of one key exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.putIfAbsent('race/one', `creator ${i}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.putIfAbsent('race/one', 'late')).toBe(false);
  });

  it('a bad location, a missing bucket or a wrong secret: one line saying what to do, the local CURRENT unchanged', async () => {
    const current = readCurrentId(resolveLayout(dataDir));
    const bad = await runMmds(['publish', '--to', 's3://Not_A_Bucket/x'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^.*--to: not a valid bucket name in "s3:\/\/Not_A_Bucket\/x"/);
    const missing = await runMmds(['publish', '--to', 's3://no-such-bucket/x'], env);
    expect(missing.code, missing.stderr).toBe(69);
    expect(missing.stderr.trim().split('\n'), missing.stderr).toHaveLength(1);
    expect(missing.stderr).toContain('s3://no-such-bucket/x');
    expect(missing.stderr).toContain('the bucket "no-such-bucket" does not exist');
    expect(missing.stderr).toContain('create it, or fix the s3:// location');
    const wrongSecret = { ...env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' };
    const denied = await runMmds(['publish', '--to', url], wrongSecret);
    expect(denied.code, denied.stderr).toBe(69);
    expect(denied.stderr.trim().split('\n'), denied.stderr).toHaveLength(1);
    expect(denied.stderr).toMatch(
      /access denied \(403 \w+\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
    );
    expect(readCurrentId(resolveLayout(dataDir))).toBe(current);
  });
});

/**
 * `mmds update` with MMDS_SNAPSHOT_STORE: its publish step is publish's, so the snapshot it
 * publishes (or one published earlier and not yet committed) is committed to the bucket. Its own
 * data directory and prefix; the sources are served by the loopback publisher of the update tests.
 */
describe('mmds update with MMDS_SNAPSHOT_STORE', () => {
  const updateDir = join(temp.dir, 'update');
  const UPDATE_PREFIX = 'snapshots/update';
  let served: UpdatePublisher;
  let updateEnv: Record<string, string>;
  let updateStore: ObjectStore;
  let updateUrl: string;
  const morning = at('2026-11-27T08:00:00Z');
  const update = (env: Record<string, string>, now = morning) =>
    runMmds(['--json', 'update', '--source', 'ecb', '--no-build'], env, now);

  beforeAll(async () => {
    served = await startUpdatePublisher();
    updateUrl = `s3://${gateway.bucket}/${UPDATE_PREFIX}`;
    updateEnv = { ...served.env(), ...gateway.env, MMDS_DATA_DIR: updateDir, MMDS_SNAPSHOT_STORE: updateUrl };
    updateStore = openGatewayStore(gateway, UPDATE_PREFIX);
    await ok(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], updateEnv);
  });
  afterAll(async () => {
    updateStore?.close();
    await served?.publisher.close();
  });

  it('a bad location is exit 2; a missing bucket is exit 69 in one line, before anything is fetched', async () => {
    const bad = await update({ ...updateEnv, MMDS_SNAPSHOT_STORE: 's3://Not_A_Bucket/x' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MMDS_SNAPSHOT_STORE: not a valid bucket name in "s3://Not_A_Bucket/x"');
    const missing = await update({ ...updateEnv, MMDS_SNAPSHOT_STORE: 's3://no-such-bucket/x' });
    expect(missing.code, missing.stderr).toBe(69);
    expect(missing.stderr.trim().split('\n'), missing.stderr).toHaveLength(1);
    expect(missing.stderr).toContain('the bucket "no-such-bucket" does not exist');
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'unavailable', exit_code: 69 } });
    // Nothing fetched, ingested, recorded or published.
    expect(served.publisher.requests).toEqual([]);
    expect(listBatches(resolveLayout(updateDir)).map((batch) => batch.source)).toEqual(['catalog']);
    expect(existsSync(join(updateDir, 'update-state.json'))).toBe(false);
    expect(readCurrentId(resolveLayout(updateDir))).toBeNull();
  });

  it('commits the snapshot it publishes to the bucket and reports it as publish --json does', async () => {
    const run = await update(updateEnv);
    expect(run.code, run.stderr).toBe(0);
    const { id, files } = currentFiles(updateDir);
    const report = JSON.parse(run.stdout) as { status: string; published: boolean; store: unknown };
    expect(report).toMatchObject({ status: 'updated', published: true, snapshot: id });
    expect(report.store).toEqual({
      status: 'committed',
      seq: 1,
      snapshot_id: id,
      uploaded: { files: new Set(files.map((file) => file.sha256)).size, bytes: expect.any(Number) },
      skipped: 0,
    });
    expect(await readLogEntry(updateStore, 1)).toMatchObject({ seq: 1, snapshot_id: id, previous: null });
    expect((await updateStore.get('CURRENT'))!.toString()).toBe(`1 ${id}\n`);
    const text = await runMmds(['update', '--source', 'ecb', '--no-build'], updateEnv, morning);
    expect(text.code, text.stderr).toBe(3);
    expect(text.stdout).toContain(`${updateUrl}: log entry 1 already names snapshot ${id}; nothing uploaded`);
  });

  it('commits a snapshot published without the bucket; with nothing new and committed, exit 3', async () => {
    const { MMDS_SNAPSHOT_STORE: _, ...local } = updateEnv;
    const nine = at('2026-11-27T09:00:00Z');
    await ok(['ingest', 'm49', join(SAMPLE_DATA, 'reference/unsd_m49_overview_en.csv')], local, nine);
    await ok(['publish'], local, nine);
    const { id } = currentFiles(updateDir);
    // ECB is not due again before its next release: nothing is fetched and nothing published.
    const run = await update(updateEnv, at('2026-11-27T10:00:00Z'));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'updated',
      published: false,
      snapshot: id,
      store: { status: 'committed', seq: 2, snapshot_id: id },
    });
    expect(await readLogEntry(updateStore, 2)).toMatchObject({
      snapshot_id: id,
      previous: expect.any(String),
    });
    const before = await updateStore.list('');
    const again = await update(updateEnv, at('2026-11-27T10:00:00Z'));
    expect(again.code, again.stderr).toBe(3);
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: 'nothing_new',
      store: { status: 'already', seq: 2, snapshot_id: id },
    });
    expect(await updateStore.list('')).toEqual(before);
  });
});

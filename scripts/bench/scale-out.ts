/**
 * Section j of the benchmark (issue 26 item 6): snapshots through S3-compatible storage to
 * several `mmds serve --from` instances.
 *
 * A real Ceph RADOS Gateway on loopback (test/helpers/radosgw.ts; the section is skipped with one
 * line when radosgw is not installed) and, when redis-server is installed, one Redis that the
 * instances share (keys, limits, and the publisher's wake-up message). The store holds the real
 * catalog, reference lists and ECB history without its newest days; `mmds publish --to` commits
 * it, then each release is one of those days (cut verbatim from eurofxref-hist.csv, oldest
 * first), ingested and published with `--to`.
 *
 * Measured:
 * - the first commit: files and bytes uploaded, and the publish's wall time;
 * - cold start: from the spawn of `mmds serve --from` on an empty data directory to its first
 *   200 from the committed snapshot, for each of the instances (started one after the other);
 * - per release: files and bytes uploaded by the incremental publish, and the time from the
 *   commit (the log entry seen in the bucket: this process polls it every 5 ms) to the first and
 *   to the last instance answering from the new snapshot (each polled every 5 ms);
 * - meanwhile a round-robin client over the instances that sends back the X-Snapshot-Id it last
 *   saw (monotonic reads): every status >= 500 and every answer from an older snapshot counted.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveLayout } from '../../src/store/layout.ts';
import { manifestFiles, readCurrentId, readManifest } from '../../src/store/manifest.ts';
import { logKey, readLogEnd } from '../../src/store/object-store/bucket-log.ts';
import { parseObjectStoreUrl, readS3Settings } from '../../src/store/object-store/object-store.ts';
import { publishToStore } from '../../src/store/object-store/publish-to-store.ts';
import { openS3Store } from '../../src/store/object-store/s3-store.ts';
import { startRadosGateway } from '../../test/helpers/radosgw.ts';
import { startRedis } from '../../test/helpers/redis-server.ts';
import { REAL_DATA_STEPS } from '../../test/helpers/snapshot-fixture.ts';
import { figures, type LatencyFigures } from './event-latency.ts';
import {
  issueBenchKey,
  readMemory,
  runMmds,
  runMmdsMeasured,
  type ServerProcess,
  serveWorkersArgs,
  startMmdsProcess,
  tryCommand,
} from './processes.ts';

/** What section j measured. */
export interface ScaleOutResult {
  instances: number;
  /** Whether the instances shared a Redis (and so were woken by the publisher's message). */
  redis: boolean;
  poll_ms: number;
  wait_ms: number;
  rgw_start_ms: number;
  first_commit: { seconds: number; files: number; bytes: number; snapshot_bytes: number };
  /** Spawn to the first 200 from the committed snapshot, per instance (ms). */
  cold_start_ms: number[];
  /** The released days, oldest first. */
  days: string[];
  /** Per release: what the incremental publish uploaded, and its wall time. */
  uploads: Array<{ day: string; files: number; bytes: number; publish_seconds: number }>;
  commit_to_first: LatencyFigures;
  commit_to_all: LatencyFigures;
  client: {
    requests: number;
    status_5xx: number;
    went_back: number;
    status_503: number;
    other_non_200: number;
  };
}

export interface ScaleOutOptions {
  log: (line: string) => void;
  servers: ServerProcess[];
  sharedData: string;
  releases: number;
  instances: number;
}

const PREFIX = 'mmds';
const PROBE = '/api/v1/series/eur-usd';

/** Runs section j in `dir`; null (with one line) when radosgw is not installed. */
export async function measureScaleOut(dir: string, options: ScaleOutOptions): Promise<ScaleOutResult | null> {
  const { log } = options;
  mkdirSync(dir, { recursive: true });
  let rgw: Awaited<ReturnType<typeof startRadosGateway>>;
  try {
    rgw = await startRadosGateway({ memstoreBytes: 2 * 2 ** 30 });
  } catch (error) {
    log(`j. skipped: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
  const redis = tryCommand('redis-server', ['--version']) !== null ? await startRedis() : null;
  const storeUrl = `s3://${rgw.bucket}/${PREFIX}`;
  const shared = {
    ...rgw.env,
    ...(redis ? { MMDS_STORAGE: redis.url } : {}),
    MMDS_SNAPSHOT_WAIT_MS: '5000',
  };
  const publisher = { ...shared, MMDS_DATA_DIR: join(dir, 'publisher') };
  const bucket = openS3Store(parseObjectStoreUrl(storeUrl), readS3Settings(rgw.env));
  const instances: ServerProcess[] = [];
  try {
    const history = join(options.sharedData, 'ecb/eurofxref-hist.csv');
    const [header, ...rows] = readFileSync(history, 'utf8').split('\n');
    const dated = rows.filter((line) => /^\d{4}-\d{2}-\d{2},/.test(line));
    const releaseDays = dated.slice(0, options.releases).reverse();
    const base = join(dir, 'ecb-base.csv');
    writeFileSync(base, [header, ...dated.slice(options.releases)].join('\n'));
    log(`j. RGW up in ${rgw.startMs} ms; ingesting the real catalog, lists and ECB history…`);
    for (const [source, ...files] of REAL_DATA_STEPS.slice(
      0,
      REAL_DATA_STEPS.findIndex(([s]) => s === 'ecb'),
    ))
      runMmds(['ingest', source!, ...files], publisher);
    runMmds(['ingest', 'ecb', base], publisher);
    const first = publishTo(storeUrl, publisher);
    // Keyed requests (a limit no probe reaches): 5 ms probes from one address would exhaust the
    // anonymous limit, which the instances share through Redis.
    const key = issueBenchKey(publisher, 'observations:read');
    const auth = { authorization: `Bearer ${key}` };
    log(
      `j. first commit: ${first.uploaded.files} files, ${first.uploaded.bytes} bytes in ${first.seconds.toFixed(1)} s`,
    );

    const cold: number[] = [];
    for (let i = 0; i < options.instances; i++) {
      const started = performance.now();
      const instance = await startMmdsProcess(
        ['serve', ...serveWorkersArgs(), '--from', storeUrl, '--port', '0', '--host', '127.0.0.1'],
        { ...shared, MMDS_DATA_DIR: join(dir, `instance-${i}`), MMDS_DIST_DIR: join(dir, 'no-dist') },
        /serving on http:\/\/127\.0\.0\.1:(\d+)/,
      );
      options.servers.push(instance);
      instances.push(instance);
      while ((await snapshotOf(instance.url, auth)) !== first.snapshot_id) await sleep(5);
      cold.push(performance.now() - started);
    }
    log(`j. cold starts: ${cold.map((ms) => Math.round(ms)).join(', ')} ms`);

    const client = roundRobin(
      instances.map((instance) => instance.url),
      auth,
    );
    const toFirst: number[] = [];
    const toAll: number[] = [];
    const uploads: ScaleOutResult['uploads'] = [];
    let seq = first.seq;
    let current = first.snapshot_id;
    for (const line of releaseDays) {
      const day = line.slice(0, 10);
      const file = join(dir, `ecb-${day}.csv`);
      writeFileSync(file, `${header}\n${line}\n`);
      runMmds(['ingest', 'ecb', file], publisher);
      seq++;
      const publishing = publishToAsync(storeUrl, publisher);
      let committedAt = Number.NaN;
      const seen = new Map<string, number>();
      while (seen.size < instances.length) {
        const now = performance.now();
        if (Number.isNaN(committedAt) && (await bucket.head(logKey(seq))) !== null) committedAt = now;
        await Promise.all(
          instances.map(async (instance) => {
            if (seen.has(instance.url)) return;
            const id = await snapshotOf(instance.url, auth);
            if (id !== null && id !== current) seen.set(instance.url, performance.now());
          }),
        );
        await sleep(5);
      }
      const published = await publishing;
      if (Number.isNaN(committedAt)) committedAt = published.exitedAt;
      const arrivals = [...seen.values()];
      toFirst.push(Math.max(0, Math.min(...arrivals) - committedAt));
      toAll.push(Math.max(0, Math.max(...arrivals) - committedAt));
      uploads.push({
        day,
        files: published.uploaded.files,
        bytes: published.uploaded.bytes,
        publish_seconds: published.seconds,
      });
      current = published.snapshot_id;
      log(
        `j. ${day}: uploaded ${published.uploaded.files} files, ${published.uploaded.bytes} bytes; all ${instances.length} instances on it ${Math.round(toAll.at(-1)!)} ms after the commit`,
      );
    }
    const counts = await client.stop();
    if (process.env.BENCH_DEBUG)
      for (const instance of instances)
        log(`j. ${instance.name} ${instance.url}:\n${instance.output().slice(-6000)}`);
    return {
      instances: instances.length,
      redis: redis !== null,
      poll_ms: 2000,
      wait_ms: 5000,
      rgw_start_ms: rgw.startMs,
      first_commit: {
        seconds: first.seconds,
        files: first.uploaded.files,
        bytes: first.uploaded.bytes,
        snapshot_bytes: first.snapshot_bytes,
      },
      cold_start_ms: cold,
      days: releaseDays.map((line) => line.slice(0, 10)),
      uploads,
      commit_to_first: figures(toFirst),
      commit_to_all: figures(toAll),
      client: counts,
    };
  } finally {
    for (const instance of instances) {
      await instance.stop();
      options.servers.splice(options.servers.indexOf(instance), 1);
    }
    bucket.close();
    await redis?.stop();
    await rgw.stop();
  }
}

/** The outcome of `mmds publish --to --json`. */
interface Published {
  seq: number;
  snapshot_id: string;
  uploaded: { files: number; bytes: number };
  snapshot_bytes: number;
  seconds: number;
  exitedAt: number;
}

function parsePublished(stdout: string, seconds: number): Published {
  const result = JSON.parse(stdout) as {
    store?: { seq: number; snapshot_id: string; uploaded: { files: number; bytes: number } };
  };
  if (!result.store) throw new Error(`j: mmds publish --to printed no store result: ${stdout.slice(0, 300)}`);
  return {
    seq: result.store.seq,
    snapshot_id: result.store.snapshot_id,
    uploaded: result.store.uploaded,
    snapshot_bytes: Number.NaN,
    seconds,
    exitedAt: performance.now(),
  };
}

function publishTo(storeUrl: string, env: Record<string, string>): Published {
  const run = runMmds(['publish', '--to', storeUrl, '--json'], env);
  const published = parsePublished(run.stdout, run.seconds);
  const layout = resolveLayout(env.MMDS_DATA_DIR!);
  const files = manifestFiles(readManifest(layout, published.snapshot_id));
  return { ...published, snapshot_bytes: files.reduce((sum, file) => sum + file.bytes, 0) };
}

/** The publish in a child process, leaving this event loop free to watch the bucket and instances. */
async function publishToAsync(storeUrl: string, env: Record<string, string>): Promise<Published> {
  const run = await runMmdsMeasured(['publish', '--to', storeUrl, '--json'], { env, timeoutS: 600 });
  if (!run.ok) throw new Error(`j: mmds publish --to failed: ${run.stderr_tail ?? run.exit_code}`);
  return parsePublished(run.stdout, run.seconds);
}

/** The X-Snapshot-Id of a 200 from an instance, or null (not ready, or no answer). */
async function snapshotOf(url: string, headers: Record<string, string>): Promise<string | null> {
  try {
    const response = await fetch(`${url}${PROBE}`, { headers });
    await response.arrayBuffer();
    return response.status === 200 ? response.headers.get('x-snapshot-id') : null;
  } catch {
    return null;
  }
}

/**
 * A client that asks the instances in turn, one request at a time, sending back the snapshot id
 * of its last answer; counts statuses >= 500 (503 among them) and answers from an older snapshot.
 */
function roundRobin(urls: readonly string[], auth: Record<string, string>) {
  const counts = { requests: 0, status_5xx: 0, went_back: 0, status_503: 0, other_non_200: 0 };
  let stopped = false;
  const loop = (async () => {
    let last: string | null = null;
    for (let i = 0; !stopped; i++) {
      const response = await fetch(`${urls[i % urls.length]}${PROBE}`, {
        headers: last ? { ...auth, 'X-Snapshot-Id': last } : auth,
      });
      await response.arrayBuffer();
      counts.requests++;
      if (response.status >= 500) counts.status_5xx++;
      if (response.status === 503) counts.status_503++;
      else if (response.status !== 200 && response.status < 500) counts.other_non_200++;
      const id = response.headers.get('x-snapshot-id');
      if (response.status === 200 && id !== null) {
        // Ids begin with their creation second (within one, the parent chain decides: not here).
        if (last !== null && id.slice(0, 16) < last.slice(0, 16)) counts.went_back++;
        last = id;
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return counts;
    },
  };
}

/** Section j on the largest store of section c: what going through the bucket costs at that size. */
export interface ScaleOutStoreResult {
  label: string;
  snapshot_bytes: number;
  /** The first snapshot of the store (the parent) put into an empty bucket. */
  full_upload: { seconds: number; files: number; bytes: number };
  /** Its child (one real ECB day more) committed after it: what an incremental publish uploads. */
  incremental_upload: { seconds: number; files: number; bytes: number; skipped: number };
  /** `mmds serve --from` on a data directory without snapshots: spawn to its first 200 from the child. */
  cold_start_seconds: number;
  cold_start_peak_rss_bytes: number;
}

/**
 * Puts the store's last two snapshots (section c's publish and incremental publish) through a
 * fresh RGW and starts one instance from it; null (with one line) without radosgw.
 */
export async function measureScaleOutStore(
  label: string,
  dataDir: string,
  dir: string,
  options: Pick<ScaleOutOptions, 'log' | 'servers'>,
): Promise<ScaleOutStoreResult | null> {
  const { log } = options;
  const layout = resolveLayout(dataDir);
  const child = readManifest(layout, readCurrentId(layout)!);
  if (!child.parent) throw new Error(`j ${label}: the store has no parent snapshot to start from`);
  const parent = readManifest(layout, child.parent);
  const bytesOf = (manifest: typeof child) => manifestFiles(manifest).reduce((sum, f) => sum + f.bytes, 0);
  const snapshotBytes = bytesOf(child);
  let rgw: Awaited<ReturnType<typeof startRadosGateway>>;
  try {
    rgw = await startRadosGateway({
      memstoreBytes: Math.ceil((snapshotBytes * 1.5) / 2 ** 30 + 1) * 2 ** 30,
    });
  } catch (error) {
    log(`j ${label}: skipped: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
  const storeUrl = `s3://${rgw.bucket}/${PREFIX}`;
  const bucket = openS3Store(parseObjectStoreUrl(storeUrl), readS3Settings(rgw.env));
  try {
    log(`j ${label}: uploading the parent snapshot (${snapshotBytes} bytes)…`);
    let started = performance.now();
    const full = await publishToStore(bucket, layout, parent.id, await readLogEnd(bucket), new Date());
    const fullSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const incremental = await publishToStore(bucket, layout, child.id, await readLogEnd(bucket), new Date());
    const incrementalSeconds = (performance.now() - started) / 1000;
    log(
      `j ${label}: full ${full.uploaded.bytes} bytes in ${fullSeconds.toFixed(1)} s; incremental ${incremental.uploaded.bytes} bytes in ${incrementalSeconds.toFixed(1)} s`,
    );
    const instanceDir = join(dir, `instance-${label}`);
    const env = { ...rgw.env, MMDS_DATA_DIR: instanceDir, MMDS_DIST_DIR: join(dir, 'no-dist') };
    const key = issueBenchKey(env, 'observations:read');
    started = performance.now();
    const instance = await startMmdsProcess(
      ['serve', ...serveWorkersArgs(), '--from', storeUrl, '--port', '0', '--host', '127.0.0.1'],
      env,
      /serving on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    options.servers.push(instance);
    try {
      const deadline = started + 30 * 60_000;
      while ((await snapshotOf(instance.url, { authorization: `Bearer ${key}` })) !== child.id) {
        if (performance.now() > deadline)
          throw new Error(`j ${label}: the instance did not serve within 30 min`);
        await sleep(50);
      }
      const coldSeconds = (performance.now() - started) / 1000;
      const peak = readMemory(instance.pid).peak;
      log(`j ${label}: cold start from the bucket ${coldSeconds.toFixed(1)} s, peak RSS ${peak} bytes`);
      return {
        label,
        snapshot_bytes: snapshotBytes,
        full_upload: { seconds: fullSeconds, files: full.uploaded.files, bytes: full.uploaded.bytes },
        incremental_upload: {
          seconds: incrementalSeconds,
          files: incremental.uploaded.files,
          bytes: incremental.uploaded.bytes,
          skipped: incremental.skipped,
        },
        cold_start_seconds: coldSeconds,
        cold_start_peak_rss_bytes: peak,
      };
    } finally {
      await instance.stop();
      options.servers.splice(options.servers.indexOf(instance), 1);
    }
  } finally {
    bucket.close();
    await rgw.stop();
  }
}

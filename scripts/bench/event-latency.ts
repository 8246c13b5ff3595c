/**
 * Section i of the benchmark (issue 24 item 6, issue 38): how long after a publish switches
 * CURRENT a release reaches (a) a webhook receiver and (b) a Server-Sent Events client, for 1 to
 * 10,000 subscriptions (webhook subscriptions and, alike, SSE streams open at once, at most
 * MAX_STREAMS of them), with one deliverer and with two sharing the work.
 *
 * The store holds the real ECB history without its newest days; each release is one of those
 * days, cut verbatim from ../shared/data/ecb/eurofxref-hist.csv (its header and that row), ingested
 * and published through the CLI, oldest first, as the ECB would publish them.
 *
 * The switch is the instant the publish's rename put the new CURRENT in place: the rename sets
 * the ctime of the renamed file (the kernel's clock, to one tick, a few ms, never later than the
 * rename), read after the publish returns. Arrival is Date.now() in this process when the
 * receiver gets the first POST of the release for a subscription (a webhook-id of the new
 * snapshot), or when a stream's chunk holding the release's `id:` line arrives. The receiver and
 * the SSE clients run in this process, which waits on the publish asynchronously so that its
 * event loop is free while the publish finishes.
 *
 * Subscriptions and streams ask for `release.published` of the ECB only: one delivery per
 * subscription and release. Three ways of delivering are measured: `mmds serve --deliver` (the
 * deliverer is woken by the server's snapshot switch), one `mmds deliver` beside a plain
 * `mmds serve`, and two `mmds deliver` processes sharing the work (their throughput, the
 * subscriptions over the time until the last was reached, against one's).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllowHosts } from '../../src/hooks/address-policy.ts';
import { createHookStore } from '../../src/hooks/hook-store.ts';
import { addHook } from '../../src/hooks/manage-hooks.ts';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { mapConcurrent } from '../../src/lib/map-concurrent.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { REAL_DATA_STEPS } from '../../test/helpers/snapshot-fixture.ts';
import { percentile } from './load.ts';
import {
  runMmds,
  runMmdsMeasured,
  type ServerProcess,
  serveWorkersArgs,
  startMmdsProcess,
} from './processes.ts';

/** Latency figures of one measure over the releases (ms); `samples` in release order. */
export interface LatencyFigures {
  samples: number[];
  p50: number;
  p99: number;
  max: number;
}

/** One delivery mode at one number of subscriptions. */
export interface EventLatencyRow {
  mode: EventDeliveryMode;
  subscriptions: number;
  /** SSE streams open (the subscriptions, at most MAX_STREAMS). */
  streams: number;
  releases: number;
  /** From the switch to the first delivery attempt of the release at the receiver (any subscription). */
  webhook_first: LatencyFigures;
  /** From the switch until every subscription's first attempt of the release arrived. */
  webhook_all: LatencyFigures;
  /** From the switch to the release's event at the first SSE stream. */
  sse_first: LatencyFigures;
  /** From the switch until every stream had the event. */
  sse_all: LatencyFigures;
  /** From the switch to the publish command's exit (its pruning and exit follow the rename). */
  publish_exit_after_switch: LatencyFigures;
}

export interface EventLatencyResult {
  releases_per_row: number;
  /** The days cut from the real history, oldest first. */
  days: string[];
  switch_timestamp: string;
  rows: EventLatencyRow[];
}

export interface EventLatencyOptions {
  log: (line: string) => void;
  servers: ServerProcess[];
  sharedData: string;
  /** Measured releases per row (one more, first, warms up and is not counted). */
  releases: number;
  /** The rows: each way of delivering with its numbers of subscriptions. */
  rows: ReadonlyArray<{ mode: EventDeliveryMode; subscriptions: readonly number[] }>;
  /** How long a release may take to reach everyone before the run fails. */
  timeoutMs?: number;
}

/** How the webhooks are delivered: by the server, by one `mmds deliver`, by two. */
export type EventDeliveryMode = 'serve --deliver' | 'mmds deliver' | 'mmds deliver x2';

/** SSE streams opened at most per row (the server's MMDS_EVENTS_STREAMS_MAX is raised to it). */
export const MAX_STREAMS = 1000;

/**
 * Arrivals of the release under way: per subscription (receiver) and per stream, the first
 * time seen and the event id it carried. The next release is published only once everyone had
 * this one, so whatever arrives meanwhile belongs to it (the ids are checked afterwards).
 */
interface Arrivals {
  hooks: Map<string, { at: number; id: string }>;
  streams: Map<number, { at: number; id: string }>;
}

/** p50, p99 and max of latencies (ms), with the samples in their order. */
export const figures = (values: number[]): LatencyFigures => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: values,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};

/** Runs section i in `dir`. */
export async function measureEventLatency(
  dir: string,
  options: EventLatencyOptions,
): Promise<EventLatencyResult> {
  const { log } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const dataDir = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  const allowHosts = '127.0.0.1';
  const env = {
    MMDS_DATA_DIR: dataDir,
    MMDS_DIST_DIR: join(dir, 'dist'),
    MMDS_HOOKS_ALLOW_HOSTS: allowHosts,
    // Each stream comes from its own client address (X-Forwarded-For from loopback, as in
    // section a), so the per-address limits see N clients, as they would in service.
    MMDS_TRUSTED_PROXIES: '1',
    MMDS_EVENTS_STREAMS_MAX: String(MAX_STREAMS),
  };
  const perRow = options.releases + 1;
  const rowsNeeded = options.rows.reduce((sum, row) => sum + row.subscriptions.length, 0) * perRow;
  const history = join(options.sharedData, 'ecb/eurofxref-hist.csv');
  const [header, ...rows] = readFileSync(history, 'utf8').split('\n');
  const dated = rows.filter((line) => /^\d{4}-\d{2}-\d{2},/.test(line));
  if (!header?.startsWith('Date,') || dated.length <= rowsNeeded)
    throw new Error(`${history}: not the ECB history CSV (newest first) with ${rowsNeeded} days`);
  // Newest first in the file: the days to release are the newest ones, released oldest first.
  const releaseDays = dated.slice(0, rowsNeeded).reverse();
  const base = join(dir, 'ecb-base.csv');
  writeFileSync(base, [header, ...dated.slice(rowsNeeded)].join('\n'));
  log(
    `i. ingesting the catalog, the reference lists and the ECB history without its newest ${rowsNeeded} days…`,
  );
  // The catalog and the reference lists, as the real-data steps ingest them before the ECB.
  for (const [source, ...files] of REAL_DATA_STEPS.slice(
    0,
    REAL_DATA_STEPS.findIndex(([s]) => s === 'ecb'),
  ))
    runMmds(['ingest', source!, ...files], env);
  runMmds(['ingest', 'ecb', base], env);
  runMmds(['publish'], env);
  const issued = JSON.parse(
    runMmds(['keys', 'issue', '--org', 'bench', '--scopes', 'observations:read', '--json'], env).stdout,
  ) as { id: string };

  // The receiver: the first POST per subscription and snapshot is what counts (a retry would be later).
  let arrivals: Arrivals | null = null;
  const receiver: Server = createServer((request, response) => {
    const at = Date.now();
    const id = String(request.headers['webhook-id'] ?? '');
    const hook = (request.url ?? '').slice(1);
    if (arrivals && id !== '' && !arrivals.hooks.has(hook)) arrivals.hooks.set(hook, { at, id });
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  receiver.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const storage = createStateStorage('file', dataDir);
  const hooks = createHookStore(storage);
  const keys = createKeyStore(storage);
  const policy = parseAllowHosts(allowHosts);
  /** Adds or removes subscriptions until there are `count`, each posting to its own path. */
  const setSubscriptions = async (count: number) => {
    const ids = await hooks.ids();
    for (const id of ids.slice(count)) await hooks.remove(id);
    const adding = Array.from({ length: Math.max(0, count - ids.length) }, (_, i) => i);
    await mapConcurrent(adding, 16, async () => {
      const record = await addHook(
        { keyId: issued.id, url: `${receiverUrl}/pending`, series: ['ecb.*'], types: ['release.published'] },
        { hooks, keys },
        policy,
        new Date(),
      );
      await hooks.update(record.id, (current) => ({ ...current, url: `${receiverUrl}/${record.id}` }));
    });
  };

  let day = 0;
  const result: EventLatencyResult = {
    releases_per_row: options.releases,
    days: releaseDays.map((line) => line.slice(0, 10)),
    switch_timestamp:
      "the ctime of CURRENT after the publish returned: set by the kernel when the publish's rename put it in place (a clock tick, a few ms, at most before the true instant)",
    rows: [],
  };
  try {
    for (const { mode, subscriptions } of options.rows) {
      const serveReady = /serving on http:\/\/127\.0\.0\.1:(\d+)/;
      const serving = await startMmdsProcess(
        [
          'serve',
          ...serveWorkersArgs(),
          ...(mode === 'serve --deliver' ? ['--deliver'] : []),
          '--port',
          '0',
          '--host',
          '127.0.0.1',
        ],
        env,
        serveReady,
      );
      options.servers.push(serving);
      const deliverers: ServerProcess[] = [];
      for (let n = mode === 'mmds deliver x2' ? 2 : mode === 'mmds deliver' ? 1 : 0; n > 0; n--) {
        const deliverer = await startMmdsProcess(['deliver'], env, /delivering webhooks()/);
        options.servers.push(deliverer);
        deliverers.push(deliverer);
      }
      for (const count of subscriptions) {
        // BENCH_EVENT_STREAMS (experiments, not the benchmark's rows): fewer streams, 0 for none.
        const streamCount = Math.min(count, Number(process.env.BENCH_EVENT_STREAMS ?? MAX_STREAMS));
        log(`i. ${mode}, ${count} subscription(s), ${streamCount} stream(s): ${options.releases} releases…`);
        await setSubscriptions(count);
        const streams = await openStreams(serving.url, streamCount, () => arrivals);
        const samples = {
          webhook_first: [] as number[],
          webhook_all: [] as number[],
          sse_first: [] as number[],
          sse_all: [] as number[],
          publish_exit_after_switch: [] as number[],
        };
        try {
          for (let release = 0; release < perRow; release++) {
            const line = releaseDays[day++]!;
            const file = join(dir, `ecb-${line.slice(0, 10)}.csv`);
            writeFileSync(file, `${header}\n${line}\n`);
            runMmds(['ingest', 'ecb', file], env);
            const before = readCurrentId(resolveLayout(dataDir));
            const pending: Arrivals = { hooks: new Map(), streams: new Map() };
            arrivals = pending;
            const publish = await runMmdsMeasured(['publish'], { env, timeoutS: 600 });
            const exited = Date.now();
            if (!publish.ok) throw new Error(`mmds publish failed: ${publish.stderr_tail}`);
            const layout = resolveLayout(dataDir);
            const snapshot = readCurrentId(layout)!;
            if (snapshot === before)
              throw new Error(`the release of ${line.slice(0, 10)} published nothing new`);
            const switched = Number(statSync(layout.currentFile, { bigint: true }).ctimeNs / 1_000_000n);
            const deadline = Date.now() + timeoutMs;
            while (pending.hooks.size < count || pending.streams.size < streamCount) {
              if (Date.now() > deadline)
                throw new Error(
                  `release ${snapshot}: after ${timeoutMs} ms, ${pending.hooks.size} of ${count} deliveries and ${pending.streams.size} of ${streamCount} streams`,
                );
              await sleep(5);
            }
            arrivals = null;
            const seen = [...pending.hooks.values(), ...pending.streams.values()];
            const stray = seen.find((arrival) => !arrival.id.startsWith(`${snapshot}:`));
            if (stray) throw new Error(`release ${snapshot}: an arrival carried event ${stray.id}`);
            if (release === 0) continue;
            const hookTimes = [...pending.hooks.values()].map((arrival) => arrival.at);
            const streamTimes = [...pending.streams.values()].map((arrival) => arrival.at);
            if (process.env.BENCH_DEBUG) {
              // Where in the release the deliveries and stream events came (ms after the switch).
              const spread = (times: number[]) => {
                const sorted = times.map((at) => at - switched).sort((a, b) => a - b);
                return [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]
                  .map((q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))])
                  .join(' ');
              };
              log(`    hooks at ${spread(hookTimes)}; streams at ${spread(streamTimes)}`);
            }
            samples.webhook_first.push(Math.min(...hookTimes) - switched);
            samples.webhook_all.push(Math.max(...hookTimes) - switched);
            if (streamTimes.length > 0) {
              samples.sse_first.push(Math.min(...streamTimes) - switched);
              samples.sse_all.push(Math.max(...streamTimes) - switched);
            }
            samples.publish_exit_after_switch.push(exited - switched);
          }
        } finally {
          streams.close();
        }
        const row: EventLatencyRow = {
          mode,
          subscriptions: count,
          streams: streamCount,
          releases: options.releases,
          webhook_first: figures(samples.webhook_first),
          webhook_all: figures(samples.webhook_all),
          sse_first: figures(samples.sse_first),
          sse_all: figures(samples.sse_all),
          publish_exit_after_switch: figures(samples.publish_exit_after_switch),
        };
        result.rows.push(row);
        log(
          `  webhook first p50 ${row.webhook_first.p50.toFixed(0)} ms p99 ${row.webhook_first.p99.toFixed(0)} ms, all p50 ${row.webhook_all.p50.toFixed(0)} ms; ` +
            `SSE first p50 ${row.sse_first.p50.toFixed(0)} ms p99 ${row.sse_first.p99.toFixed(0)} ms, all p50 ${row.sse_all.p50.toFixed(0)} ms`,
        );
      }
      for (const process of [...deliverers, serving]) {
        await process.stop();
        options.servers.splice(options.servers.indexOf(process), 1);
      }
    }
  } finally {
    await storage.dispose();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    receiver.closeAllConnections();
  }
  return result;
}

/**
 * Opens `count` SSE streams of the ECB's release.published events (plain fetch streams) and
 * records, for the release being waited for, when each stream's chunk holding its `id:` arrived.
 */
async function openStreams(
  base: string,
  count: number,
  current: () => Arrivals | null,
): Promise<{ close(): void }> {
  const controller = new AbortController();
  const url = `${base}/api/v1/events?source=ecb&type=release.published`;
  const ready: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    ready.push(
      (async () => {
        const response = await fetch(url, {
          headers: {
            accept: 'text/event-stream',
            'x-forwarded-for': `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
          },
          signal: controller.signal,
        });
        if (response.status !== 200 || !response.body)
          throw new Error(`event stream ${index}: HTTP ${response.status} ${await response.text()}`);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        // The stream is open once its first lines (retry:, the resume comment) arrived.
        const first = await reader.read();
        if (first.done) throw new Error(`event stream ${index} ended at once`);
        void (async () => {
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) return;
              const at = Date.now();
              const arrivals = current();
              const id = /^id: (\S+)$/m.exec(value)?.[1];
              if (arrivals && id && !arrivals.streams.has(index)) arrivals.streams.set(index, { at, id });
            }
          } catch {
            // Aborted at the end of the row.
          }
        })();
      })(),
    );
  }
  await Promise.all(ready);
  return { close: () => controller.abort() };
}

/**
 * Load generators of the benchmark: wrk for throughput (the same client settings for every
 * target), and a closed loop of N concurrent workers for latency (HTTP or an in-process call).
 */
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const WRK_SCRIPT = fileURLToPath(new URL('./wrk-report.lua', import.meta.url));

/** What one load run measured. */
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Responses that were not 2xx/3xx, and socket errors. */
  errors: number;
}

/** Settings of a wrk run (identical for every target compared). */
export interface WrkSettings {
  threads: number;
  connections: number;
  seconds: number;
  /** Arguments of wrk-report.lua: `plain`, `xff <n>` or `keys <k1> <k2> ...`. */
  scriptArgs: readonly string[];
}

/** Runs wrk against a URL and parses the summary its script prints. */
export function runWrk(url: string, settings: WrkSettings): LoadResult {
  const args = [
    `-t${settings.threads}`,
    `-c${settings.connections}`,
    `-d${settings.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    WRK_SCRIPT,
    url,
    '--',
    ...settings.scriptArgs,
  ];
  const run = spawnSync('wrk', args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const line = /^WRK_JSON (.*)$/m.exec(run.stdout ?? '')?.[1];
  if (run.status !== 0 || !line) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  const summary = JSON.parse(line) as {
    requests: number;
    duration_us: number;
    errors: Record<string, number>;
    latency_us: { p50: number; p99: number };
  };
  const seconds = summary.duration_us / 1e6;
  return {
    requests: summary.requests,
    seconds,
    rps: summary.requests / seconds,
    p50: summary.latency_us.p50 / 1000,
    p99: summary.latency_us.p99 / 1000,
    errors: Object.values(summary.errors).reduce((sum, n) => sum + n, 0),
  };
}

/** The p-th percentile (0-100) of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Raw latencies of closed-loop slices, to be summarised together. */
interface Samples {
  latencies: number[];
  seconds: number;
  errors: number;
}

async function runSlice(
  call: (i: number) => Promise<boolean>,
  concurrency: number,
  seconds: number,
  counter: { next: number },
  samples: Samples,
): Promise<void> {
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await call(counter.next++);
        samples.latencies.push(performance.now() - t);
        if (!ok) samples.errors += 1;
      }
    }),
  );
  samples.seconds += (performance.now() - started) / 1000;
}

function summarise(samples: Samples): LoadResult {
  const sorted = [...samples.latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    seconds: samples.seconds,
    rps: sorted.length / samples.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: samples.errors,
  };
}

/**
 * Runs `call(i)` in a closed loop from `concurrency` workers for `seconds` (after `warmup`
 * calls) and returns throughput and latency percentiles. `call` resolves to false on a failed
 * request.
 */
export async function runClosedLoop(
  call: (i: number) => Promise<boolean>,
  concurrency: number,
  seconds: number,
  warmup = 5,
): Promise<LoadResult> {
  const counter = { next: 0 };
  for (let i = 0; i < warmup; i++) await call(counter.next++);
  const samples: Samples = { latencies: [], seconds: 0, errors: 0 };
  await runSlice(call, concurrency, seconds, counter, samples);
  return summarise(samples);
}

/**
 * Compares two closed loops fairly on a shared machine: they take turns in slices of
 * `seconds / slices` (A, B, A, B, ...), so that a burst of outside load hits both alike. Each
 * sees the same sequence of `i` (a call numbered i in A has its twin in B).
 */
export async function runInterleaved(
  callA: (i: number) => Promise<boolean>,
  callB: (i: number) => Promise<boolean>,
  concurrency: number,
  seconds: number,
  slices: number,
  warmup = 5,
): Promise<[LoadResult, LoadResult]> {
  const counterA = { next: 0 };
  const counterB = { next: 0 };
  for (let i = 0; i < warmup; i++) {
    await callA(counterA.next++);
    await callB(counterB.next++);
  }
  const a: Samples = { latencies: [], seconds: 0, errors: 0 };
  const b: Samples = { latencies: [], seconds: 0, errors: 0 };
  for (let slice = 0; slice < slices; slice++) {
    await runSlice(callA, concurrency, seconds / slices, counterA, a);
    await runSlice(callB, concurrency, seconds / slices, counterB, b);
  }
  return [summarise(a), summarise(b)];
}

/** An HTTP client for closed loops: keep-alive connections, body read and discarded. */
export function createHttpCaller(maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    /** GETs a URL; true on a 2xx status. */
    get(url: string, headers: Record<string, string>): Promise<boolean> {
      return new Promise((resolve) => {
        const req = request(url, { agent, headers }, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve((res.statusCode ?? 0) < 300));
          res.on('error', () => resolve(false));
        });
        req.on('error', () => resolve(false));
        req.end();
      });
    },
    /** GETs a URL and returns status, headers and body (for checks). */
    fetch(
      url: string,
      headers: Record<string, string> = {},
      method = 'GET',
    ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
      return new Promise((resolve, reject) => {
        const req = request(url, { agent, headers, method }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}

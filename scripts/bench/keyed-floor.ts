/**
 * Section h of the benchmark (issue 27): one series' keyed `as_of` page against its floor.
 *
 * On a synthetic store (every series 250 monthly periods x 4 revisions = 1,000 rows), the page
 * of 1,000 rows of one series is computed four ways, each with its JSON serialisation:
 *
 *   floor              the series' revisions already in memory as plain objects (taken from the
 *                      served answer at full knowledge): filter by observed_at, mark the last
 *                      known revision per period in force, JSON.stringify the envelope; written
 *                      as plainly as possible, the cheapest correct computation;
 *   in-process cache   the endpoint's payload function (getObservations) on a snapshot opened as
 *                      the server opens it, with its revision cache (src/query/revision-cache.ts),
 *                      and JSON.stringify of the envelope;
 *   in-process DuckDB  the same with the cache off (MMDS_REVISION_CACHE_MB=0: the SQL path);
 *   HTTP               a keyed request to a spawned `mmds serve`.
 *
 * The floor's body is checked byte for byte against the served body (and the two in-process
 * paths against each other) at several as_of instants before anything is timed. Then the
 * throughput of requests that each name a new as_of (wrk, concurrency 1, 4, 16) against bare
 * node:http sending the served 1,000-row body with the same client script, and the server's RSS
 * once its revision cache is full.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { getObservations } from '../../src/api/v1/observations.ts';
import { success } from '../../src/contract/envelope.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES } from '../../src/contract/routes.ts';
import { DEFAULT_REVISION_CACHE_MB, revisionCacheUsage } from '../../src/query/revision-cache.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { generateSyntheticStore, type SyntheticShape, syntheticSeriesKey } from './generate-synthetic.ts';
import { createHttpCaller, type LoadResult, runClosedLoop, runWrk } from './load.ts';
import {
  issueBenchKey,
  REPO_ROOT,
  readMemory,
  runMmds,
  type ServerProcess,
  startMmdsServe,
  startServer,
} from './processes.ts';

/** One page computed one way: latency in a closed loop at concurrency 1. */
export interface FloorTarget extends LoadResult {
  /** p50 / the floor's p50. */
  vs_floor: number;
}

/** What section h measured at one store size. */
export interface KeyedFloorResult {
  label: string;
  observations: number;
  series: string;
  rows: number;
  body_bytes: number;
  /** Where the floor's time goes: choosing the revisions, and JSON.stringify of the envelope (medians, ms). */
  floor_split_ms: { compute: number; stringify: number };
  /** The as_of instants whose bodies were compared, and that they were equal. */
  body_checks: Array<{
    as_of: string;
    rows: number;
    floor_equals_http: boolean;
    cache_equals_duckdb: boolean;
  }>;
  latency: Record<'floor' | 'in-process cache' | 'in-process DuckDB' | 'HTTP', FloorTarget>;
  http_vs_in_process_p50: number;
  /** wrk, a new as_of per request, against bare node:http with the same script, per concurrency. */
  throughput: Record<string, { mmds: LoadResult; bare: LoadResult; ratio: number }>;
  /** Concurrency 16, a new as_of per request: `--workers 2` against `--workers 1`, rounds in turn. */
  workers?: { one: LoadResult; two: LoadResult; ratio: number };
  /** The revision cache: budget, what one series' block is charged, and the heap it takes (in-process). */
  cache: {
    budget_bytes: number;
    block_charged_bytes: number;
    block_heap_bytes: number;
    blocks_measured: number;
  };
  /** mmds serve after the throughput runs, and after its cache was filled with other series. */
  server_rss_after_throughput_bytes: number;
  server_rss_cache_full_bytes: number;
  server_peak_rss_bytes: number;
  series_requested_to_fill: number;
}

export interface KeyedFloorOptions {
  seconds: number;
  log: (line: string) => void;
  servers: ServerProcess[];
  wrkSeconds: number;
  rounds: number;
}

const route = ROUTES.find((r) => r.id === 'observations')!;
/**
 * Full knowledge: after every synthetic revision (the last is observed in February 2021); the
 * as_of of all the runs together stay within about a year of it, so never after now.
 */
const AS_OF_BASE = Date.parse('2021-06-01T00:00:00Z');
const asOfText = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** The served rows as the floor holds them (the envelope's row objects). */
interface Row {
  period: string;
  observed_at: string;
  in_force: boolean;
  [field: string]: unknown;
}

/**
 * The floor: the revisions known at as_of (RFC 3339 UTC text compares in time order), the last
 * of each period in force, the envelope serialised. `meta` is the served meta of the request.
 */
function floorRows(rows: readonly Row[], asOf: string): Row[] {
  const known = rows.filter((row) => row.observed_at <= asOf);
  return known.map((row, i) => ({ ...row, in_force: known[i + 1]?.period !== row.period }));
}
const floorBody = (rows: readonly Row[], asOf: string, meta: Record<string, unknown>) => {
  const data = floorRows(rows, asOf);
  return JSON.stringify({ data, meta: { ...meta, count: data.length, as_of: asOf } });
};

/** Runs section h on a store of `shape` in `dir`. */
export async function measureKeyedFloor(
  label: string,
  dir: string,
  shape: SyntheticShape,
  options: KeyedFloorOptions,
): Promise<KeyedFloorResult> {
  const { log } = options;
  const dataDir = join(dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(dir, 'dist'), MMDS_TRUSTED_PROXIES: '0' };
  log(
    `h ${label}: generating ${shape.series} x ${shape.periods} x ${shape.revisions} (synthetic), publishing…`,
  );
  const batch = await generateSyntheticStore(dataDir, shape, { catalogSeries: true, now: new Date() });
  runMmds(['publish'], env);
  const keys = Array.from({ length: 8 }, () => issueBenchKey(env, 'observations:read'));
  const layout = resolveLayout(dataDir);
  const snapshotId = readCurrentId(layout)!;
  const server = await startMmdsServe(`mmds serve (h ${label})`, env);
  options.servers.push(server);
  const cached = await openSnapshotDb(layout, snapshotId, { poolSize: 4 });
  const plain = await openSnapshotDb(layout, snapshotId, { poolSize: 4, revisionCacheBytes: 0 });
  const http = createHttpCaller(1);
  const key = syntheticSeriesKey(Math.floor(shape.series / 2));
  const url = (series: string, asOf: string) =>
    `${server.url}/api/v1/observations?series=${series}&as_of=${asOf}`;
  const auth = (i: number) => ({ authorization: `Bearer ${keys[i % keys.length]}` });
  try {
    // The floor's rows: the served page at full knowledge, already in memory.
    const full = await http.fetch(url(key, asOfText(AS_OF_BASE)), auth(0));
    if (full.status !== 200) throw new Error(`h: keyed request answered ${full.status}`);
    const served = JSON.parse(full.body) as { data: Row[]; meta: Record<string, unknown> };
    const rows = served.data;
    if (rows.length !== shape.periods * shape.revisions || served.meta.next_cursor !== null)
      throw new Error(`h: ${key} has ${rows.length} rows in one page, expected every revision`);

    const inProcess = async (db: SnapshotDb, asOf: string) => {
      const search = new URLSearchParams({ series: key, as_of: asOf });
      const payload = await getObservations(
        { db, now: new Date(), keyed: true },
        parseRequest(route, null, search),
      );
      return JSON.stringify(success(payload, db.id, asOfText(AS_OF_BASE)));
    };

    // Bodies first: the floor must equal the served body, the cache the DuckDB path.
    const body_checks: KeyedFloorResult['body_checks'] = [];
    const observed = [...new Set(rows.map((r) => r.observed_at))].sort();
    for (const asOf of [
      asOfText(AS_OF_BASE),
      observed[Math.floor(observed.length / 2)]!,
      asOfText(Date.parse(observed[Math.floor(observed.length / 3)]!) - 1000),
      '1999-01-01T00:00:00Z',
    ]) {
      const response = await http.fetch(url(key, asOf), auth(1));
      const meta = (JSON.parse(response.body) as { meta: Record<string, unknown> }).meta;
      const floor = floorBody(rows, asOf, meta);
      const [fromCache, fromDuckDb] = [await inProcess(cached, asOf), await inProcess(plain, asOf)];
      body_checks.push({
        as_of: asOf,
        rows: floorRows(rows, asOf).length,
        floor_equals_http: floor === response.body,
        cache_equals_duckdb: fromCache === fromDuckDb,
      });
    }
    log(`h ${label}: body checks ${JSON.stringify(body_checks)}`);
    if (body_checks.some((c) => !c.floor_equals_http || !c.cache_equals_duckdb))
      throw new Error('h: a body differs (see the body checks above)');

    // Latency at concurrency 1, each request a new as_of at full knowledge (1,000 rows).
    const meta = served.meta;
    const asOf = (i: number) => asOfText(AS_OF_BASE + (i % 1_000_000) * 1000);
    const split = { compute: [] as number[], stringify: [] as number[] };
    const floor = await runClosedLoop(
      async (i) => {
        const t0 = performance.now();
        const data = floorRows(rows, asOf(i));
        const t1 = performance.now();
        JSON.stringify({ data, meta: { ...meta, count: data.length, as_of: asOf(i) } });
        split.compute.push(t1 - t0);
        split.stringify.push(performance.now() - t1);
        return true;
      },
      1,
      options.seconds,
    );
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    log(`h ${label}: floor p50 ${floor.p50.toFixed(3)} ms`);
    // Each later loop starts its as_of where the previous stopped: no response cache answers.
    let offset = 2_000_000;
    const loop = async (call: (asOf: string, i: number) => Promise<unknown>) => {
      const start = offset;
      const result = await runClosedLoop(
        async (i) => {
          await call(asOfText(AS_OF_BASE + (start + i) * 1000), i);
          return true;
        },
        1,
        options.seconds,
      );
      offset += result.requests + 100;
      return result;
    };
    const cache = await loop((a) => inProcess(cached, a));
    log(`h ${label}: in-process cache p50 ${cache.p50.toFixed(3)} ms`);
    const duck = await loop((a) => inProcess(plain, a));
    log(`h ${label}: in-process DuckDB p50 ${duck.p50.toFixed(3)} ms`);
    const overHttp = await loop(async (a, i) => {
      if (!(await http.get(url(key, a), auth(i)))) throw new Error('h: a keyed request failed');
    });
    log(`h ${label}: HTTP p50 ${overHttp.p50.toFixed(3)} ms`);
    const withFloor = (r: LoadResult): FloorTarget => ({ ...r, vs_floor: r.p50 / floor.p50 });

    // Throughput: wrk, a new as_of per request, against bare node:http with the same script.
    const bodyFile = join(dir, 'keyed-body.json');
    writeFileSync(bodyFile, full.body);
    const bare = await startServer({
      name: 'bare node:http (h)',
      command: process.execPath,
      args: [join(REPO_ROOT, 'scripts/bench/bare-server.ts'), bodyFile],
      port: (output) => {
        const match = /listening (\d+)/.exec(output);
        return match ? Number(match[1]) : null;
      },
    });
    options.servers.push(bare);
    const throughput: KeyedFloorResult['throughput'] = {};
    let epoch = Math.floor(AS_OF_BASE / 1000) + 3_000_000;
    for (const c of [1, 4, 16]) {
      const threads = Math.min(2, c);
      const mmdsRuns: LoadResult[] = [];
      const bareRuns: LoadResult[] = [];
      for (let round = 0; round < options.rounds; round++) {
        for (const [target, runs] of round % 2 === 0
          ? ([
              [server, mmdsRuns],
              [bare, bareRuns],
            ] as const)
          : ([
              [bare, bareRuns],
              [server, mmdsRuns],
            ] as const)) {
          const result = runWrk(`${target.url}/api/v1/observations?series=${key}`, {
            threads,
            connections: c,
            seconds: options.wrkSeconds,
            scriptArgs: ['asof', String(epoch), String(threads), ...keys],
          });
          // Far apart per run (more than 4 s at 100,000 req/s): no as_of repeats across runs.
          epoch += 1_000_000;
          if (result.errors > 0) throw new Error(`h: ${target.name}: ${result.errors} failed responses`);
          runs.push(result);
        }
      }
      const pick = (list: LoadResult[]) =>
        [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!;
      const m = pick(mmdsRuns);
      const b = pick(bareRuns);
      throughput[String(c)] = { mmds: m, bare: b, ratio: m.rps / b.rps };
      log(
        `h ${label}: concurrency ${c}: mmds ${Math.round(m.rps)} req/s (p99 ${m.p99.toFixed(1)} ms), bare ${Math.round(b.rps)} req/s: ${(m.rps / b.rps).toFixed(3)}`,
      );
    }
    await bare.stop();
    options.servers.splice(options.servers.indexOf(bare), 1);
    const afterThroughput = readMemory(server.pid).rss;

    // `mmds serve --workers 2` beside the single process, rounds taking turns, at concurrency 16
    // (wrk shares the two cores with them: reported, no target; issue 33).
    const twoWorkers = await startMmdsServe(`mmds serve --workers 2 (h ${label})`, env, { workers: 2 });
    options.servers.push(twoWorkers);
    const workerRuns: Record<'1' | '2', LoadResult[]> = { '1': [], '2': [] };
    for (let round = 0; round < options.rounds; round++)
      for (const [name, target] of round % 2 === 0
        ? ([
            ['1', server],
            ['2', twoWorkers],
          ] as const)
        : ([
            ['2', twoWorkers],
            ['1', server],
          ] as const)) {
        const result = runWrk(`${target.url}/api/v1/observations?series=${key}`, {
          threads: 2,
          connections: 16,
          seconds: options.wrkSeconds,
          scriptArgs: ['asof', String(epoch), '2', ...keys],
        });
        epoch += 1_000_000;
        if (result.errors > 0) throw new Error(`h: --workers ${name}: ${result.errors} failed responses`);
        workerRuns[name].push(result);
      }
    await twoWorkers.stop();
    options.servers.splice(options.servers.indexOf(twoWorkers), 1);
    const medianRun = (list: LoadResult[]) =>
      [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!;
    const workers = { one: medianRun(workerRuns['1']), two: medianRun(workerRuns['2']), ratio: 0 };
    workers.ratio = workers.two.rps / workers.one.rps;
    log(
      `h ${label}: concurrency 16: --workers 1 ${Math.round(workers.one.rps)} req/s, --workers 2 ${Math.round(workers.two.rps)} req/s: ${workers.ratio.toFixed(2)}`,
    );

    // The cache's charge against the heap it takes, in-process (gc between readings).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const blocks = Math.min(50, shape.series - 1);
    const probe = await openSnapshotDb(layout, snapshotId, {
      poolSize: 2,
      revisionCacheBytes: 4 * DEFAULT_REVISION_CACHE_MB * 2 ** 20,
    });
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let s = 0; s < blocks; s++) {
      const search = new URLSearchParams({
        series: syntheticSeriesKey(s),
        as_of: asOfText(AS_OF_BASE),
        limit: '1',
      });
      await getObservations({ db: probe, now: new Date(), keyed: true }, parseRequest(route, null, search));
    }
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    const usage = revisionCacheUsage(probe);
    await probe.close();

    // Fill the server's cache (its default budget) with other series, then read its RSS.
    const toFill = Math.min(
      shape.series,
      Math.ceil((DEFAULT_REVISION_CACHE_MB * 2 ** 20 * 2) / (usage.bytes / blocks)),
    );
    log(`h ${label}: filling the server's revision cache: ${toFill} series…`);
    const filler = createHttpCaller(4);
    for (let s = 0; s < toFill; s += 4) {
      await Promise.all(
        [0, 1, 2, 3]
          .filter((k) => s + k < toFill)
          .map((k) => filler.get(url(syntheticSeriesKey(s + k), asOfText(AS_OF_BASE + s + k)), auth(s + k))),
      );
    }
    filler.close();
    const memory = readMemory(server.pid);
    const result: KeyedFloorResult = {
      label,
      observations: batch.rows,
      series: key,
      rows: rows.length,
      body_bytes: Buffer.byteLength(full.body),
      floor_split_ms: { compute: median(split.compute), stringify: median(split.stringify) },
      body_checks,
      latency: {
        floor: withFloor(floor),
        'in-process cache': withFloor(cache),
        'in-process DuckDB': withFloor(duck),
        HTTP: withFloor(overHttp),
      },
      http_vs_in_process_p50: overHttp.p50 / cache.p50,
      throughput,
      workers,
      cache: {
        budget_bytes: DEFAULT_REVISION_CACHE_MB * 2 ** 20,
        block_charged_bytes: Math.round(usage.bytes / blocks),
        block_heap_bytes: Math.round((heapAfter - heapBefore) / blocks),
        blocks_measured: blocks,
      },
      server_rss_after_throughput_bytes: afterThroughput,
      server_rss_cache_full_bytes: memory.rss,
      server_peak_rss_bytes: memory.peak,
      series_requested_to_fill: toFill,
    };
    log(
      `h ${label}: block charged ${result.cache.block_charged_bytes} B, heap ${result.cache.block_heap_bytes} B; serve RSS ${(memory.rss / 2 ** 20).toFixed(0)} MB with the cache full (${(afterThroughput / 2 ** 20).toFixed(0)} MB before)`,
    );
    return result;
  } finally {
    http.close();
    await cached.close();
    await plain.close();
    await server.stop();
    options.servers.splice(options.servers.indexOf(server), 1);
    rmSync(dir, { recursive: true, force: true });
  }
}

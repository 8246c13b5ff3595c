/**
 * `npm run bench`: the benchmark harness. In one run, on loopback, it builds what it measures
 * (the real data of ../shared/data through the CLI, synthetic stores of its own), starts every
 * server itself, and compares the service with the physical limits of the machine:
 *
 *   a. a public endpoint through `mmds serve`, a bare node:http server sending the same bytes,
 *      nginx serving dist/ plainly, and nginx with the configuration `mmds build` writes; then a
 *      public answer of at most 20 KB through `mmds serve` against bare node:http;
 *   b. a keyed as_of request against the same DuckDB query in-process (concurrency 1, 4, 16),
 *      and a repeated keyed request (response cache) against bare node:http;
 *   c. 1, 10 and 100 million synthetic observations (plus the real ECB history): publish (wall
 *      time, peak RSS), Parquet bytes, serve open (time to ready, peak and steady RSS), as_of
 *      latency for one series (HTTP and in-process, in turns) and for the whole catalogue; on the
 *      largest store, one new real ECB day ingested and published again (incremental publish);
 *   d. `mmds build` time and size on the real data and on a catalogue of 5,000 series;
 *   e. refused keys: an unknown key id against a known id with a wrong secret, 2,000 requests in
 *      turns to a real `mmds serve` (CONTRACT section 4: a response never tells that an id exists).
 *   f. the COT history backfill: every CFTC file of ../shared/data/cftc/history and the current
 *      ones into an empty store (ingest, publish: time, peak RSS), then one weekly update.
 *   g. the first `npm start` on a fresh clone, cold and warm: seconds until it serves.
 *   h. one series' keyed as_of page of 1,000 rows against its floor (the page computed from the
 *      revisions in memory, keyed-floor.ts): in-process with and without the revision cache, over
 *      HTTP; throughput with a new as_of per request at concurrency 1, 4, 16 against bare
 *      node:http; serve RSS with the revision cache full.
 *   i. release events (issues 24, 38): from the switch of CURRENT by a publish of one real ECB day
 *      to the first webhook attempt at a local receiver and the first event at an SSE client, p50
 *      and p99 over repeated releases, for 1 to 10,000 subscriptions (and up to 1,000 streams),
 *      with `mmds serve --deliver`, one separate `mmds deliver`, and two (event-latency.ts).
 *   j. scale-out (issue 26): `mmds publish --to` a real Ceph RADOS Gateway and three
 *      `mmds serve --from` instances: bytes uploaded per release, cold start from the bucket,
 *      commit to every instance serving (p50, p99), a round-robin client's 5xx and backward
 *      reads (scale-out.ts; skipped with one line without radosgw).
 *
 * Writes BENCHMARKS.md and bench-results/latest.json. Options:
 *   --sections a,b,c,d,e,f,g,h,i,j run only these (then BENCHMARKS.md is left alone)
 *   --scales 1M,10M,100M the store sizes of section c (default all three; fewer also leave
 *                        BENCHMARKS.md alone)
 *   --floor-scales 1M    the store sizes of section h (default 1M; 10M and 100M as in c)
 *   --event-releases 6   measured releases per row of section i (one more warms up)
 *   --event-subscriptions 1000,10000  only the rows of section i with these numbers of subscriptions
 *   --scale-out-releases 10  releases published through the bucket in section j
 *   --keep               keep the work directory
 *   --out <file>         the JSON results (default bench-results/latest.json)
 *   --report-only        only write BENCHMARKS.md again from the results file
 *   --report <file>      where BENCHMARKS.md is written (default the repository's)
 *   --publish-limit <s>  time limit of each `mmds publish` of section c (default 1500: 25 min)
 * Environment: BENCH_MMDS_ROOT runs another checkout's bin/mmds.js (a "before" measurement).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { readObservationHistory } from '../../src/query/history.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { readCurrentId } from '../../src/store/manifest.ts';
import { SHARED_DATA } from '../../test/helpers/paths.ts';
import { REAL_DATA_STEPS } from '../../test/helpers/snapshot-fixture.ts';
import { measureCotHistory } from './cot-history.ts';
import { measureEventLatency } from './event-latency.ts';
import { measureFirstStart } from './first-start.ts';
import { generateSyntheticStore } from './generate-synthetic.ts';
import { measureKeyTiming } from './key-timing.ts';
import { measureKeyedFloor } from './keyed-floor.ts';
import { createHttpCaller, type LoadResult, runInterleaved, runWrk, type WrkSettings } from './load.ts';
import { startMmdsNginx, startPlainNginx } from './nginx.ts';
import {
  issueBenchKey,
  REPO_ROOT,
  runMmds,
  type ServerProcess,
  startMmdsServe,
  startServer,
} from './processes.ts';
import { type BenchResults, type BuildFigures, evaluateTargets, renderReport } from './report.ts';
import { measureScale, prepareEcbInputs, type ScaleLimits } from './scale.ts';
import { measureScaleOut, measureScaleOutStore } from './scale-out.ts';
import { ensureTools, readMachine, readVersions } from './tools.ts';

const { values: flags } = parseArgs({
  options: {
    sections: { type: 'string', default: 'a,b,c,d,e,f,g,h,i,j' },
    'scale-out-releases': { type: 'string', default: '10' },
    'event-releases': { type: 'string', default: '6' },
    'event-subscriptions': { type: 'string' },
    'floor-scales': { type: 'string', default: '1M' },
    scales: { type: 'string', default: '1M,10M,100M' },
    'publish-limit': { type: 'string', default: String(25 * 60) },
    report: { type: 'string' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
    'report-only': { type: 'boolean', default: false },
  },
});
const sections = new Set((flags.sections ?? 'a,b,c,d,e,f,g,h,i,j').split(','));
const eventReleases = Number(flags['event-releases']);
if (!Number.isInteger(eventReleases) || eventReleases < 1)
  throw new Error('--event-releases: a whole number of releases, 1 or more');
/** Section i: each way of delivering with its numbers of subscriptions (and SSE streams, at most 1,000). */
const ALL_EVENT_ROWS = [
  { mode: 'serve --deliver', subscriptions: [1, 100, 1000] },
  { mode: 'mmds deliver', subscriptions: [1, 100, 1000, 10_000] },
  { mode: 'mmds deliver x2', subscriptions: [1000, 10_000] },
] as const;
const eventCounts = flags['event-subscriptions']?.split(',').map(Number);
if (eventCounts?.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error('--event-subscriptions: whole numbers of subscriptions, comma-separated');
const EVENT_ROWS = ALL_EVENT_ROWS.map((row) => ({
  mode: row.mode,
  subscriptions: row.subscriptions.filter((n) => !eventCounts || eventCounts.includes(n)),
})).filter((row) => row.subscriptions.length > 0);

/** Client settings shared by every throughput comparison. */
const WRK: Omit<WrkSettings, 'scriptArgs'> = { threads: 2, connections: 32, seconds: 4 };
/** Rounds per target (the order rotates; the median round is reported). */
const ROUNDS = 5;
/** Distinct client addresses per wrk thread (mmds serve sees each as its own anonymous client). */
const XFF_ADDRESSES = 20_000;
const LATENCY_SECONDS = 5;
const PUBLIC_PATH = '/api/v1/markets/cot';
/** A public answer of at most 20 KB (issue 27's target): the ECB's latest reference rates. */
const SMALL_PUBLIC_PATH = '/api/v1/fx/ecb';
const SMALL_PUBLIC_MAX_BYTES = 20 * 1024;
const AS_OF_SERIES = 'bls.CES0000000001';
const AS_OF_BASE = Date.parse('2026-03-01T00:00:00Z');
/** Store sizes of section c: one series is always 250 monthly periods x 4 revisions = 1,000 rows. */
const SCALES = [
  { label: '1M', series: 1000, periods: 250, revisions: 4 },
  { label: '10M', series: 10_000, periods: 250, revisions: 4 },
  { label: '100M', series: 100_000, periods: 250, revisions: 4 },
];
const readScales = (flag: string, list: string) =>
  list.split(',').map((label) => {
    const scale = SCALES.find((s) => s.label === label.trim());
    if (!scale)
      throw new Error(`${flag}: unknown size "${label}" (one of ${SCALES.map((s) => s.label).join(', ')})`);
    return scale;
  });
const scales = readScales('--scales', flags.scales ?? '1M,10M,100M');
const floorScales = readScales('--floor-scales', flags['floor-scales'] ?? '1M');
/** Only a run of every section at every size rewrites the repository's BENCHMARKS.md. */
const fullRun =
  ['a', 'b', 'c', 'd', 'e'].every((s) => sections.has(s)) && SCALES.every((s) => scales.includes(s));
/** Time limits per step of section c (a step past its limit is stopped and recorded as failed). */
const SCALE_LIMITS: ScaleLimits = {
  generate_s: 40 * 60,
  ingest_s: 10 * 60,
  publish_s: Number(flags['publish-limit']),
  serve_open_s: 10 * 60,
};
if (!(SCALE_LIMITS.publish_s > 0)) throw new Error('--publish-limit: seconds, a number above 0');
/** The synthetic generator's own DuckDB instance spills beyond this, and writes batches of this many rows. */
const GENERATOR_MEMORY_LIMIT = '4GB';
const GENERATOR_BATCH_ROWS = 10_000_000;

const startedAt = new Date();
const started = performance.now();
const log = (line: string) =>
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
  );
const work = mkdtempSync(join(tmpdir(), 'mmds-bench-'));
const servers: ServerProcess[] = [];

/** Writes BENCHMARKS.md from a results file (and bench-results/before.json when present). */
function writeReport(results: BenchResults): string {
  const beforeFile = join(REPO_ROOT, 'bench-results', 'before.json');
  const before = existsSync(beforeFile)
    ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as BenchResults)
    : undefined;
  const file = flags.report ?? join(REPO_ROOT, 'BENCHMARKS.md');
  writeFileSync(file, renderReport(results, before));
  return file;
}

async function main(): Promise<void> {
  if (flags['report-only']) {
    const file = flags.out ?? join(REPO_ROOT, 'bench-results', 'latest.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
    // The targets are evaluated again, so that a results file of an older harness gets today's table.
    results.targets = evaluateTargets(results);
    log(`${writeReport(results)} written from ${file}`);
    return;
  }
  if (sections.has('a') || sections.has('b')) ensureTools(log);
  const results: BenchResults = {
    date: startedAt.toISOString(),
    duration_s: 0,
    machine: readMachine(),
    commit: readCommit(),
    versions: readVersions(),
    settings: {
      wrk: { ...WRK, rounds: ROUNDS, xff_addresses_per_thread: XFF_ADDRESSES },
      latency_seconds: LATENCY_SECONDS,
      mmds_root: process.env.BENCH_MMDS_ROOT ?? REPO_ROOT,
    },
    load_average: [],
  };
  if (sections.has('a') || sections.has('b') || sections.has('d')) {
    const real = await prepareRealData(results);
    if (sections.has('a')) await measurePublic(results, real);
    if (sections.has('b')) await measureKeyed(results, real);
    for (const server of servers.splice(0)) await server.stop();
  }
  if (sections.has('d')) await measureSyntheticBuild(results);
  if (sections.has('e')) {
    results.key_timing = await measureKeyTiming(join(work, 'key-timing'), log, servers);
    saveResults(results);
  }
  if (sections.has('f')) {
    const dir = join(work, 'cot-history');
    mkdirSync(dir, { recursive: true });
    results.cot_history = await measureCotHistory(SHARED_DATA, dir, log);
    saveResults(results);
  }
  if (sections.has('g')) {
    results.first_start = await measureFirstStart(join(work, 'first-start'), log, servers);
    saveResults(results);
  }
  if (sections.has('h')) {
    if (!sections.has('a') && !sections.has('b')) ensureTools(log);
    results.keyed_floor = {};
    for (const scale of floorScales) {
      const { label, ...shape } = scale;
      results.keyed_floor[label] = await measureKeyedFloor(label, join(work, `floor-${label}`), shape, {
        seconds: LATENCY_SECONDS,
        log,
        servers,
        wrkSeconds: WRK.seconds,
        rounds: 3,
      });
      results.load_average.push({ after: `h ${label}`, load: loadavg()[0]! });
      saveResults(results);
    }
  }
  if (sections.has('i')) {
    results.event_latency = await measureEventLatency(join(work, 'event-latency'), {
      log,
      servers,
      sharedData: SHARED_DATA,
      releases: eventReleases,
      rows: EVENT_ROWS,
    });
    results.load_average.push({ after: 'i', load: loadavg()[0]! });
    saveResults(results);
  }
  if (sections.has('j')) {
    const releases = Number(flags['scale-out-releases']);
    if (!Number.isInteger(releases) || releases < 1)
      throw new Error('--scale-out-releases: a whole number of releases, 1 or more');
    results.scale_out =
      (await measureScaleOut(join(work, 'scale-out'), {
        log,
        servers,
        sharedData: SHARED_DATA,
        releases,
        instances: 3,
      })) ?? undefined;
    results.load_average.push({ after: 'j', load: loadavg()[0]! });
    saveResults(results);
  }
  if (sections.has('c')) await measureScales(results);
  const out = saveResults(results);
  const report = fullRun || flags.report ? writeReport(results) : null;
  log(`done in ${results.duration_s} s: ${out}${report ? ` and ${report}` : ''}`);
  for (const target of results.targets ?? []) {
    log(`${target.status.padEnd(12)} ${target.name}: ${target.measured}`);
  }
}

/**
 * Writes the results file (with the targets evaluated so far); also called after each store size,
 * so that a run that dies later (a machine out of memory) leaves what it measured.
 */
function saveResults(results: BenchResults): string {
  results.duration_s = Math.round((performance.now() - started) / 1000);
  results.targets = evaluateTargets(results);
  const out = flags.out ?? join(REPO_ROOT, 'bench-results', 'latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  return out;
}

/** c. The synthetic stores, smallest first; the largest also gets the incremental publish. */
async function measureScales(results: BenchResults): Promise<void> {
  const ordered = [...scales].sort((a, b) => a.series - b.series);
  const ecbDir = join(work, 'ecb');
  mkdirSync(ecbDir, { recursive: true });
  const ecb = prepareEcbInputs(SHARED_DATA, ecbDir);
  results.scale_settings = {
    scales: ordered.map((s) => s.label),
    limits: SCALE_LIMITS,
    generator_memory_limit: GENERATOR_MEMORY_LIMIT,
    generator_batch_rows: GENERATOR_BATCH_ROWS,
    ecb,
  };
  const skipped = SCALES.filter((s) => !ordered.includes(s)).map((s) => s.label);
  results.scale_note = skipped.length
    ? `Not run in this run (--scales): ${skipped.join(', ')}.`
    : 'All three sizes were run.';
  results.scale = {};
  for (const [index, scale] of ordered.entries()) {
    const { label, ...shape } = scale;
    const dir = join(work, `scale-${label}`);
    mkdirSync(dir, { recursive: true });
    results.scale[label] = await measureScale(label, dir, shape, {
      seconds: LATENCY_SECONDS,
      log,
      limits: SCALE_LIMITS,
      ecb,
      incremental: index === ordered.length - 1,
      generatorMemoryLimit: GENERATOR_MEMORY_LIMIT,
      batchRows: GENERATOR_BATCH_ROWS,
    });
    if (sections.has('j') && index === ordered.length - 1) {
      try {
        results.scale_out_store =
          (await measureScaleOutStore(label, join(dir, 'data'), join(work, `scale-out-${label}`), {
            log,
            servers,
          })) ?? undefined;
      } catch (error) {
        log(`j ${label}: failed: ${(error as Error).message}`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    results.load_average.push({ after: `scale ${label}`, load: loadavg()[0]! });
    saveResults(results);
  }
}

interface RealData {
  env: Record<string, string>;
  dataDir: string;
  distDir: string;
  snapshotId: string;
  keys: string[];
}

/**
 * Ingests every real file through the CLI, publishes, builds, issues benchmark keys. The ECB's
 * newest day comes last, as a release would: the history without it first (prepareEcbInputs),
 * a full build, then the day's files, a publish and the build on top of the first (issue 23).
 */
async function prepareRealData(results: BenchResults): Promise<RealData> {
  const dataDir = join(work, 'real', 'data');
  const distDir = join(work, 'real', 'dist');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: distDir, MMDS_TRUSTED_PROXIES: '1' };
  log('real data: ingesting ../shared/data through the CLI…');
  mkdirSync(join(work, 'real', 'ecb'), { recursive: true });
  const ecb = prepareEcbInputs(SHARED_DATA, join(work, 'real', 'ecb'));
  const newestDay = REAL_DATA_STEPS.filter(
    ([source, file]) => source === 'ecb' && !file!.endsWith('-hist.csv'),
  );
  let ingestS = 0;
  for (const [source, ...rest] of REAL_DATA_STEPS) {
    if (newestDay.some((step) => step[1] === rest[0])) continue;
    const files = source === 'ecb' ? [ecb.history.file] : rest;
    ingestS += runMmds(['ingest', source!, ...files], env).seconds;
  }
  let publish = runMmds(['publish'], env);
  log('real data: mmds build…');
  const build = runMmds(['build', '--json'], env);
  results.build = { real: buildFigures(build.stdout, build.seconds, distDir) };
  log(`real data: the ECB's newest day (${ecb.increment.date}), publish, mmds build on top of the first…`);
  for (const [source, ...rest] of newestDay) ingestS += runMmds(['ingest', source!, ...rest], env).seconds;
  publish = runMmds(['publish'], env);
  const next = runMmds(['build', '--json'], env);
  results.build.real_after_one_ecb_day = buildFigures(next.stdout, next.seconds, distDir);
  results.real_data = { ingest_s: ingestS, publish_s: publish.seconds };
  const keys = Array.from({ length: 8 }, () =>
    issueBenchKey(env, 'observations:read,cot:history,macro:history'),
  );
  return { env, dataDir, distDir, snapshotId: readCurrentId(resolveLayout(dataDir))!, keys };
}

/** What `mmds build --json` printed, with its wall time and the size of dist/ on disk. */
function buildFigures(stdout: string, seconds: number, distDir: string): BuildFigures {
  const summary = JSON.parse(stdout) as {
    files: number;
    bytes: number;
    routes: number;
    written?: number;
    reused?: number;
  };
  return {
    seconds,
    files: summary.files,
    bytes: summary.bytes,
    routes: summary.routes,
    dist_bytes_on_disk: directoryBytes(distDir),
    ...(summary.reused === undefined ? {} : { written: summary.written ?? 0, reused: summary.reused }),
  };
}

/** Sums the sizes of the files under a directory. */
function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/**
 * The header fields a server sent (for a bare server to send the same), written to `name` in the
 * work directory; the fields of the connection are left out.
 */
function recordFields(name: string, headers: Record<string, string | string[] | undefined>): string {
  const fields = Object.fromEntries(
    Object.entries(headers).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === 'string' && !['date', 'connection', 'keep-alive'].includes(entry[0]),
    ),
  );
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(fields));
  return file;
}

async function startBare(
  file: string,
  fieldsFile?: string,
  notModifiedFile?: string,
): Promise<ServerProcess> {
  const server = await startServer({
    name: 'bare node:http',
    command: process.execPath,
    args: [
      join(REPO_ROOT, 'scripts/bench/bare-server.ts'),
      file,
      ...(fieldsFile ? ['--fields', fieldsFile] : []),
      ...(notModifiedFile ? ['--not-modified', notModifiedFile] : []),
    ],
    port: (output) => {
      const match = /listening (\d+)/.exec(output);
      return match ? Number(match[1]) : null;
    },
  });
  servers.push(server);
  return server;
}

/** Runs wrk rounds over several targets, rotating their order, and keeps the median round of each. */
function compareTargets(
  targets: ReadonlyArray<{ name: string; url: string }>,
  scriptArgs: readonly string[],
): Record<string, LoadResult & { rounds: number[] }> {
  const settings = { ...WRK, scriptArgs };
  for (const target of targets) runWrk(target.url, { ...settings, seconds: 1 });
  const rounds = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const target of order) {
      const result = runWrk(target.url, settings);
      if (result.errors > 0) throw new Error(`${target.name}: ${result.errors} failed responses under load`);
      rounds.get(target.name)!.push(result);
      log(
        `  ${target.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`,
      );
    }
  }
  const medians: Record<string, LoadResult & { rounds: number[] }> = {};
  for (const [name, list] of rounds) {
    const sorted = [...list].sort((a, b) => a.rps - b.rps);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    medians[name] = { ...median, rounds: list.map((r) => Math.round(r.rps)) };
  }
  return medians;
}

/** a. The public endpoint through mmds serve, bare node:http, nginx plain and nginx with dist/nginx.conf. */
async function measurePublic(results: BenchResults, real: RealData): Promise<void> {
  log('a. public endpoint: starting servers…');
  const mmds = await startMmdsServe('mmds serve', real.env);
  servers.push(mmds);
  const file = join(real.distDir, 'api/v1/markets/cot/index.json');
  const bare = await startBare(file);
  const plain = await startPlainNginx(join(work, 'nginx-plain'), real.distDir);
  servers.push(plain);
  const site = await startMmdsNginx(join(work, 'nginx-mmds'), real.distDir, mmds.port);
  servers.push(site);
  const http = createHttpCaller(4);
  const expected = readFileSync(file);
  const targets = [
    { name: 'bare node:http', url: `${bare.url}${PUBLIC_PATH}` },
    { name: 'mmds serve', url: `${mmds.url}${PUBLIC_PATH}` },
    { name: 'nginx plain', url: `${plain.url}/api/v1/markets/cot/index.json` },
    { name: 'nginx + mmds build conf', url: `${site.url}${PUBLIC_PATH}` },
  ];
  for (const target of targets) {
    const response = await http.fetch(target.url);
    if (response.status !== 200 || Buffer.from(response.body).compare(expected) !== 0)
      throw new Error(`${target.name} does not send the same bytes (${response.status})`);
  }
  const checks = await checkNginxConf(http, site.url, real.keys[0]!, mmds.url);
  http.close();
  log(
    `a. wrk ${WRK.threads} threads, ${WRK.connections} connections, ${ROUNDS} x ${WRK.seconds} s per target…`,
  );
  const measured = compareTargets(targets, ['xff', String(XFF_ADDRESSES)]);
  results.public = {
    path: PUBLIC_PATH,
    body_bytes: expected.length,
    targets: measured,
    ratios: {
      mmds_serve_vs_bare_node: measured['mmds serve']!.rps / measured['bare node:http']!.rps,
      nginx_conf_vs_plain_nginx: measured['nginx + mmds build conf']!.rps / measured['nginx plain']!.rps,
    },
    nginx_conf_checks: checks,
    small: await measureSmallPublic(mmds.url, real.distDir),
  };
  results.load_average.push({ after: 'a', load: loadavg()[0]! });
  for (const server of [bare, plain, site]) {
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  }
}

/**
 * a, second part: a public answer of at most 20 KB through mmds serve against bare node:http
 * sending the same bytes, where the per-request work weighs more than writing the body.
 */
async function measureSmallPublic(
  mmdsUrl: string,
  distDir: string,
): Promise<NonNullable<BenchResults['public']>['small']> {
  const file = join(distDir, `${SMALL_PUBLIC_PATH.slice(1)}/index.json`);
  const expected = readFileSync(file);
  if (expected.length > SMALL_PUBLIC_MAX_BYTES)
    throw new Error(`${SMALL_PUBLIC_PATH} is ${expected.length} bytes, over ${SMALL_PUBLIC_MAX_BYTES}`);
  const http = createHttpCaller(1);
  // The same header fields as mmds serve sends (values of its first answer), from a bare server:
  // what sending them costs, apart from the work of computing them per request.
  const sent = await http.fetch(`${mmdsUrl}${SMALL_PUBLIC_PATH}`);
  const fieldsFile = recordFields('small-public-fields.json', sent.headers);
  const fields = JSON.parse(readFileSync(fieldsFile, 'utf8')) as Record<string, string>;
  const bare = await startBare(file);
  const bareFields = await startBare(file, fieldsFile);
  const targets = [
    { name: 'bare node:http', url: `${bare.url}${SMALL_PUBLIC_PATH}` },
    { name: 'bare node:http, same header fields', url: `${bareFields.url}${SMALL_PUBLIC_PATH}` },
    { name: 'mmds serve', url: `${mmdsUrl}${SMALL_PUBLIC_PATH}` },
  ];
  for (const target of targets) {
    const response = await http.fetch(target.url);
    if (response.status !== 200 || Buffer.from(response.body).compare(expected) !== 0)
      throw new Error(`${target.name} does not send the same bytes for ${SMALL_PUBLIC_PATH}`);
  }
  http.close();
  log(`a. public endpoint of ${expected.length} bytes (${SMALL_PUBLIC_PATH})…`);
  const measured = compareTargets(targets, ['xff', String(XFF_ADDRESSES)]);
  for (const server of [bare, bareFields]) {
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  }
  return {
    path: SMALL_PUBLIC_PATH,
    body_bytes: expected.length,
    fields,
    targets: measured,
    ratio_vs_bare_node: measured['mmds serve']!.rps / measured['bare node:http']!.rps,
  };
}

/** Requests that show what the generated nginx configuration answers itself and what it passes on. */
async function checkNginxConf(
  http: ReturnType<typeof createHttpCaller>,
  base: string,
  key: string,
  mmdsUrl: string,
): Promise<Array<{ request: string; status: number; expected: number; answered_by: string; ok: boolean }>> {
  const cases: Array<{
    request: string;
    path: string;
    headers?: Record<string, string>;
    method?: string;
    expected: number;
    by: string;
  }> = [
    { request: 'pre-rendered payload', path: PUBLIC_PATH, expected: 200, by: 'nginx' },
    { request: 'pre-rendered filter', path: '/api/v1/fx/ecb?currency=USD', expected: 200, by: 'nginx' },
    { request: 'unknown filter value', path: '/api/v1/fx/ecb?currency=QQQ', expected: 400, by: 'nginx' },
    { request: 'unknown path', path: '/api/v1/nothing-here', expected: 404, by: 'nginx' },
    { request: 'unknown market', path: '/api/v1/markets/cot/no-such-market', expected: 404, by: 'nginx' },
    {
      request: 'escaped filter value',
      path: '/api/v1/fx/ecb?currency=%55SD',
      expected: 200,
      by: 'mmds serve',
    },
    { request: 'unknown parameter', path: '/api/v1/sources?limit=5', expected: 400, by: 'mmds serve' },
    { request: 'live status', path: '/api/v1/status', expected: 200, by: 'mmds serve' },
    {
      request: 'keyed endpoint without key',
      path: `/api/v1/observations?series=${AS_OF_SERIES}`,
      expected: 401,
      by: 'mmds serve',
    },
    {
      request: 'keyed endpoint with key',
      path: `/api/v1/observations?series=${AS_OF_SERIES}&limit=1`,
      headers: { authorization: `Bearer ${key}` },
      expected: 200,
      by: 'mmds serve',
    },
    { request: 'POST', path: PUBLIC_PATH, method: 'POST', expected: 405, by: 'mmds serve' },
  ];
  const checks = [];
  for (const c of cases) {
    const response = await http.fetch(`${base}${c.path}`, c.headers, c.method);
    // mmds serve always sends rate-limit headers (and 12-character request ids); nginx's files never do.
    const by =
      response.headers['x-ratelimit-limit'] !== undefined ||
      String(response.headers['x-request-id']).length === 12
        ? 'mmds serve'
        : 'nginx';
    let ok = response.status === c.expected && by === c.by;
    if (ok && c.expected >= 400) {
      const body = JSON.parse(response.body) as { error?: { code?: string; request_id?: string } };
      ok =
        body.error?.request_id === response.headers['x-request-id'] &&
        response.headers['cache-control'] === 'no-store';
    }
    if (ok && c.by === 'nginx' && c.expected === 200) {
      const direct = await http.fetch(`${mmdsUrl}${c.path}`, { 'x-forwarded-for': '10.255.255.254' });
      ok =
        direct.body === response.body &&
        direct.headers['cache-control'] === response.headers['cache-control'];
    }
    checks.push({
      request: `${c.method ?? 'GET'} ${c.path}${c.headers ? ' (key)' : ''}`,
      status: response.status,
      expected: c.expected,
      answered_by: by,
      ok,
    });
    if (!ok) log(`  nginx conf check failed: ${c.request} -> ${response.status} by ${by}`);
  }
  return checks;
}

/** b. Keyed as_of over HTTP against the same query in-process, and a repeated keyed request. */
async function measureKeyed(results: BenchResults, real: RealData): Promise<void> {
  let mmds = servers.find((s) => s.name === 'mmds serve');
  if (!mmds) {
    mmds = await startMmdsServe('mmds serve', real.env);
    servers.push(mmds);
  }
  const asOf = (i: number) => `${new Date(AS_OF_BASE + i * 1000).toISOString().slice(0, 19)}Z`;
  const headersFor = (i: number) => ({ authorization: `Bearer ${real.keys[i % real.keys.length]}` });
  const concurrency: Record<string, { http: LoadResult; in_process: LoadResult; p50_ratio: number }> = {};
  const db = await openSnapshotDb(resolveLayout(real.dataDir), real.snapshotId, { poolSize: 4 });
  try {
    for (const c of [1, 4, 16]) {
      log(`b. keyed as_of, concurrency ${c}: HTTP and in-process, in turns…`);
      const http = createHttpCaller(c);
      // A new as_of each request: the response cache never answers, every request runs the query.
      // HTTP and in-process take turns in 1-second slices, so outside load hits both alike.
      const [overHttp, inProcess] = await runInterleaved(
        (i) =>
          http.get(`${mmds.url}/api/v1/observations?series=${AS_OF_SERIES}&as_of=${asOf(i)}`, headersFor(i)),
        async (i) => {
          await readObservationHistory(db, AS_OF_SERIES, {
            asOf: asOf(i),
            from: null,
            to: null,
            after: null,
            limit: 1000,
          });
          return true;
        },
        c,
        2 * LATENCY_SECONDS,
        2 * LATENCY_SECONDS,
      );
      http.close();
      if (overHttp.errors > 0) throw new Error(`keyed as_of: ${overHttp.errors} failed requests`);
      concurrency[String(c)] = {
        http: overHttp,
        in_process: inProcess,
        p50_ratio: overHttp.p50 / inProcess.p50,
      };
      log(`  HTTP p50 ${overHttp.p50.toFixed(1)} ms, in-process p50 ${inProcess.p50.toFixed(1)} ms`);
    }
  } finally {
    await db.close();
  }
  log('b. repeated keyed request (response cache) against bare node:http…');
  const url = `${mmds.url}/api/v1/observations?series=${AS_OF_SERIES}&as_of=${asOf(0)}`;
  const http = createHttpCaller(1);
  const first = await http.fetch(url, headersFor(0));
  http.close();
  if (first.status !== 200) throw new Error(`keyed request: ${first.status}`);
  const bodyFile = join(work, 'keyed-body.json');
  writeFileSync(bodyFile, first.body);
  const bare = await startBare(bodyFile);
  // The floor of issue 33: the same bytes with the same header fields.
  const fieldsFile = recordFields('keyed-fields.json', first.headers);
  const bareFields = await startBare(bodyFile, fieldsFile);
  const measured = compareTargets(
    [
      { name: 'bare node:http', url: `${bare.url}/api/v1/observations` },
      { name: 'bare node:http, same header fields', url: `${bareFields.url}/api/v1/observations` },
      { name: 'mmds serve (cached keyed)', url },
    ],
    ['keys', ...real.keys],
  );
  await bareFields.stop();
  servers.splice(servers.indexOf(bareFields), 1);

  // A client that has the answer already sends its ETag back: answered 304, against a bare server
  // answering 304 with the same fields as mmds serve's 304.
  log('b. conditional keyed request (If-None-Match) answered 304, against bare node:http answering 304…');
  const etag = first.headers.etag;
  if (typeof etag !== 'string') throw new Error('keyed request: no ETag');
  const probe = createHttpCaller(1);
  const conditional = await probe.fetch(url, { ...headersFor(0), 'if-none-match': etag });
  if (conditional.status !== 304)
    throw new Error(`conditional keyed request: ${conditional.status}, not 304`);
  const bare304 = await startBare(
    bodyFile,
    fieldsFile,
    recordFields('keyed-304-fields.json', conditional.headers),
  );
  const conditionalTargets = [
    { name: 'bare node:http answering 304', url: `${bare304.url}/api/v1/observations` },
    { name: 'mmds serve (304)', url },
  ];
  // Every key's request is a 304 at both (one ETag for every key of the same view).
  for (const target of conditionalTargets)
    for (const [i] of real.keys.entries()) {
      const answer = await probe.fetch(target.url, { ...headersFor(i), 'if-none-match': etag });
      if (answer.status !== 304)
        throw new Error(`${target.name}: ${answer.status} to If-None-Match, not 304`);
    }
  probe.close();
  const notModified = compareTargets(conditionalTargets, ['inm', etag, ...real.keys]);
  await bare304.stop();
  servers.splice(servers.indexOf(bare304), 1);
  results.keyed = {
    series: AS_OF_SERIES,
    body_bytes: Buffer.byteLength(first.body),
    as_of: concurrency,
    cached: {
      targets: measured,
      ratio_vs_bare_node: measured['mmds serve (cached keyed)']!.rps / measured['bare node:http']!.rps,
      ratio_vs_same_fields:
        measured['mmds serve (cached keyed)']!.rps / measured['bare node:http, same header fields']!.rps,
    },
    not_modified: {
      targets: notModified,
      ratio_vs_bare_304:
        notModified['mmds serve (304)']!.rps / notModified['bare node:http answering 304']!.rps,
    },
  };
  results.load_average.push({ after: 'b', load: loadavg()[0]! });
}

/** d. `mmds build` on a synthetic catalogue of 5,000 series (one observation each). */
async function measureSyntheticBuild(results: BenchResults): Promise<void> {
  log('d. mmds build on a synthetic catalogue of 5,000 series…');
  const dir = join(work, 'catalogue-5000');
  const dataDir = join(dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(dir, 'dist') };
  await generateSyntheticStore(
    dataDir,
    { series: 5000, periods: 1, revisions: 1 },
    { catalogSeries: true, now: new Date() },
  );
  runMmds(['publish'], env);
  const build = runMmds(['build', '--json'], env);
  const summary = JSON.parse(build.stdout) as { files: number; bytes: number; routes: number };
  results.build ??= {};
  results.build.synthetic_5000_series = {
    seconds: build.seconds,
    files: summary.files,
    bytes: summary.bytes,
    routes: summary.routes,
    dist_bytes_on_disk: directoryBytes(join(dir, 'dist')),
  };
  rmSync(dir, { recursive: true, force: true });
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const server of servers) await server.stop().catch(() => {});
    if (flags.keep) log(`work directory kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
    // Keep-alive sockets of the load generators would hold the process open after the report.
    process.exit();
  });

/** The commit of the checkout whose bin/mmds.js is measured, or undefined outside git. */
function readCommit(): string | undefined {
  const run = spawnSync('git', ['rev-parse', 'HEAD'], {
    cwd: process.env.BENCH_MMDS_ROOT ?? REPO_ROOT,
    encoding: 'utf8',
  });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

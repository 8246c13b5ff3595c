/**
 * Child processes of the benchmark: every server runs in its own process on loopback, is told
 * apart by its pid, and is stopped by that pid only.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI entry, run with the Node that runs the harness (the project's Node 24). */
export const MMDS_BIN = `${REPO_ROOT}bin/mmds.js`;
/**
 * The CLI whose `mmds serve` is measured: this checkout, or the one BENCH_MMDS_ROOT names (with
 * its node_modules), e.g. the code before a change, serving the same data and dist/.
 */
export const SERVE_BIN = process.env.BENCH_MMDS_ROOT
  ? `${process.env.BENCH_MMDS_ROOT.replace(/\/$/, '')}/bin/mmds.js`
  : MMDS_BIN;

let serveKnowsWorkers: boolean | null = null;

/**
 * `--workers <n>` for the `mmds serve` measured, or nothing when its CLI has no such flag (a
 * "before" run of BENCH_MMDS_ROOT, which is one process anyway). The benchmark measures one
 * process (its RSS, its throughput) unless a row names more: `serve` defaults to one per core.
 */
export function serveWorkersArgs(workers = 1): string[] {
  serveKnowsWorkers ??= spawnSync(process.execPath, [SERVE_BIN, 'serve', '--help'], {
    encoding: 'utf8',
  }).stdout.includes('--workers');
  return serveKnowsWorkers ? ['--workers', String(workers)] : [];
}

/** A started server process. */
export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  url: string;
  child: ChildProcess;
  /** Output lines seen so far (stderr and stdout), for error messages. */
  output: () => string;
  stop(): Promise<void>;
}

/** Options of a server start. */
export interface StartOptions {
  name: string;
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  /** Working directory (default: this process's). */
  cwd?: string;
  /** Finds the port in the output; resolves when it appears. */
  port: (output: string) => number | null;
  timeoutMs?: number;
  /** Signal that stops it gracefully (SIGTERM; nginx: SIGQUIT). */
  stopSignal?: NodeJS.Signals;
  /** Keep stdout out of memory (request logs of a loaded server). */
  discardStdout?: boolean;
  /** Called with the pid right after the spawn (e.g. to watch its memory while it starts). */
  onSpawn?: (pid: number) => void;
}

/** Starts a server and waits until its output names the port it listens on. */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const child = spawn(options.command, [...options.args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', options.discardStdout ? 'ignore' : 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start ${options.command}`);
  options.onSpawn?.(pid);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${options.name}: no port within ${options.timeoutMs ?? 120_000} ms\n${output}`)),
      options.timeoutMs ?? 120_000,
    );
    const check = () => {
      const found = options.port(output);
      if (found !== null) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        child.stderr?.off('data', check);
        resolve(found);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    check();
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited (${code}) before listening:\n${output}`));
    });
  });
  // Request logs are not kept once it listens (a loaded server writes megabytes of them).
  if (!options.discardStdout) {
    child.stdout?.off('data', keep);
    child.stdout?.resume();
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    name: options.name,
    pid,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill(options.stopSignal ?? 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * `--cpu-prof` into BENCH_CPU_PROF_DIR for the long-running processes measured (servers,
 * deliverers), or nothing: where their time goes, as .cpuprofile files (NODE_OPTIONS may not
 * carry --cpu-prof). The profiler slows them: figures of such a run are not the benchmark's.
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/** Starts `mmds serve` on a free loopback port with the given environment. */
export function startMmdsServe(
  name: string,
  env: Record<string, string>,
  options: { timeoutMs?: number; onSpawn?: (pid: number) => void; workers?: number } = {},
): Promise<ServerProcess> {
  return startServer({
    name,
    command: process.execPath,
    args: [
      ...profileArgs(),
      SERVE_BIN,
      'serve',
      ...serveWorkersArgs(options.workers),
      '--port',
      '0',
      '--host',
      '127.0.0.1',
    ],
    env,
    port: (output) => {
      const match = /serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      return match ? Number(match[1]) : null;
    },
    ...options,
  });
}

/**
 * Starts `mmds <args>` (a server, `mmds deliver`, `mmds serve --from`) as a child process with
 * its stdout dropped, ready when its stderr matches `ready` (group 1: the port, if any). The CLI
 * measured is SERVE_BIN (BENCH_MMDS_ROOT's for a "before" run).
 */
export function startMmdsProcess(
  args: readonly string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ServerProcess> {
  return startServer({
    name: `mmds ${args.join(' ')}`,
    command: process.execPath,
    args: [...profileArgs(), SERVE_BIN, ...args],
    env,
    discardStdout: !process.env.BENCH_DEBUG,
    port: (output) => {
      const match = ready.exec(output);
      return match ? Number(match[1] ?? 0) : null;
    },
  });
}

/** Resident and peak memory of a process, in bytes (from /proc/<pid>/status). */
export function readMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** readMemory, or null once the process is gone (or a zombie, whose memory is released). */
function tryReadMemory(pid: number): { rss: number; peak: number } | null {
  try {
    const memory = readMemory(pid);
    return memory.peak > 0 ? memory : null;
  } catch {
    return null;
  }
}

/**
 * Watches a process's peak resident memory: VmHWM (the kernel's high-water mark of VmRSS since
 * the process started) sampled every `pollMs` until `stop()`. Only growth in the last interval
 * before the process exits can be missed (its /proc entry has no memory figures after exit).
 */
export function watchPeakMemory(pid: number, pollMs = 100): { peak: () => number; stop: () => number } {
  let peak = 0;
  const sample = () => {
    const memory = tryReadMemory(pid);
    if (memory && memory.peak > peak) peak = memory.peak;
  };
  sample();
  const timer = setInterval(sample, pollMs);
  return {
    peak: () => peak,
    stop: () => {
      sample();
      clearInterval(timer);
      return peak;
    },
  };
}

/** A child process run measured from outside: exit, wall time and peak resident memory. */
export interface MeasuredRun {
  /** The command line, with the repository root left out. */
  command: string;
  ok: boolean;
  exit_code: number | null;
  signal: string | null;
  /** Stopped by the harness after `timeout_s`. */
  timed_out: boolean;
  timeout_s: number;
  /** From the spawn to the exit. */
  seconds: number;
  /** VmHWM of the process (sampled every 100 ms until it exited). */
  peak_rss_bytes: number;
  /** The last 2,000 characters of stderr, kept when the run failed. */
  stderr_tail?: string;
}

/** Options of a measured run. */
export interface MeasuredRunOptions {
  env?: Record<string, string>;
  /** SIGTERM after this many seconds, SIGKILL 15 s later. */
  timeoutS: number;
  /** Progress every `progressS` seconds while it runs (time and memory). */
  log?: (line: string) => void;
  progressS?: number;
}

/**
 * Runs a command as its own process, polls its VmHWM until it exits, and never throws on a
 * failure: the exit status, the signal, a time-out and the tail of stderr are in the result.
 */
export async function runMeasured(
  command: string,
  args: readonly string[],
  options: MeasuredRunOptions,
): Promise<MeasuredRun & { stdout: string }> {
  const display = [command === process.execPath ? 'node' : command, ...args]
    .join(' ')
    .replaceAll(REPO_ROOT, '');
  const started = performance.now();
  const child = spawn(command, [...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (stdout.length < 64 * 1024 * 1024) stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const watch = child.pid === undefined ? null : watchPeakMemory(child.pid);
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const timeout = setTimeout(() => {
    timedOut = true;
    options.log?.(`${display}: no exit after ${options.timeoutS} s, stopping it (pid ${child.pid})`);
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  }, options.timeoutS * 1000);
  const progress =
    options.log && options.progressS
      ? setInterval(() => {
          const memory = child.pid === undefined ? null : tryReadMemory(child.pid);
          options.log?.(
            `  ${display.split(' ').slice(0, 3).join(' ')}: ${((performance.now() - started) / 1000).toFixed(0)} s, ` +
              `RSS ${((memory?.rss ?? 0) / 2 ** 30).toFixed(2)} GB (peak ${((watch?.peak() ?? 0) / 2 ** 30).toFixed(2)} GB)`,
          );
        }, options.progressS * 1000)
      : undefined;
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', (error) => {
      stderr += `\n${error.message}`;
      resolve([null, null]);
    });
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  clearTimeout(timeout);
  clearTimeout(killTimer);
  clearInterval(progress);
  const peak = watch?.stop() ?? 0;
  const ok = code === 0 && !timedOut;
  return {
    command: display,
    ok,
    exit_code: code,
    signal,
    timed_out: timedOut,
    timeout_s: options.timeoutS,
    seconds: (performance.now() - started) / 1000,
    peak_rss_bytes: peak,
    ...(ok ? {} : { stderr_tail: stderr.trim().slice(-2000) }),
    stdout,
  };
}

/** Runs `mmds <args>` measured (runMeasured): the CLI of this checkout, as an operator would. */
export function runMmdsMeasured(
  args: readonly string[],
  options: MeasuredRunOptions,
): Promise<MeasuredRun & { stdout: string }> {
  return runMeasured(process.execPath, [MMDS_BIN, ...args], options);
}

/** The result of a CLI run. */
export interface CliResult {
  seconds: number;
  stdout: string;
  stderr: string;
}

/** Runs `mmds <args>` as its own process (as an operator would) and times it; throws on failure. */
export function runMmds(args: readonly string[], env: Record<string, string>): CliResult {
  const started = performance.now();
  const result = spawnSync(process.execPath, [MMDS_BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) {
    throw new Error(`mmds ${args.join(' ')} failed (${result.status}): ${result.stderr.trim().slice(-2000)}`);
  }
  return { seconds, stdout: result.stdout, stderr: result.stderr };
}

/** Issues a benchmark key through the CLI (`--rate-limit 100000`, so limits never refuse) and returns it. */
export function issueBenchKey(env: Record<string, string>, scopes: string): string {
  const issued = runMmds(
    ['keys', 'issue', '--org', 'bench', '--scopes', scopes, '--rate-limit', '100000', '--json'],
    env,
  );
  return (JSON.parse(issued.stdout) as { key: string }).key;
}

/** Runs a command and returns its stdout (trimmed), or null when it is missing or fails. */
export function tryCommand(command: string, args: readonly string[]): string | null {
  const result = spawnSync(command, [...args], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  return `${result.stdout}${result.stderr}`.trim();
}

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
  /** Finds the port in the output; resolves when it appears. */
  port: (output: string) => number | null;
  timeoutMs?: number;
  /** Signal that stops it gracefully (SIGTERM; nginx: SIGQUIT). */
  stopSignal?: NodeJS.Signals;
  /** Keep stdout out of memory (request logs of a loaded server). */
  discardStdout?: boolean;
}

/** Starts a server and waits until its output names the port it listens on. */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const child = spawn(options.command, [...options.args], {
    env: { ...process.env, ...options.env },
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

/** Starts `mmds serve` on a free loopback port with the given environment. */
export function startMmdsServe(name: string, env: Record<string, string>): Promise<ServerProcess> {
  return startServer({
    name,
    command: process.execPath,
    args: [SERVE_BIN, 'serve', '--port', '0', '--host', '127.0.0.1'],
    env,
    port: (output) => {
      const match = /serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      return match ? Number(match[1]) : null;
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

/** Runs a command and returns its stdout (trimmed), or null when it is missing or fails. */
export function tryCommand(command: string, args: readonly string[]): string | null {
  const result = spawnSync(command, [...args], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  return `${result.stdout}${result.stderr}`.trim();
}

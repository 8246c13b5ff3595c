import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './paths.ts';

/** One `mmds serve` child process. */
export interface ServeProcess {
  child: ChildProcess;
  /** Its base URL, without a trailing slash. */
  url: string;
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote on stdout (one JSON log line per request). */
  stdout: string[];
  /** The lines it wrote on stderr, up to "mmds: serving on" and on. */
  stderr: string[];
}

/**
 * Starts `bin/mmds.js serve <args>` (with `--workers 1` unless `args` name workers) with process.execPath, the test's environment without its
 * MMDS_ variables plus `env`, and waits for its `mmds: serving on <url>` line (`startMs`, default
 * 30 s at most).
 */
export async function spawnServe(
  env: Record<string, string>,
  args: readonly string[] = [],
  startMs = 30_000,
): Promise<ServeProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
  );
  // One process unless the test asks for workers: N of them take N times the CPU to start, on a
  // machine every test file shares (test/e2e/server/workers.test.ts runs them).
  const workers = args.includes('--workers') ? [] : ['--workers', '1'];
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'serve', ...workers, ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const stdout: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
  const stderr: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A test that fails here never gets the process to stop: it must not outlive the run.
      child.kill('SIGKILL');
      reject(new Error(`mmds serve did not start:\n${stderr.join('\n')}`));
    }, startMs);
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr.push(line);
      const match = /^mmds: serving on (\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`mmds serve exited (${code ?? signal}) before serving:\n${stderr.join('\n')}`));
    });
  });
  return { child, url: url.replace(/\/$/, ''), exited, stdout, stderr };
}

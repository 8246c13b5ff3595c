import { spawn, spawnSync } from 'node:child_process';

/** Debian's Python 3 (python3-pandas is a Debian package; a pyenv python3 earlier in PATH is not it). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/** Whether Debian's python3 imports pandas (the prerequisite python3-pandas). */
export function hasSystemPandas(): boolean {
  return spawnSync(SYSTEM_PYTHON, ['-c', 'import pandas'], { stdio: 'ignore' }).status === 0;
}

/** What a Python run printed and returned. */
export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script with Debian's python3 and the given environment added (asynchronously: the test's server keeps serving). */
export function runSystemPython(args: readonly string[], env: Record<string, string>): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(SYSTEM_PYTHON, [...args], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/paths.ts';

/** What one `bin/mmds.js` process printed and how it exited. */
export interface SpawnedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `bin/mmds.js` in a child process (process.execPath is the project's Node 24), with
 * the test runner's environment minus every MMDS_* variable, plus `env`: what a user's shell
 * does, including the composition root's reading of the environment and the process exit code.
 */
export function spawnMmds(argv: readonly string[], env: Record<string, string>): Promise<SpawnedRun> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
  );
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), ...argv], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The non-empty lines of a stream's text. */
export const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');

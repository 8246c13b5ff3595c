import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/load-config.ts';

/** The fixed clock of the fixtures: builds and payloads are reproducible. */
export const FIXTURE_NOW = new Date('2026-11-23T12:00:00Z');

/** What a CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mmds` in-process against a data directory, capturing its output. */
export async function runMmds(
  argv: readonly string[],
  env: Record<string, string>,
  now: () => Date = () => FIXTURE_NOW,
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await runCli(argv, {
    config: loadConfig(env, process.cwd()),
    now,
    stdout,
    stderr,
    interactive: false,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

import { Command, CommanderError } from 'commander';
import { OutputDirError } from '../build/run-static-build.ts';
import { ConfigError } from '../config/load-config.ts';
import { FetchError } from '../fetch/fetch-error.ts';
import { InputError } from '../ingest/input-error.ts';
import { RevisionRefusedError } from '../store/append-batch.ts';
import { LockedError } from '../store/lock.ts';
import { PublishRefusedError } from '../store/publish.ts';
import { PIPELINE_VERSION } from '../version.ts';
import { registerBuild } from './commands/build.ts';
import { registerFetch } from './commands/fetch.ts';
import { registerIngest } from './commands/ingest.ts';
import { registerIngestPlan } from './commands/ingest-plan.ts';
import { registerKeys } from './commands/keys.ts';
import { registerPublish } from './commands/publish.ts';
import { registerServe } from './commands/serve.ts';
import { registerUpdate } from './commands/update.ts';
import { registerVerify } from './commands/verify.ts';
import type { CliContext, CommandContext } from './context.ts';
import { describeSystemError } from './describe-system-error.ts';
import { ExitStatus, ReportedFailure } from './reported-failure.ts';
import { createReporter } from './reporter.ts';
import { UsageError } from './usage-error.ts';

/** Exit codes of `mmds` (sysexits-style where one fits). */
export const EXIT = { ok: 0, failure: 1, usage: 2, locked: 75, config: 78, internal: 70 } as const;

/** Builds the `mmds` program; commands get their context when they run. */
export function createProgram(context: CliContext): Command {
  const program = new Command('mmds')
    .description('Market and Macro Data Service: publishing pipeline, static build and API server')
    .version(PIPELINE_VERSION)
    .option('--json', 'print the result as JSON on stdout (for scripts); no progress on stderr')
    .showHelpAfterError('(run mmds --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    })
    .addHelpText(
      'after',
      `
Every command prints a summary line on stdout, progress on stderr (a bar on a terminal), and
with --json one JSON document on stdout instead. Errors are one line on stderr starting "mmds:";
exit codes: 0 ok, 1 failed, 2 wrong usage, 3 nothing new (mmds update), 70 internal error,
75 data directory busy, 78 bad configuration.

Configuration (environment, read once at start):
  MMDS_DATA_DIR         store, snapshots and local state (default ./data)
  MMDS_STORAGE          key and rate-limit state: file (default), memory or redis://host:port
  MMDS_DIST_DIR         where build writes and serve reads the static files (default ./dist)
  MMDS_KEEP_SNAPSHOTS   snapshots publish keeps besides the current one and its parent (default 5)
  MMDS_KEY_PEPPER       secret mixed into stored key hashes (HMAC-SHA-256)
  MMDS_TRUSTED_PROXIES  X-Forwarded-For hops to trust for the client IP (default 0)
  PORT, HOST            where serve listens (default 4321 on 127.0.0.1)
  MMDS_BLS_API_KEY      BLS Public Data API registration key (fetch bls; optional, v1 limits without)
  MMDS_FRED_API_KEY     FRED API key (fetch fred; required for it)
  MMDS_<SOURCE>_BASE_URL  a mirror of a publisher with its URL layout (e.g. MMDS_CFTC_BASE_URL)
  MMDS_CFTC_REPORTS     COT reports fetch and update download (default legacy,disaggregated,tff,cit)
  MMDS_FETCH_TIMEOUT_MS  time-out of one download attempt in ms (default 120000)
  MMDS_FETCH_RETRIES    retries of a failed download (default 4)
  MMDS_FETCH_BACKOFF_MS  first back-off between retries in ms, growing per attempt (default 1000)
  MMDS_FETCH_MAX_BYTES  largest file a download accepts (default 536870912, 512 MiB)
  MMDS_MEMORY_LIMIT     DuckDB memory of one command, e.g. 1GB or 512MB; spills to disk past it (default 1GB)
  MMDS_PARTITION_ROWS   revisions per snapshot partition publish aims at (default 250000)

Examples:
  mmds ingest-plan data/sample/pipeline.json && mmds publish && mmds build && mmds serve
  mmds ingest ecb eurofxref-hist.csv
  mmds --json publish
  mmds help keys issue`,
    );
  program.exitOverride();
  const getContext = (): CommandContext => ({
    ...context,
    reporter: createReporter({
      stdout: context.stdout,
      stderr: context.stderr,
      json: Boolean(program.opts().json),
      interactive: context.interactive,
    }),
  });
  registerIngest(program, getContext);
  registerIngestPlan(program, getContext);
  registerFetch(program, getContext);
  registerUpdate(program, getContext);
  registerPublish(program, getContext);
  registerVerify(program, getContext);
  registerKeys(program, getContext);
  registerBuild(program, getContext);
  registerServe(program, getContext);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs `mmds` with the given arguments and returns the exit code. This is the one place where
 * errors become a one-line message and an exit code.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const program = createProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(error, context);
  }
}

function reportError(error: unknown, context: CliContext): number {
  const say = (message: string) => context.stderr.write(`mmds: ${message}\n`);
  if (error instanceof CommanderError) {
    // Commander has printed help, the version or its own one-line message already.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError || error instanceof OutputDirError) {
    say(error.message);
    return EXIT.usage;
  }
  if (error instanceof FetchError) {
    say(`${error.message} (the store is unchanged)`);
    return EXIT.failure;
  }
  if (error instanceof InputError || error instanceof RevisionRefusedError) {
    say(`${error.message} (the store is unchanged)`);
    return EXIT.failure;
  }
  if (error instanceof PublishRefusedError) {
    for (const problem of error.problems) context.stderr.write(`  ${problem.check}: ${problem.message}\n`);
    say(`${error.message}; CURRENT is unchanged: fix the input named above, ingest it again, then publish`);
    return EXIT.failure;
  }
  if (error instanceof ReportedFailure) {
    say(error.message);
    return EXIT.failure;
  }
  if (error instanceof ExitStatus) return error.code;
  if (error instanceof LockedError) {
    say(error.message);
    return EXIT.locked;
  }
  if (error instanceof ConfigError) {
    say(`configuration: ${error.message}`);
    return EXIT.config;
  }
  const system = describeSystemError(error);
  if (system !== null) {
    say(system);
    return EXIT.failure;
  }
  say(`internal error: ${error instanceof Error ? error.message : String(error)} (please report it)`);
  return EXIT.internal;
}

import { Command, CommanderError } from 'commander';
import { formatSettingsHelp } from '../config/settings-text.ts';
import { EXIT, EXIT_ERROR_CODES, MmdsError, ruleOf } from '../lib/errors.ts';
import { PIPELINE_VERSION } from '../version.ts';
import type { CliContext, CommandContext } from './context.ts';
import { dataDirUse, prepareDataDir } from './data-dir.ts';
import { describeSystemError, isServiceUnavailable } from './describe-system-error.ts';
import { ExitStatus } from './reported-failure.ts';
import { createReporter } from './reporter.ts';

/** Exit codes and the --json codes of each: rows of the one code table (lib/errors.ts). */
export { EXIT, EXIT_ERROR_CODES };

/** The exit-code table of `mmds --help` (docs/cli.md has the same table). */
export const EXIT_CODE_HELP = `Exit codes (the same for every command):
  0   ok
  1   failed: bad input data, verification or publish refused, a source of mmds update failed,
      out of memory
  2   wrong usage: unknown command, source or flag, a bad flag value, a file argument that is missing
  3   nothing new (mmds update only)
  69  unavailable: a download failed (publisher down, HTTP error, bad file), Redis is unreachable,
      or the bucket of --to/--from failed (unreachable, no such bucket, access denied,
      no conditional writes)
  70  internal error (a bug: please report it)
  75  the data directory is busy (another mmds holds its lock)
  78  bad configuration: an environment variable, MMDS_DATA_DIR missing for a command that reads it,
      or no S3 credentials for --to/--from`;

/** Adds one command (and its subcommands) to the program. */
export type RegisterCommand = (program: Command, getContext: () => CommandContext) => void;

/**
 * Each command's module, loaded when it runs: a command imports only what it uses, so that
 * `mmds keys issue` does not load DuckDB, Astro and the server (a start of about 2 s before).
 * In the order `mmds --help` lists them.
 */
const COMMAND_MODULES: Record<string, () => Promise<RegisterCommand>> = {
  ingest: async () => (await import('./commands/ingest.ts')).registerIngest,
  'ingest-plan': async () => (await import('./commands/ingest-plan.ts')).registerIngestPlan,
  fetch: async () => (await import('./commands/fetch.ts')).registerFetch,
  update: async () => (await import('./commands/update.ts')).registerUpdate,
  publish: async () => (await import('./commands/publish.ts')).registerPublish,
  verify: async () => (await import('./commands/verify.ts')).registerVerify,
  store: async () => (await import('./commands/store.ts')).registerStore,
  keys: async () => (await import('./commands/keys.ts')).registerKeys,
  hooks: async () => (await import('./commands/hooks.ts')).registerHooks,
  deliver: async () => (await import('./commands/deliver.ts')).registerDeliver,
  build: async () => (await import('./commands/build.ts')).registerBuild,
  serve: async () => (await import('./commands/serve.ts')).registerServe,
  mcp: async () => (await import('./commands/mcp.ts')).registerMcp,
};

/** Every command's registration, in the order of `mmds --help`. */
export function loadAllCommands(): Promise<RegisterCommand[]> {
  return Promise.all(Object.values(COMMAND_MODULES).map((load) => load()));
}

/**
 * The commands a command line needs: the one it names (also after `help`), or all of them for
 * the program's own help, its version and a name that is no command (commander's suggestion).
 * The only options before a command are flags without a value (--json, --help, --version).
 */
export async function loadCommandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const flags = new Set(argv);
  if (
    words.length === 0 &&
    (flags.has('--version') || flags.has('-V')) &&
    !flags.has('--help') &&
    !flags.has('-h')
  )
    return [];
  const name = words[0] === 'help' ? words[1] : words[0];
  const load = name !== undefined && Object.hasOwn(COMMAND_MODULES, name) ? COMMAND_MODULES[name] : undefined;
  return load ? [await load()] : loadAllCommands();
}

/** Builds the `mmds` program with the given commands; commands get their context when they run. */
export function createProgram(context: CliContext, commands: readonly RegisterCommand[]): Command {
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
with --json a failure also prints one JSON document on stdout,
{"error":{"code":"unavailable","exit_code":69,"message":"<the same line>"}}.

${EXIT_CODE_HELP}

${formatSettingsHelp()}

Examples:
  mmds ingest-plan data/sample/pipeline.json && mmds publish && mmds build && mmds serve
  mmds ingest ecb eurofxref-hist.csv
  mmds --json publish
  mmds help keys issue`,
    );
  program.exitOverride();
  program.hook('preAction', (_program, action) => {
    for (const warning of context.config.warnings ?? []) context.stderr.write(`warning: ${warning}\n`);
    const names: string[] = [];
    for (let command: Command | null = action; command?.parent; command = command.parent)
      names.unshift(command.name());
    // A server following a bucket (serve --from) fills its data directory itself.
    const following = names.join(' ') === 'serve' && action.opts().from !== undefined;
    const use = following ? 'creates' : dataDirUse(names.join(' '), context.config.storage);
    prepareDataDir(use, context.config.dataDir, (path) =>
      context.stderr.write(`mmds: created data directory ${path}\n`),
    );
  });
  const getContext = (): CommandContext => ({
    ...context,
    reporter: createReporter({
      stdout: context.stdout,
      stderr: context.stderr,
      json: Boolean(program.opts().json),
      interactive: context.interactive,
      onResult: () => {
        resultWritten.add(program);
      },
    }),
  });
  for (const register of commands) register(program, getContext);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Programs whose command already printed its --json result document (then no error document). */
const resultWritten = new WeakSet<Command>();

/**
 * Runs `mmds` with the given arguments and returns the exit code. This is the one place where
 * errors become a one-line message and an exit code (and, with --json, one JSON document).
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const program = createProgram(context, await loadCommandsFor(argv));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    const failure = classifyError(error);
    if (failure.details) context.stderr.write(failure.details);
    if (failure.say !== null) context.stderr.write(`mmds: ${failure.say}\n`);
    const json = Boolean(program.opts().json) || wantsJson(argv);
    if (json && failure.message !== null && !resultWritten.has(program))
      writeJsonError(context.stdout, failure.code, failure.message);
    return failure.code;
  }
}

/** --json given before any `--` (commander may have failed before it parsed the flag). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** Writes the --json error document: `{"error":{"code","exit_code","message"}}` on one line. */
export function writeJsonError(stdout: NodeJS.WritableStream, exitCode: number, message: string): void {
  const code = EXIT_ERROR_CODES[exitCode] ?? 'failed';
  stdout.write(`${JSON.stringify({ error: { code, exit_code: exitCode, message } })}\n`);
}

/**
 * A configuration that could not be loaded, reported by a composition root before runCli runs:
 * the stderr line, the --json document if asked for, and exit code 78.
 */
export function reportConfigFailure(
  error: unknown,
  argv: readonly string[],
  output: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): number {
  const message = `configuration: ${error instanceof Error ? error.message : String(error)}`;
  output.stderr.write(`mmds: ${message}\n`);
  if (wantsJson(argv)) writeJsonError(output.stdout, EXIT.config, message);
  return EXIT.config;
}

/** How an error ends the run: the exit code, the stderr line (null: already printed), the JSON message. */
interface Failure {
  code: number;
  say: string | null;
  /** The message of the --json error document; null when the run ends without an error. */
  message: string | null;
  /** Lines printed on stderr before the message (the problems a refused publish found). */
  details?: string;
}

/**
 * An MmdsError ends the run as its code's row of lib/errors.ts says (exit code, message); a few
 * values without a code are read here: commander's own errors, a documented exit status, errors
 * of the environment, DuckDB's memory limit, and anything else as an internal error.
 */
function classifyError(error: unknown): Failure {
  const fail = (code: number, message: string): Failure => ({ code, say: message, message });
  const rule = ruleOf(error);
  // A code whose row says internal goes on to the checks below, as an error without one.
  if (rule && rule.json !== 'internal' && error instanceof MmdsError) {
    const message = rule.say(error.message);
    const details = error.details();
    return details ? { code: rule.exit, details, say: message, message } : fail(rule.exit, message);
  }
  if (error instanceof CommanderError) {
    // Commander has printed help, the version or its own one-line message already.
    if (error.exitCode === 0) return { code: EXIT.ok, say: null, message: null };
    return { code: EXIT.usage, say: null, message: error.message.replace(/^error: /, '') };
  }
  // A documented status other than 0 without an error (mmds update: 3 nothing new).
  if (error instanceof ExitStatus) return { code: error.code, say: null, message: null };
  const system = describeSystemError(error);
  if (system !== null) return fail(isServiceUnavailable(error) ? EXIT.unavailable : EXIT.failure, system);
  // DuckDB refuses a query past its memory limit: a limit of the machine, not a bug; writes are atomic.
  if (error instanceof Error && error.message.startsWith('Out of Memory Error'))
    return fail(
      EXIT.failure,
      `out of memory: ${error.message} (nothing half-written was kept; run it again with more free memory, and report the store's size if it keeps failing)`,
    );
  return internalError(error);
}

function internalError(error: unknown): Failure {
  const message = `internal error: ${error instanceof Error ? error.message : String(error)} (please report it)`;
  return { code: EXIT.internal, say: message, message };
}

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSystemError } from '../../src/cli/describe-system-error.ts';
import { createReporter, formatProgressBar } from '../../src/cli/reporter.ts';
import { createProgram, loadAllCommands } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../helpers/paths.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

/** Every command and subcommand of `mmds`, as the words that name it (`['keys', 'issue']`). */
async function listCommands(): Promise<{ names: string[]; command: Command }[]> {
  const program = createProgram(
    {
      config: loadConfig({}, process.cwd()),
      now: () => new Date(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      interactive: false,
    },
    await loadAllCommands(),
  );
  const found: { names: string[]; command: Command }[] = [];
  const walk = (command: Command, names: string[]) => {
    for (const child of command.commands) {
      if (child.name() === 'help') continue;
      found.push({ names: [...names, child.name()], command: child });
      walk(child, [...names, child.name()]);
    }
  };
  walk(program, []);
  return found;
}

const COMMANDS = await listCommands();
const ENV = { MMDS_STORAGE: 'memory' };

describe('mmds --help of every command', () => {
  it('covers the commands of the contract', () => {
    const names = COMMANDS.map((c) => c.names.join(' '));
    for (const name of [
      'ingest',
      'ingest-plan',
      'fetch',
      'publish',
      'verify',
      'build',
      'serve',
      'keys issue',
      'keys list',
      'keys rotate',
      'keys revoke',
    ])
      expect(names).toContain(name);
  });

  for (const { names, command } of COMMANDS) {
    it(`mmds ${names.join(' ')} --help: description, every option, --json, examples`, async () => {
      const run = await runMmds([...names, '--help'], ENV);
      expect(run.code).toBe(0);
      const help = run.stdout;
      expect(command.description().length).toBeGreaterThan(10);
      expect(help).toContain(command.description().slice(0, 40));
      for (const option of command.options) {
        expect(option.description.length, `${names.join(' ')} ${option.flags}`).toBeGreaterThan(5);
        expect(help).toContain(option.long!);
      }
      for (const argument of command.registeredArguments) {
        expect(argument.description.length, argument.name()).toBeGreaterThan(5);
        expect(help).toContain(argument.name());
      }
      // The global flag is documented on every command's own help.
      expect(help).toMatch(/--json\s+print the result as JSON/);
      const examples = help.slice(help.indexOf('\nExamples:\n'));
      expect(help).toContain('\nExamples:\n');
      const lines = examples.split('\n').filter((line) => /^ {2}\S/.test(line));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(new RegExp(`mmds (--json )?${names[0]}\\b`));
    });
  }

  it('mmds --help lists every environment variable the configuration reads', async () => {
    const run = await runMmds(['--help'], ENV);
    // Every variable the configuration reads is a row of the settings table (settings-list.test.ts
    // holds src/ to that).
    const variables = SETTINGS.map((setting) => setting.variable);
    expect(variables).toContain('MMDS_REVISION_CACHE_MB');
    for (const name of new Set(variables)) expect(run.stdout).toContain(name);
  });
});

describe('--json on every command prints one JSON document', () => {
  const temp = createTempDir('mmds-cli-json-');
  const env = {
    MMDS_DATA_DIR: join(temp.dir, 'data'),
    MMDS_DIST_DIR: join(temp.dir, 'dist'),
    MMDS_STORAGE: 'file',
  };
  let server: Server;
  let baseUrl: string;
  const daily = readFileSync(join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml'), 'utf8');
  // The sample's day moved back a year stands in for the 90-day file (the same gesmes layout).
  const ninetyDay = daily.replace(/time='(\d{4})/, (_, year: string) => `time='${Number(year) - 1}`);

  const json = async (argv: string[]) => {
    const run = await runMmds(argv, env);
    expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
    // Nothing but the one document on stdout, and nothing but errors on stderr (the first command
    // says it created the data directory).
    expect(run.stderr.replace(/^mmds: created data directory .*\n/m, ''), argv.join(' ')).toBe('');
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = createServer((request, response) =>
      response.end(request.url?.includes('90d') ? ninetyDay : daily),
    );
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    temp.remove();
  });

  it('ingest, ingest-plan, fetch, publish, verify, build, keys', async () => {
    const catalog = await json(['--json', 'ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')]);
    expect(catalog.source).toBe('catalog');
    expect(catalog.batch_id).toEqual(expect.any(String));
    const plan = await json(['ingest-plan', join(SAMPLE_DATA, 'pipeline.json'), '--json']);
    const steps = JSON.parse(readFileSync(join(SAMPLE_DATA, 'pipeline.json'), 'utf8')) as unknown[];
    expect((plan.steps as unknown[]).length).toBe(steps.length);
    expect(plan.rows_read).toBe(
      (plan.steps as { rows_read: number }[]).reduce((sum, step) => sum + step.rows_read, 0),
    );
    const fetched = await json(['--json', 'fetch', 'ecb', '--base-url', baseUrl]);
    expect(fetched.source).toBe('ecb');
    const published = await json(['publish', '--json']);
    expect(published.status).toBe('published');
    const verified = await json(['--json', 'verify']);
    expect(verified.current).toBe(published.snapshot_id);
    const built = await json(['--json', 'build']);
    expect(built).toMatchObject({ status: 'built', snapshot: published.snapshot_id });
    const issued = await json(['keys', 'issue', '--org', 'CLI test', '--scopes', 'cot:history', '--json']);
    expect(issued.key).toMatch(/^mmds_/);
    const listed = await runMmds(['--json', 'keys', 'list'], env);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(1);
    const id = issued.id as string;
    expect((await json(['--json', 'keys', 'rotate', id])).key).toMatch(/^mmds_/);
    expect((await json(['--json', 'keys', 'revoke', id])).id).toBe(id);
  });

  it('errors stay one line on stderr saying what to do; with --json, one error document on stdout', async () => {
    const empty = createTempDir('mmds-cli-empty-');
    try {
      const run = await runMmds(['--json', 'publish'], { ...env, MMDS_DATA_DIR: empty.dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^mmds: nothing to publish: .* run mmds ingest first/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error: { code: 'failed', exit_code: 1, message: run.stderr.trim().replace(/^mmds: /, '') },
      });
    } finally {
      empty.remove();
    }
    const plan = join(temp.dir, 'bad-plan.json');
    writeFileSync(plan, '[{"source": "ecb"}]');
    const bad = await runMmds(['ingest-plan', plan], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/step 1 files: .*a plan is a JSON array of steps/);
  });
});

describe('errors of the environment', () => {
  it('say what to do instead of asking for a bug report', async () => {
    const taken = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:4321'), {
      code: 'EADDRINUSE',
    });
    expect(describeSystemError(taken)).toMatch(/address already in use .*: the port is taken: .*--port/);
    expect(describeSystemError(new Error('a bug'))).toBeNull();
    // DuckDB reports a full disk as its own IO Error, with the system's text but no code.
    const duckDiskFull = new Error(
      'IO Error: Could not write file "/data/snapshots/.staging-x/venues.parquet": No space left on device',
    );
    expect(describeSystemError(duckDiskFull)).toMatch(/No space left on device: the disk is full: /);
    expect(describeSystemError(new Error('IO Error: Cannot open file "x": some other reason'))).toBeNull();
    // A data directory that is a file: the real command refuses it as configuration (exit 78).
    const temp = createTempDir('mmds-cli-file-');
    try {
      const file = join(temp.dir, 'not-a-dir');
      writeFileSync(file, '');
      const run = await runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], {
        MMDS_DATA_DIR: file,
      });
      expect(run.code).toBe(78);
      expect(run.stderr).toMatch(/^mmds: configuration: MMDS_DATA_DIR .*not-a-dir is not a directory/m);
      expect(run.stderr).not.toMatch(/internal error/);
    } finally {
      temp.remove();
    }
  });
});

describe('progress on stderr', () => {
  const capture = (interactive: boolean, json: boolean) => {
    const stderr = new PassThrough();
    const chunks: string[] = [];
    stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    let now = 0;
    const reporter = createReporter({
      stdout: new PassThrough(),
      stderr,
      json,
      interactive,
      clock: () => now,
    });
    const tick = (ms: number) => {
      now += ms;
    };
    return { reporter, text: () => chunks.join(''), tick };
  };

  it('draws a bar on a terminal, at most ten times a second, and always the last count', () => {
    const { reporter, text, tick } = capture(true, false);
    for (let done = 1; done <= 50; done++) {
      reporter.progress('build: rendering', { done, total: 50 });
      tick(10);
    }
    const drawn = text().split('\r\x1b[K').filter(Boolean);
    expect(drawn.length).toBeLessThan(10);
    expect(drawn.at(-1)).toBe(formatProgressBar('build: rendering', { done: 50, total: 50 }));
    expect(drawn.at(-1)).toBe(`build: rendering [${'#'.repeat(24)}] 50/50 100%`);
  });

  it('writes each phase once as a plain line when stderr is not a terminal', () => {
    const { reporter, text } = capture(false, false);
    reporter.progress('build: listing');
    for (let done = 1; done <= 3; done++) reporter.progress('build: rendering', { done, total: 3 });
    reporter.progress('build: compressing');
    expect(text()).toBe('build: listing\nbuild: rendering\nbuild: compressing\n');
  });

  it('writes nothing under --json, terminal or not', () => {
    for (const interactive of [true, false]) {
      const { reporter, text } = capture(interactive, true);
      reporter.progress('build: rendering', { done: 1, total: 2 });
      reporter.progress('publishing');
      expect(text()).toBe('');
    }
  });
});

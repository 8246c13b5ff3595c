import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_USE } from '../../../src/cli/data-dir.ts';
import { createProgram, loadAllCommands } from '../../../src/cli/run-cli.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { startUpdatePublisher, type UpdatePublisher } from '../pipeline/update-publisher.ts';
import { closedPort, linesOf, spawnMmds } from './spawn-mmds.ts';

/**
 * MMDS_DATA_DIR in a user's first hour: set but empty is refused by every command; a directory
 * that does not exist is created (and said so) by the commands that write the store, and refused
 * with exit 78 by the ones that read it, instead of "0 errors" from an empty store.
 */

const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const SAMPLE_PLAN = join(REPO_ROOT, 'data/sample/pipeline.json');
/** A well-formed key id that no store holds. */
const SOME_KEY_ID = 'abcdefgh2345';

/** Every command with an action, as `mmds <words>`, and the arguments that make it run. */
const ARGS: Record<string, string[]> = {
  ingest: ['ingest', 'catalog', CATALOG],
  'ingest-plan': ['ingest-plan', SAMPLE_PLAN],
  fetch: ['fetch', 'ecb'],
  update: ['update', '--dry-run', '--source', 'ecb'],
  publish: ['publish'],
  verify: ['verify'],
  'store drop-unpublished': ['store', 'drop-unpublished', '--from', '000001-0123456789ab'],
  build: ['build'],
  serve: ['serve', '--port', '0'],
  'keys issue': ['keys', 'issue', '--org', 'First hour', '--scopes', 'cot:history'],
  'keys list': ['keys', 'list'],
  'keys rotate': ['keys', 'rotate', SOME_KEY_ID],
  'keys revoke': ['keys', 'revoke', SOME_KEY_ID],
  'hooks add': ['hooks', 'add', '--key', SOME_KEY_ID, '--url', 'https://example.com/h', '--series', '*'],
  'hooks list': ['hooks', 'list'],
  'hooks rotate': ['hooks', 'rotate', SOME_KEY_ID],
  'hooks pause': ['hooks', 'pause', SOME_KEY_ID],
  'hooks resume': ['hooks', 'resume', SOME_KEY_ID],
  'hooks remove': ['hooks', 'remove', SOME_KEY_ID],
  'hooks replay': ['hooks', 'replay', SOME_KEY_ID, '--since', 'x:1'],
  deliver: ['deliver', '--once'],
  mcp: ['mcp'],
};

/** The full names of the commands the program registers that run an action. */
function leafCommands(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const name = [...prefix, sub.name()];
    return sub.commands.length > 0 ? leafCommands(sub, name) : [name.join(' ')];
  });
}

describe('MMDS_DATA_DIR', () => {
  let temp: ReturnType<typeof createTempDir>;
  beforeAll(() => {
    temp = createTempDir('mmds-cli-datadir-');
  });
  afterAll(() => temp?.remove());

  it('every registered command has a decided data-directory use, and a test run here', async () => {
    const program = createProgram(
      {
        config: loadConfig({}, temp.dir),
        now: () => new Date(),
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        interactive: false,
      },
      await loadAllCommands(),
    );
    const commands = leafCommands(program).sort();
    expect(commands).toEqual(Object.keys(DATA_DIR_USE).sort());
    expect(Object.keys(ARGS).sort()).toEqual(commands);
  });

  it('set but empty is refused by every command with one line and exit 78 (stdout a JSON error with --json)', async () => {
    const runs = await Promise.all(
      Object.values(ARGS).map(async (argv) => ({ argv, run: await spawnMmds(argv, { MMDS_DATA_DIR: '' }) })),
    );
    for (const { argv, run } of runs) {
      expect(run.code, argv.join(' ')).toBe(78);
      expect(run.stdout, argv.join(' ')).toBe('');
      expect(linesOf(run.stderr), argv.join(' ')).toEqual([
        'mmds: configuration: MMDS_DATA_DIR is set but empty; unset it to use ./data or give a directory',
      ]);
    }
    // Blank is empty too; --json gets the same message as one document on stdout.
    const json = await spawnMmds(['--json', 'verify'], { MMDS_DATA_DIR: '  ' });
    expect(json.code).toBe(78);
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: 'config',
        exit_code: 78,
        message: 'configuration: MMDS_DATA_DIR is set but empty; unset it to use ./data or give a directory',
      },
    });
  });

  it('a directory that does not exist: the reading commands exit 78 naming it, and create nothing', async () => {
    const missing = join(temp.dir, 'dta'); // a misspelt "data"
    const reading = Object.entries(DATA_DIR_USE).filter(([, use]) => use === 'reads');
    expect(reading.map(([name]) => name).sort()).toEqual(
      [
        'build',
        'keys list',
        'keys revoke',
        'keys rotate',
        'publish',
        'serve',
        'verify',
        'store drop-unpublished',
        'hooks add',
        'hooks list',
        'hooks rotate',
        'hooks pause',
        'hooks resume',
        'hooks remove',
        'hooks replay',
        'deliver',
        'mcp',
      ].sort(),
    );
    for (const [name] of reading) {
      const run = await runMmds(ARGS[name]!, { MMDS_DATA_DIR: missing, MMDS_STORAGE: 'file' });
      expect(run.code, name).toBe(78);
      expect(run.stdout, name).toBe('');
      expect(linesOf(run.stderr), name).toEqual([
        `mmds: configuration: data directory ${missing} does not exist; check MMDS_DATA_DIR (default ./data), or create it with mmds ingest-plan, ingest, fetch or update`,
      ]);
      expect(existsSync(missing), name).toBe(false);
    }
    const json = await runMmds(['--json', 'verify'], { MMDS_DATA_DIR: missing });
    expect(json.code).toBe(78);
    const document = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(document.error.code).toBe('config');
    expect(`mmds: ${document.error.message}\n`).toBe(json.stderr);
  });

  it('a path that is a file is refused by reading and creating commands alike', async () => {
    const file = join(REPO_ROOT, 'package.json');
    for (const argv of [ARGS.verify!, ARGS.ingest!]) {
      const run = await runMmds(argv, { MMDS_DATA_DIR: file });
      expect(run.code, argv[0]).toBe(78);
      expect(run.stderr).toMatch(/is not a directory/);
    }
  });

  it('keys commands with MMDS_STORAGE=memory do not need the data directory', async () => {
    const missing = join(temp.dir, 'not-needed');
    const run = await runMmds(['--json', 'keys', 'list'], { MMDS_DATA_DIR: missing, MMDS_STORAGE: 'memory' });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });

  it('the creating commands create it and say so on stderr', async () => {
    const port = await closedPort();
    const cases: Array<{ name: string; argv: string[]; env?: Record<string, string>; code: number }> = [
      { name: 'ingest', argv: ARGS.ingest!, code: 0 },
      { name: 'keys issue', argv: ARGS['keys issue']!, env: { MMDS_STORAGE: 'file' }, code: 0 },
      { name: 'update', argv: ARGS.update!, code: 0 },
      // The directory is made before the download, which then fails (nothing listens there).
      {
        name: 'fetch',
        argv: ARGS.fetch!,
        env: { MMDS_ECB_BASE_URL: `http://127.0.0.1:${port}/`, MMDS_FETCH_RETRIES: '0' },
        code: 69,
      },
    ];
    for (const { name, argv, env, code } of cases) {
      const dir = join(temp.dir, `created-by-${name.replace(' ', '-')}`, 'data');
      const run = await runMmds(argv, { MMDS_DATA_DIR: dir, ...env });
      expect(run.code, `${name}: ${run.stderr}`).toBe(code);
      expect(linesOf(run.stderr)[0], name).toBe(`mmds: created data directory ${dir}`);
      expect(existsSync(dir), name).toBe(true);
    }
    // ingest-plan too, through the real binary (the sample plan, as npm start runs it).
    const dir = join(temp.dir, 'created-by-ingest-plan');
    const run = await spawnMmds(ARGS['ingest-plan']!, { MMDS_DATA_DIR: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(linesOf(run.stderr)[0]).toBe(`mmds: created data directory ${dir}`);
    // A second run finds it: nothing more is said about it.
    const again = await runMmds(ARGS.verify!, { MMDS_DATA_DIR: dir });
    expect(again.stderr).not.toContain('created data directory');
  });

  it('a misspelt variable name is named, with the setting it was probably meant as', async () => {
    const run = await runMmds(['keys', 'list'], {
      MMDS_DATADIR: join(temp.dir, 'meant'),
      MMDS_STORGE: 'memory',
      MMDS_STORAGE: 'memory',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(linesOf(run.stderr)).toEqual([
      'warning: MMDS_DATADIR is not a setting of mmds; did you mean MMDS_DATA_DIR?',
      'warning: MMDS_STORGE is not a setting of mmds; did you mean MMDS_STORAGE?',
    ]);
  });

  it('verify of an existing directory without a store fails instead of reporting "0 errors"', async () => {
    const dir = createTempDir('mmds-cli-empty-');
    try {
      const run = await runMmds(['verify'], { MMDS_DATA_DIR: dir.dir });
      expect(run.code).toBe(1);
      expect(run.stdout).not.toMatch(/0 error/);
      expect(linesOf(run.stderr).at(-1)).toBe(
        `mmds: nothing to verify: ${dir.dir} holds no batches and no snapshots; check MMDS_DATA_DIR, or run mmds ingest first`,
      );
    } finally {
      dir.remove();
    }
  });
});

describe('.gitignore and the default data directory', () => {
  let publisher: UpdatePublisher;
  let temp: ReturnType<typeof createTempDir>;
  beforeAll(async () => {
    publisher = await startUpdatePublisher();
    temp = createTempDir('mmds-cli-gitignore-');
  });
  afterAll(async () => {
    await publisher?.publisher.close();
    temp?.remove();
  });

  const ignored = (path: string) =>
    spawnSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: REPO_ROOT }).status === 0;

  it('ignores everything mmds writes into ./data and none of the bundled inputs', async () => {
    const dataDir = join(temp.dir, 'data');
    const env = { ...publisher.env(), MMDS_DATA_DIR: dataDir, MMDS_STORAGE: 'file' };
    for (const argv of [
      ARGS['ingest-plan']!,
      ['publish'],
      ARGS['keys issue']!,
      ['update', '--source', 'm49', '--force', '--no-build'],
    ]) {
      const run = await runMmds(argv, env, () => new Date());
      // update: 0 or 3 (the publisher's list may equal the sample's): either leaves its state.
      expect([0, 3], `${argv.join(' ')}: ${run.stderr}`).toContain(run.code);
    }
    // Every entry the commands left, and the debris of interrupted runs.
    const written = [...readdirSync(dataDir), 'mmds.lock', 'update.lock', '.download-a1b2c3'];
    for (const name of ['CURRENT', 'store', 'snapshots', 'state', 'fetch-state.json', 'update-state.json'])
      expect(written).toContain(name);
    for (const name of written) {
      expect(ignored(`data/${name}`), `data/${name}`).toBe(true);
      expect(ignored(`data/${name}/x`), `data/${name}/x`).toBe(true);
    }
    for (const tracked of [
      'data/sample/README.md',
      'data/sample/pipeline.json',
      'data/catalog/catalog.yaml',
      'data/calendars/new-calendar.csv',
    ])
      expect(ignored(tracked), tracked).toBe(false);
  });
});

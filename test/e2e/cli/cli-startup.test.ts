import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCommandsFor } from '../../../src/cli/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { spawnMmds } from './spawn-mmds.ts';

/**
 * A command loads only its own modules (run-cli.ts, COMMAND_MODULES): `mmds keys list` started in
 * about 2 s when every command's imports (DuckDB, Astro, the server) were loaded for any of them.
 * The real bin/mmds.js runs with a module hook that writes down every module it loads.
 */
const HOOK = `import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(process.env.LOADED_LIST, loaded.join('\\n')));
`;

describe('mmds starts with the modules of the command it runs', () => {
  let temp: { dir: string; remove: () => void };
  beforeAll(() => {
    temp = createTempDir('mmds-cli-startup-');
    writeFileSync(join(temp.dir, 'hook.mjs'), HOOK);
  });
  afterAll(() => temp?.remove());

  const loadedBy = async (argv: string[]): Promise<string[]> => {
    const list = join(temp.dir, `${argv.join('-')}.txt`);
    const run = await spawnMmds(argv, {
      MMDS_DATA_DIR: join(temp.dir, 'data'),
      MMDS_STORAGE: 'memory',
      NODE_OPTIONS: `--import=${pathToFileURL(join(temp.dir, 'hook.mjs')).href}`,
      LOADED_LIST: list,
    });
    expect(run.code, run.stderr).toBe(0);
    return readFileSync(list, 'utf8').split('\n');
  };

  it('loads neither DuckDB nor the server nor Astro for mmds keys list and mmds --version', async () => {
    for (const argv of [['keys', 'list'], ['--version']]) {
      const loaded = await loadedBy(argv);
      expect(loaded.some((url) => url.endsWith('/src/cli/run-cli.ts'))).toBe(true);
      for (const heavy of ['/@duckdb/', '/astro/', '/src/server/', '/src/build/'])
        expect(
          loaded.filter((url) => url.includes(heavy)),
          `${argv.join(' ')} loads ${heavy}`,
        ).toEqual([]);
    }
    // The program's own help lists every command: all of them are loaded.
    expect((await loadedBy(['--help'])).some((url) => url.includes('/src/server/'))).toBe(true);
  });

  it('picks the command a command line names, after global flags and after help', async () => {
    const names = async (argv: string[]) => (await loadCommandsFor(argv)).map((register) => register.name);
    expect(await names(['--json', 'keys', 'issue', '--org', 'x'])).toEqual(['registerKeys']);
    expect(await names(['help', 'publish'])).toEqual(['registerPublish']);
    expect(await names(['--version'])).toEqual([]);
    // No command, a name that is none (commander suggests the nearest) or the program's help: all.
    for (const argv of [[], ['pubish'], ['--help'], ['help'], ['--version', '--help']])
      expect((await names(argv)).length, argv.join(' ')).toBe(13);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSiteAddresses } from '../../../src/cli/commands/serve.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { closedPort, linesOf, spawnMmds } from './spawn-mmds.ts';

/**
 * Redis that does not answer is one line and exit 69, for `mmds keys` and for `mmds serve` at
 * start (never ioredis' own stack traces); `mmds serve`, and so `npm start`, prints the site's
 * addresses with the host and port it really listens on.
 */

describe('Redis unreachable', () => {
  let temp: ReturnType<typeof createTempDir>;
  let port: number;
  beforeAll(async () => {
    temp = createTempDir('mmds-cli-redis-');
    port = await closedPort();
  });
  afterAll(() => temp?.remove());

  const expected = () =>
    `mmds: cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED); start Redis or fix MMDS_STORAGE`;

  it('mmds keys: exactly one line on stderr, exit 69, credentials never printed', async () => {
    const env = { MMDS_DATA_DIR: temp.dir, MMDS_STORAGE: `redis://mmds:hunter2@127.0.0.1:${port}/0` };
    for (const argv of [
      ['keys', 'list'],
      ['keys', 'issue', '--org', 'First hour', '--scopes', 'cot:history'],
      ['keys', 'revoke', 'abcdefgh2345'],
    ]) {
      const run = await spawnMmds(argv, env);
      expect(run.code, argv.join(' ')).toBe(69);
      expect(run.stdout, argv.join(' ')).toBe('');
      expect(linesOf(run.stderr), argv.join(' ')).toEqual([expected()]);
      expect(run.stderr).not.toContain('hunter2');
    }
    const json = await spawnMmds(['--json', 'keys', 'list'], env);
    expect(json.code).toBe(69);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'unavailable', exit_code: 69, message: expected().replace(/^mmds: /, '') },
    });
  });

  it('mmds serve: refuses to start with one line, exit 69', async () => {
    const run = await spawnMmds(['serve', '--port', '0'], {
      MMDS_DATA_DIR: temp.dir,
      MMDS_STORAGE: `redis://127.0.0.1:${port}`,
      MMDS_DIST_DIR: join(temp.dir, 'dist'),
    });
    expect(run.code).toBe(69);
    expect(run.stdout).toBe('');
    expect(linesOf(run.stderr)).toEqual([expected()]);
  });
});

describe('mmds serve prints the site addresses', () => {
  let temp: ReturnType<typeof createTempDir>;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    temp = createTempDir('mmds-cli-serve-');
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    temp?.remove();
  });

  it('with the real host and port (port 0 picks one), after the "serving on" line', async () => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
    );
    child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'serve', '--port', '0'], {
      env: {
        ...inherited,
        MMDS_DATA_DIR: temp.dir,
        MMDS_STORAGE: 'memory',
        MMDS_DIST_DIR: join(temp.dir, 'dist'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${lines.join('\n')}`)), 30_000);
      createInterface({ input: child!.stderr! }).on('line', (line) => {
        lines.push(line);
        if (line.includes('/api/v1/openapi.json')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${lines.join('\n')}`)));
    });
    const url = /^mmds: serving on (http:\/\/127\.0\.0\.1:(\d+))\/? /.exec(lines[0]!);
    expect(url, lines[0]).not.toBeNull();
    const base = url![1]!;
    expect(Number(url![2])).toBeGreaterThan(0);
    // Nothing is built in this data directory's dist/: the built pages say when they appear.
    expect(lines.slice(1)).toEqual([
      `  home page       ${base}/   (after mmds build)`,
      `  API reference   ${base}/docs/api/   (after mmds build)`,
      `  status          ${base}/status/`,
      `  OpenAPI         ${base}/api/v1/openapi.json   (after mmds build)`,
    ]);
    // The status page is live (not a file of dist/): the address answers, here that nothing is
    // published yet.
    const status = await fetch(`${base}/status/`);
    expect([200, 503]).toContain(status.status);
    await status.arrayBuffer();
  });

  it('drops the "(after mmds build)" notes once dist/ holds the site', () => {
    const dist = join(temp.dir, 'built');
    mkdirSync(dist);
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    expect(describeSiteAddresses('http://0.0.0.0:8080/', dist)).toBe(
      [
        '  home page       http://0.0.0.0:8080/',
        '  API reference   http://0.0.0.0:8080/docs/api/',
        '  status          http://0.0.0.0:8080/status/',
        '  OpenAPI         http://0.0.0.0:8080/api/v1/openapi.json',
        '',
      ].join('\n'),
    );
  });
});

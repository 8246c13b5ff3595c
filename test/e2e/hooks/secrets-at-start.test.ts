import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { startRedis } from '../../helpers/redis-server.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { spawnServe } from '../../helpers/spawn-serve.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { linesOf } from '../cli/spawn-mmds.ts';

/**
 * Issue 37: without MMDS_KEY_PEPPER the webhook signing secrets are stored unsealed; the commands
 * that store or use them (hooks add and rotate, deliver, serve and so npm start) say so once per
 * process, on stderr, and not at all when a pepper is set. Real CLI and real binaries.
 */

const UNSEALED = /^warning: MMDS_KEY_PEPPER is not set: webhook signing secrets are stored unsealed /;
const warnings = (stderr: string | string[]) =>
  (typeof stderr === 'string' ? linesOf(stderr) : stderr).filter((line) => UNSEALED.test(line));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir() {
  const temp = createTempDir('mmds-unsealed-');
  cleanups.push(() => temp.remove());
  return { MMDS_DATA_DIR: temp.dir, MMDS_STORAGE: 'file', MMDS_DIST_DIR: join(temp.dir, 'dist') };
}

async function addHook(env: Record<string, string>) {
  const issued = await runMmds(['--json', 'keys', 'issue', '--org', 'r', '--scopes', 'cot:history'], env);
  const key = (JSON.parse(issued.stdout) as { id: string }).id;
  const argv = ['--json', 'hooks', 'add', '--key', key, '--url', 'https://example.com/h', '--series', '*'];
  const added = await runMmds(argv, env);
  expect(added.code, added.stderr).toBe(0);
  return { key, id: (JSON.parse(added.stdout) as { id: string }).id, stderr: added.stderr };
}

/** Stops a spawned process with SIGTERM and waits for its exit. */
async function stop(child: ReturnType<typeof spawn>, exited: Promise<unknown>) {
  if (child.exitCode === null) child.kill('SIGTERM');
  await exited;
}

describe('without MMDS_KEY_PEPPER', () => {
  it('hooks add, hooks rotate and deliver warn once each; nothing with a pepper', async () => {
    const env = dataDir();
    const added = await addHook(env);
    expect(warnings(added.stderr)).toEqual([expect.stringContaining('in files under the data directory')]);
    const rotated = await runMmds(['hooks', 'rotate', added.id, '--grace', '0'], env);
    expect(warnings(rotated.stderr)).toHaveLength(1);
    const delivered = await runMmds(['deliver', '--once'], env);
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(warnings(delivered.stderr)).toHaveLength(1);

    const peppered = { ...dataDir(), MMDS_KEY_PEPPER: 'pepper-of-this-test' };
    const sealed = await addHook(peppered);
    const runs = [
      sealed.stderr,
      (await runMmds(['hooks', 'rotate', sealed.id], peppered)).stderr,
      (await runMmds(['deliver', '--once'], peppered)).stderr,
    ];
    for (const stderr of runs) expect(warnings(stderr)).toEqual([]);
  });

  it('says it once in a process that runs several commands (as npm start does)', async () => {
    const env = dataDir();
    const { key } = await addHook(env);
    const stderr = new PassThrough();
    const text: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => text.push(chunk));
    const context = {
      config: loadConfig(env, process.cwd()),
      now: () => new Date(),
      stdout: new PassThrough().resume(),
      stderr,
      interactive: false,
    };
    for (const argv of [
      ['hooks', 'add', '--key', key, '--url', 'https://example.com/a', '--series', '*'],
      ['hooks', 'add', '--key', key, '--url', 'https://example.com/b', '--series', '*'],
      ['deliver', '--once'],
    ])
      expect(await runCli(argv, context), argv.join(' ')).toBe(0);
    expect(warnings(Buffer.concat(text).toString())).toHaveLength(1);
  });

  it('mmds serve --deliver warns once, before "serving on"; not with a pepper', async () => {
    for (const pepper of [null, 'pepper-of-this-test']) {
      const env = { ...dataDir(), ...(pepper ? { MMDS_KEY_PEPPER: pepper } : {}) };
      const serve = await spawnServe(env, ['--port', '0', '--deliver']);
      cleanups.push(() => stop(serve.child, serve.exited));
      const serving = serve.stderr.findIndex((line) => line.startsWith('mmds: serving on'));
      expect(warnings(serve.stderr.slice(0, serving)), String(pepper)).toHaveLength(pepper ? 0 : 1);
      await stop(serve.child, serve.exited);
      expect(warnings(serve.stderr), String(pepper)).toHaveLength(pepper ? 0 : 1);
    }
  });

  it('mmds deliver names Redis without its password, and says the secrets lie there unsealed', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const env = { ...dataDir(), MMDS_STORAGE: `redis://:hunter2@127.0.0.1:${redis.port}` };
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('MMDS_')),
    );
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'deliver'], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = once(child, 'exit');
    cleanups.push(() => stop(child, exited));
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('mmds: delivering webhooks')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`deliver exited ${code}:\n${lines.join('\n')}`)));
    });
    expect(lines.filter((line) => !line.includes('[WARN]'))).toEqual([
      expect.stringMatching(/^warning: MMDS_KEY_PEPPER is not set: .* stored unsealed in Redis, /),
      `mmds: delivering webhooks (state redis://127.0.0.1:${redis.port}); stop with Ctrl-C`,
    ]);
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});

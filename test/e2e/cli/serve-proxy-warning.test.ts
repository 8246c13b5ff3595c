import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeProxyExposure, isWildcardAddress } from '../../../src/cli/commands/serve.ts';
import { type ServeProcess, spawnServe } from '../../helpers/spawn-serve.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Trusted proxies on a server bound to every interface let a client that reaches the port
 * directly write its own X-Forwarded-For, and so a fresh anonymous budget per request:
 * `mmds serve` says so once at start, and only then.
 */
describe('mmds serve with MMDS_TRUSTED_PROXIES on a wildcard address', () => {
  const temp = createTempDir();
  const running: ServeProcess[] = [];

  /** Starts a server on an empty data directory (it answers 503 until a publish) with `env`. */
  const serve = async (env: Record<string, string>, args: string[] = []) => {
    const server = await spawnServe(
      { MMDS_DATA_DIR: join(temp.dir, 'data'), MMDS_DIST_DIR: join(temp.dir, 'no-dist'), PORT: '0', ...env },
      args,
    );
    running.push(server);
    return server;
  };
  // Only this warning: serve also warns of unsealed webhook secrets when no pepper is set.
  const warnings = (server: ServeProcess) =>
    server.stderr.filter((line) => line.startsWith('warning: MMDS_TRUSTED_PROXIES'));

  let servers: ServeProcess[];

  beforeAll(async () => {
    mkdirSync(join(temp.dir, 'data'));
    // One after another: each start is slow enough on a loaded machine.
    servers = [];
    for (const [env, args] of [
      [{ HOST: '0.0.0.0', MMDS_TRUSTED_PROXIES: '1' }, []],
      [{ HOST: '127.0.0.1', MMDS_TRUSTED_PROXIES: '2' }, ['--host', '0.0.0.0']],
      [{ HOST: '127.0.0.1', MMDS_TRUSTED_PROXIES: '1' }, []],
    ] as const)
      servers.push(await serve(env, [...args]));
  }, 180_000);

  afterAll(async () => {
    for (const server of running) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    temp.remove();
  });

  it('warns once at start, by HOST or --host, naming the setting and what to do', () => {
    const [byEnv, byFlag] = servers;
    expect(warnings(byEnv!)).toHaveLength(1);
    expect(warnings(byEnv!)[0]).toMatch(
      /^warning: MMDS_TRUSTED_PROXIES=1 with HOST 0\.0\.0\.0: .*X-Forwarded-For/,
    );
    expect(warnings(byEnv!)[0]).toContain('docs/operations.md');
    expect(warnings(byFlag!)).toHaveLength(1);
    expect(warnings(byFlag!)[0]).toMatch(/^warning: MMDS_TRUSTED_PROXIES=2 with HOST 0\.0\.0\.0: /);
  });

  it('says nothing bound to one address, or without trusted proxies', () => {
    const loopback = servers[2]!;
    expect(loopback.stderr.length).toBeGreaterThan(0);
    expect(warnings(loopback)).toEqual([]);
    expect(describeProxyExposure('0.0.0.0', 0)).toBeNull();
    expect(describeProxyExposure('::', 0)).toBeNull();
  });

  it('knows the unspecified address however it is written', () => {
    for (const host of ['0.0.0.0', '0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0', ''])
      expect(isWildcardAddress(host), host).toBe(true);
    for (const host of [
      '127.0.0.1',
      '10.0.0.11',
      '::1',
      '[fd00::1]',
      'localhost',
      'mmds.internal',
      '0.0.0.1',
    ])
      expect(isWildcardAddress(host), host).toBe(false);
  });
});

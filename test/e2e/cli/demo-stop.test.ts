import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * `npm start` (scripts/demo.ts) as a person meets it in a terminal: the human output stays
 * readable (the server's JSON log lines go to the file it names), and Ctrl+C while the full build
 * still runs in the background says that the build was stopped, not that it failed. Ctrl+C is
 * SIGINT to the terminal's whole process group: the demo, the server in it and the build child.
 */
describe('npm start: its output and a stop during the background build', () => {
  const temp = createTempDir('mmds-demo-stop-');
  afterAll(() => temp.remove());

  it('keeps JSON log lines out of the terminal and says the build was stopped on Ctrl+C', async () => {
    const dataDir = join(temp.dir, 'data');
    // Keys and limits in the data directory, whatever the caller's environment says.
    const { MMDS_STORAGE: _, ...env } = process.env;
    const demo = spawn(process.execPath, ['scripts/demo.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...env,
        MMDS_DATA_DIR: dataDir,
        MMDS_DIST_DIR: join(temp.dir, 'dist'),
        PORT: '0',
      },
      // Its own process group, as a terminal gives a command: the signal below reaches all of it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    demo.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    demo.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 400_000;
      while (!/mmds: serving on http:\/\/\S+/.test(stderr)) {
        if (Date.now() > deadline || demo.exitCode !== null)
          throw new Error(`the demo never served:\n${stderr.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const url = /mmds: serving on (http:\/\/\S+)/.exec(stderr)![1]!;
      // A request, so that the server has a request line to log.
      expect((await fetch(`${url}/api/v1/status`)).status).toBe(200);
      // The full build (minutes of rendering) is still running: its end is not reported yet.
      expect(stderr).not.toMatch(/demo: .*full build/);
      process.kill(-demo.pid!, 'SIGINT');
      const code = await Promise.race([
        exited,
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000)),
      ]);
      expect(code, stderr.slice(-2000)).toBe(0);
    } finally {
      if (demo.exitCode === null) process.kill(-demo.pid!, 'SIGKILL');
    }
    expect(stderr).toMatch(/demo: the full build was stopped after [\d.]+ s \(SIGINT\), with the demo/);
    expect(stderr).not.toMatch(/full build failed/);
    // The terminal holds no JSON log line; the file the demo names holds them, the last its shutdown.
    const output = `${stdout}\n${stderr}`.split('\n');
    expect(output.filter((line) => line.startsWith('{'))).toEqual([]);
    const logPath = join(dataDir, 'logs', 'serve.ndjson');
    expect(stderr).toContain(`tail -f ${logPath}`);
    const entries = readFileSync(logPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ts: string; event?: string; path?: string });
    expect(entries.map((e) => e.event)).toContain('listening');
    expect(entries.some((e) => e.path === '/api/v1/status')).toBe(true);
    // The shutdown is the last line made. With workers (npm start runs one per core), a worker's
    // line of a request answered before the signal reaches the primary's file by IPC, and on a
    // loaded machine it was written after the primary's shutdown line: order by when each was made.
    const shutdowns = entries.filter((e) => e.event === 'shutdown');
    expect(shutdowns).toHaveLength(1);
    expect(shutdowns[0]).toMatchObject({ signal: 'SIGINT' });
    expect(entries.filter((e) => e.ts > shutdowns[0]!.ts)).toEqual([]);
  }, 600_000);
});

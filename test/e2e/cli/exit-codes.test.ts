import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, EXIT_CODE_HELP } from '../../../src/cli/run-cli.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { startUpdatePublisher, type UpdatePublisher } from '../pipeline/update-publisher.ts';
import { closedPort, linesOf, spawnMmds } from './spawn-mmds.ts';

/**
 * Exit codes are the same for every command (a failed download is 69, never 2 "wrong usage"), and
 * with --json a failure is exactly one JSON document on stdout carrying the stderr line's message.
 */

interface ErrorDocument {
  error: { code: string; exit_code: number; message: string };
}

/** The --json error document of a run, checked against its exit code and stderr line. */
function errorDocument(run: { code: number | null; stdout: string; stderr: string }): ErrorDocument['error'] {
  const document = JSON.parse(run.stdout) as ErrorDocument;
  expect(Object.keys(document)).toEqual(['error']);
  expect(document.error.exit_code).toBe(run.code);
  // The same message as the stderr line (the last one: progress may precede it).
  expect(`mmds: ${document.error.message}`).toBe(linesOf(run.stderr).at(-1));
  return document.error;
}

const ECB_HISTORY = 'ecb/stats/eurofxref/eurofxref-hist.zip';

describe('exit codes and --json failures', () => {
  let publisher: UpdatePublisher;
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;
  beforeAll(async () => {
    publisher = await startUpdatePublisher();
    temp = createTempDir('mmds-cli-exit-');
    env = {
      ...publisher.env(),
      MMDS_DATA_DIR: temp.dir,
      MMDS_FETCH_RETRIES: '1',
      MMDS_FETCH_BACKOFF_MS: '1',
      MMDS_FETCH_TIMEOUT_MS: '3000',
    };
  });
  afterAll(async () => {
    await publisher?.publisher.close();
    temp?.remove();
  });

  it('mmds --help lists every exit code', async () => {
    const run = await runMmds(['--help'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(EXIT_CODE_HELP);
    for (const code of Object.values(EXIT))
      expect(EXIT_CODE_HELP).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  });

  it('a download the publisher fails exits 69 (unavailable), not 2, with one line', async () => {
    publisher.publisher.setFault(ECB_HISTORY, 'status:500');
    try {
      const run = await runMmds(['fetch', 'ecb'], env);
      expect(run.code).toBe(EXIT.unavailable);
      expect(run.code).toBe(69);
      expect(run.stdout).toBe('');
      const errors = linesOf(run.stderr).filter((line) => line.startsWith('mmds: '));
      expect(errors).toEqual([expect.stringMatching(/^mmds: http:\/\/.*eurofxref-hist\.zip: .*500/)]);
      // --json: the same failure as one document on stdout.
      const json = await runMmds(['--json', 'fetch', 'ecb'], env);
      expect(json.code).toBe(69);
      expect(errorDocument(json)).toMatchObject({ code: 'unavailable', exit_code: 69 });
    } finally {
      publisher.publisher.setFault(ECB_HISTORY, null);
    }
  });

  it('a publisher nobody answers for exits 69 from the real binary too', async () => {
    const port = await closedPort();
    const run = await spawnMmds(['--json', 'fetch', 'ecb', '--base-url', `http://127.0.0.1:${port}/`], {
      MMDS_DATA_DIR: temp.dir,
      MMDS_FETCH_RETRIES: '0',
    });
    expect(run.code).toBe(69);
    const error = errorDocument(run);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(`http://127.0.0.1:${port}/stats/eurofxref/eurofxref-hist.zip`);
  });

  it('wrong usage exits 2; with --json the error is one document, commander errors included', async () => {
    const unknownSource = await runMmds(['--json', 'fetch', 'nosuch'], env);
    expect(unknownSource.code).toBe(2);
    expect(errorDocument(unknownSource)).toMatchObject({ code: 'usage', exit_code: 2 });

    const unknownOption = await runMmds(['--json', 'verify', '--bogus'], env);
    expect(unknownOption.code).toBe(2);
    const document = JSON.parse(unknownOption.stdout) as ErrorDocument;
    expect(document).toEqual({ error: { code: 'usage', exit_code: 2, message: "unknown option '--bogus'" } });
    expect(unknownOption.stderr).toContain("error: unknown option '--bogus'");

    // --json after the command is the same global flag.
    const after = await runMmds(['fetch', 'nosuch', '--json'], env);
    expect(after.code).toBe(2);
    expect(errorDocument(after).code).toBe('usage');
  });

  it('bad input data exits 1 with a "failed" document', async () => {
    const run = await runMmds(['--json', 'ingest', 'ecb', `${REPO_ROOT}package.json`], env);
    expect(run.code).toBe(1);
    expect(errorDocument(run)).toMatchObject({ code: 'failed', exit_code: 1 });
  });

  it('a configuration error exits 78 with a "config" document', async () => {
    const { MMDS_FRED_API_KEY: _key, ...withoutKey } = env;
    const run = await runMmds(['--json', 'fetch', 'fred'], withoutKey);
    expect(run.code).toBe(78);
    expect(errorDocument(run)).toMatchObject({
      code: 'config',
      message: 'configuration: fetching FRED/ALFRED needs an API key: set MMDS_FRED_API_KEY',
    });
  });

  it('update with a failed source: exit 1 and still exactly one JSON document (its report)', async () => {
    publisher.publisher.setFault(ECB_HISTORY, 'status:500');
    try {
      const run = await runMmds(['--json', 'update', '--source', 'ecb', '--force', '--no-build'], env);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as { status: string; failed: string[] };
      expect(report).toMatchObject({ status: 'failed', failed: ['ecb'] });
    } finally {
      publisher.publisher.setFault(ECB_HISTORY, null);
    }
  });

  it('success under --json prints no error document', async () => {
    const run = await runMmds(['--json', 'keys', 'list'], { ...env, MMDS_STORAGE: 'memory' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});

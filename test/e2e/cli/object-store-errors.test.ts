import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { closedPort, linesOf, spawnMmds } from './spawn-mmds.ts';

/**
 * A bucket that fails `--to` is one line saying what to do and a documented exit code (issue 36):
 * the real `bin/mmds.js`, so that the SDK looks for credentials in the environment given here and
 * nowhere else (empty AWS config files, no instance metadata).
 */
describe('object-store failures of publish --to', () => {
  let temp: ReturnType<typeof createTempDir>;
  /** No AWS_* of the machine's own: an empty profile file and no metadata service to ask. */
  let awsless: Record<string, string>;
  beforeAll(async () => {
    temp = createTempDir('mmds-s3-errors-');
    const empty = join(temp.dir, 'aws-empty');
    writeFileSync(empty, '');
    awsless = {
      MMDS_DATA_DIR: join(temp.dir, 'data'),
      MMDS_DIST_DIR: join(temp.dir, 'dist'),
      AWS_CONFIG_FILE: empty,
      AWS_SHARED_CREDENTIALS_FILE: empty,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PROFILE: '',
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      AWS_ENDPOINT_URL: '',
      AWS_ENDPOINT_URL_S3: '',
      AWS_REGION: 'us-east-1',
    };
    for (const argv of [
      ['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')],
      ['ingest', 'ecb', join(SAMPLE_DATA, 'ecb/eurofxref-daily.xml')],
    ]) {
      const run = await runMmds(argv, awsless);
      expect(run.code, run.stderr).toBe(0);
    }
  });
  afterAll(() => temp?.remove());

  it('an unreachable endpoint: exit 69, one line naming the endpoint and what to fix, no raw socket text', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const env = {
      ...awsless,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: 'key',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    const run = await spawnMmds(['publish', '--to', 's3://mmds-test/prod', '--json'], env);
    expect(run.code, run.stderr).toBe(69);
    expect(linesOf(run.stderr), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain(`the object store at ${endpoint} is unreachable`);
    expect(run.stderr).toContain('fix AWS_ENDPOINT_URL_S3');
    expect(run.stderr).not.toMatch(/connect ECONNREFUSED|\n\s+at /);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unavailable', exit_code: 69 } });
  });

  it('no credentials anywhere: exit 78 (configuration), one line naming the variables to set', async () => {
    const env = { ...awsless, AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await closedPort()}` };
    const run = await spawnMmds(['publish', '--to', 's3://mmds-test/prod', '--json'], env);
    expect(run.code, run.stderr).toBe(78);
    expect(linesOf(run.stderr), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain('no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    expect(run.stderr).not.toContain('Could not load credentials from any providers');
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'config', exit_code: 78 } });
  });
});

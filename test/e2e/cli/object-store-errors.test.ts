import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveLayout } from '../../../src/store/layout.ts';
import { followStore } from '../../../src/store/object-store/follow-store.ts';
import { openS3Store } from '../../../src/store/object-store/s3-store.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { closedPort, linesOf, spawnMmds } from './spawn-mmds.ts';

/**
 * An S3 endpoint on loopback that stores nothing and, like some S3-compatible servers, answers a
 * PUT with If-None-Match with 501 NotImplemented (Ceph RGW, the real server of the other S3
 * tests, implements it, so it cannot play this part).
 */
async function startServerWithoutConditionalWrites(): Promise<{ server: Server; endpoint: string }> {
  const xml = (code: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (request.method === 'PUT' && request.headers['if-none-match'] !== undefined) {
        response.writeHead(501, { 'content-type': 'application/xml' }).end(xml('NotImplemented'));
      } else if (request.method === 'PUT' || request.method === 'DELETE') {
        response.writeHead(request.method === 'PUT' ? 200 : 204).end();
      } else if (request.method === 'GET' && url.searchParams.get('list-type') === '2') {
        response
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>',
          );
      } else {
        response
          .writeHead(404, { 'content-type': 'application/xml' })
          .end(request.method === 'HEAD' ? undefined : xml('NoSuchKey'));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * A bucket that fails `--to` is one line saying what to do and a documented exit code (issue 36):
 * the real `bin/mmds.js`, so that the SDK looks for credentials in the environment given here and
 * nowhere else (empty AWS config files, no instance metadata).
 */
describe('object-store failures of publish --to and serve --from', () => {
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
  /** `publish --to` the test bucket at `endpoint`, with credentials that are set (but no others). */
  const publishWithCredentials = (endpoint: string) =>
    spawnMmds(['publish', '--to', 's3://mmds-test/prod', '--json'], {
      ...awsless,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: 'key',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });

  it('an unreachable endpoint: exit 69, one line naming the endpoint and what to fix, no raw socket text', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const run = await publishWithCredentials(endpoint);
    expect(run.code, run.stderr).toBe(69);
    expect(linesOf(run.stderr), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain(`the object store at ${endpoint} is unreachable`);
    expect(run.stderr).toContain('fix AWS_ENDPOINT_URL_S3');
    expect(run.stderr).not.toMatch(/connect ECONNREFUSED|\n\s+at /);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unavailable', exit_code: 69 } });
  });

  it('update with MMDS_SNAPSHOT_STORE at an unreachable endpoint: exit 69 in one line, before any fetch', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const dataDir = awsless.MMDS_DATA_DIR!;
    const storeState = () => ({
      batches: readdirSync(join(dataDir, 'store/batches')).sort(),
      current: existsSync(join(dataDir, 'CURRENT')) ? readFileSync(join(dataDir, 'CURRENT'), 'utf8') : null,
    });
    const before = storeState();
    const run = await spawnMmds(['update', '--source', 'ecb', '--force', '--no-build', '--json'], {
      ...awsless,
      MMDS_SNAPSHOT_STORE: 's3://mmds-test/prod',
      MMDS_ECB_BASE_URL: `http://127.0.0.1:${await closedPort()}/`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: 'key',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(run.code, run.stderr).toBe(69);
    expect(linesOf(run.stderr), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain(`the object store at ${endpoint} is unreachable`);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unavailable', exit_code: 69 } });
    // The bucket was tried first: no fetch was attempted (none recorded), nothing ingested or published.
    expect(existsSync(join(dataDir, 'update-state.json'))).toBe(false);
    expect(storeState()).toEqual(before);
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

  it('a server without conditional writes: exit 69, one line saying the commit needs them', async () => {
    const { server, endpoint } = await startServerWithoutConditionalWrites();
    try {
      const run = await publishWithCredentials(endpoint);
      expect(run.code, run.stderr).toBe(69);
      expect(run.stderr).toContain(`PUT s3://mmds-test/prod/log/000000000001.json failed`);
      expect(run.stderr).toContain(`the object store at ${endpoint} does not support conditional writes`);
      expect(run.stderr).toContain('use an S3 service that does');
      expect(linesOf(run.stderr).at(-1)).toMatch(/^mmds: PUT .* does not support conditional writes/);
      expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({
        error: { code: 'unavailable', exit_code: 69 },
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('serve --from: an unreachable bucket is logged once with its kind and the same hint', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const settings = {
      endpoint,
      region: 'us-east-1',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      sessionToken: null,
    };
    const store = openS3Store({ bucket: 'mmds-test', prefix: 'prod' }, settings);
    const entries: Record<string, unknown>[] = [];
    const follower = followStore(store, resolveLayout(join(temp.dir, 'follower')), {
      intervalMs: 60_000,
      keep: 2,
      log: (entry) => entries.push(entry),
    });
    try {
      await vi.waitFor(
        () => expect(entries.some((entry) => entry.event === 'store_pull_failed')).toBe(true),
        {
          timeout: 30_000,
        },
      );
      expect(entries.find((entry) => entry.event === 'store_pull_failed')).toMatchObject({
        kind: 'unreachable',
        message: expect.stringContaining(`the object store at ${endpoint} is unreachable`),
      });
    } finally {
      await follower.stop();
      store.close();
    }
  });
});

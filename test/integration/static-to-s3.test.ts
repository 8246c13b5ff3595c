import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../src/build/build-manifest.ts';
import { isBulkFile } from '../../src/build/bulk-files.ts';
import { DistUploadError, type DistUploadResult, uploadDist } from '../../src/build/upload-dist.ts';
import { mapConcurrent } from '../../src/lib/map-concurrent.ts';
import type { ObjectStore } from '../../src/store/object-store/object-store.ts';
import { closedPort } from '../e2e/cli/spawn-mmds.ts';
import { openGatewayStore, type RadosGateway, startRadosGateway } from '../helpers/radosgw.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { type SharedSampleFixture, useSharedSample } from '../helpers/shared-sample-build.ts';

/**
 * `mmds build --to s3://…` (issue 26, the static tier) against a real S3 server (Ceph's RADOS
 * Gateway, started once for the file), on a copy of the shared sample build's dist/: the upload
 * itself (uploadDist) and then the command, which finds dist/ current and only uploads, so no
 * Astro build runs here.
 */
let gateway: RadosGateway;
let fixture: SharedSampleFixture;
let store: ObjectStore;
const PREFIX = 'site';
/** An object under the prefix that no file of the build has (put there by the test). */
const STALE_KEY = 'markets/gone/index.html';
/** A COT bulk file of an earlier build (withheld or pruned since): the upload deletes it. */
const STALE_COT_KEY = 'api/v1/bulk/20200101T000000Z-00000000/cot_reports.csv.gz';
/** The keys under the site's prefix that belong to the build. */
const builtKeys = async () => (await store.list('')).filter((key) => key !== STALE_KEY);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const readManifest = () =>
  JSON.parse(readFileSync(join(fixture.distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;

/** Uploads the fixture's dist/, with the keys uploaded in their order. */
async function upload(): Promise<{ result: DistUploadResult; keys: string[] }> {
  const keys: string[] = [];
  const result = await uploadDist(store, fixture.distDir, { onUpload: (key) => keys.push(key) });
  return { result, keys };
}

beforeAll(async () => {
  // Both at once (the gateway takes about 15 s); either failing still lets afterAll stop the other.
  const [started, shared] = await Promise.allSettled([
    startRadosGateway(),
    useSharedSample({ copyDist: true }),
  ]);
  if (started.status === 'fulfilled') gateway = started.value;
  if (shared.status === 'fulfilled') fixture = shared.value;
  for (const outcome of [started, shared]) if (outcome.status === 'rejected') throw outcome.reason;
  console.log(`radosgw up in ${gateway.startMs} ms`);
  store = openGatewayStore(gateway, PREFIX);
}, 600_000);

afterAll(async () => {
  store?.close();
  await gateway?.stop();
  fixture?.remove();
});

describe('uploading dist/ to a bucket a CDN uses as its origin', () => {
  let first: { result: DistUploadResult; keys: string[] };
  const hostRules = () =>
    ['_redirects', '_headers', 'nginx.conf'].map((name) => readFileSync(join(fixture.distDir, name)));

  it('puts every file of build-manifest.json with its bytes, Content-Type and Cache-Control', async () => {
    const rulesBefore = hostRules();
    first = await upload();
    const manifest = readManifest();
    const { result } = first;
    expect(result).toMatchObject({ url: `s3://${gateway.bucket}/${PREFIX}`, snapshot: fixture.snapshotId });
    expect(result.uploaded.objects).toBe(result.objects);
    expect(result.unchanged).toBe(0);
    expect(result.stale).toBe(0);
    expect(result.stale_keys).toEqual([]);
    // Every file, one object each, plus the request-path aliases and the manifest.
    expect(result.objects).toBe(manifest.files.length + result.aliases + 1);
    const routeCache = new Map(manifest.routes.map((route) => [route.file, route.cache_control]));
    await mapConcurrent(manifest.files, 8, async (file) => {
      const key = file.file.slice(1);
      const local = readFileSync(join(fixture.distDir, key));
      const remote = await store.get(key);
      expect(remote && sha256(remote), key).toBe(sha256(local));
      const head = await store.head(key);
      expect(head?.contentType, key).toBe(file.content_type);
      expect(head?.metadata?.sha256, key).toBe(sha256(local));
      const routed = routeCache.get(key);
      if (routed !== undefined) expect(head?.cacheControl, key).toBe(routed);
      // The COT window's files are short-lived in a shared cache (docs/api/bulk.md), the others immutable.
      else if (isBulkFile(key))
        expect(head?.cacheControl, key).toBe(
          key.includes('/cot_reports.') ? 'public, max-age=300' : 'public, max-age=31536000, immutable',
        );
      else if (key.endsWith('.html')) expect(head?.cacheControl, key).toBe('public, max-age=300');
    });
    // The contract's values on a few known files, not only what the manifest says.
    const expectHead = async (key: string, contentType: string, cacheControl: string) =>
      expect(await store.head(key), key).toMatchObject({ contentType, cacheControl });
    const json = 'application/json; charset=utf-8';
    await expectHead('api/v1/status/index.json', json, 'public, max-age=60');
    await expectHead('api/v1/_errors/not_found.json', json, 'no-store');
    await expectHead('index.html', 'text/html; charset=utf-8', 'public, max-age=300');
    const parquet = manifest.files.find((file) => file.file.endsWith('/observations.parquet'))!;
    await expectHead(
      parquet.file.slice(1),
      'application/vnd.apache.parquet',
      'public, max-age=31536000, immutable',
    );
    // The manifest went up too, and nothing else: no .gz/.br copies, no host rules.
    const listed = await store.list('');
    expect(listed).toHaveLength(result.objects);
    expect(listed).toContain(BUILD_MANIFEST_FILE);
    expect(listed.filter((key) => /(^|\/)(_headers|_redirects|nginx\.conf)$|\.br$/.test(key))).toEqual([]);
    expect(listed.filter((key) => key.endsWith('.gz') && !isBulkFile(key))).toEqual([]);
    // The keyed tier's host rules are as the build wrote them (not rewritten for the bucket).
    expect(hostRules()).toEqual(rulesBefore);
    expect(rulesBefore[0]!.toString()).toContain(
      '/api/v1/observations  /api/v1/_errors/unauthorized.json  401',
    );
  });

  it('uploads the extensionless request paths as their files, so a CDN needs no rewrite for them', async () => {
    const status = readFileSync(join(fixture.distDir, 'api/v1/status/index.json'));
    expect(sha256((await store.get('api/v1/status'))!)).toBe(sha256(status));
    expect(await store.head('api/v1/status')).toMatchObject({
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'public, max-age=60',
    });
    // A path and its child path are both keys (a bucket's keys are flat).
    const cot = readFileSync(join(fixture.distDir, 'api/v1/markets/cot/index.json'));
    expect(sha256((await store.get('api/v1/markets/cot'))!)).toBe(sha256(cot));
    const index = readFileSync(join(fixture.distDir, 'api/v1/index.json'));
    expect(sha256((await store.get('api/v1'))!)).toBe(sha256(index));
    expect(first.result.aliases).toBeGreaterThan(50);
  });

  it('puts assets first, HTML pages after the payloads and the build manifest very last', () => {
    const { keys } = first;
    expect(keys.at(-1)).toBe(BUILD_MANIFEST_FILE);
    const firstPage = keys.findIndex((key) => key.endsWith('.html'));
    expect(firstPage).toBeGreaterThan(0);
    expect(keys.slice(firstPage, -1).every((key) => key.endsWith('.html'))).toBe(true);
    const lastBulkFile = keys.findLastIndex((key) => isBulkFile(key));
    expect(lastBulkFile).toBeGreaterThanOrEqual(0);
    expect(lastBulkFile).toBeLessThan(keys.indexOf('api/v1/bulk/index.json'));
    expect(keys.indexOf('api/v1/status/index.json')).toBeLessThan(firstPage);
  });

  it('a second upload of the same dist/ uploads nothing', async () => {
    const again = await upload();
    expect(again.keys).toEqual([]);
    expect(again.result.uploaded).toEqual({ objects: 0, bytes: 0 });
    expect(again.result.unchanged).toBe(again.result.objects);
    expect(again.result.objects).toBe(first.result.objects);
  });

  it('leaves the objects of older builds, and names them', async () => {
    await store.put(STALE_KEY, '<p>a page an older build had</p>');
    const again = await upload();
    expect(again.keys).toEqual([]);
    expect(again.result).toMatchObject({ stale: 1, stale_keys: [STALE_KEY] });
    expect((await store.get(STALE_KEY))?.toString()).toBe('<p>a page an older build had</p>');
  });

  it('deletes a COT bulk file the build no longer has: it holds reports outside the public window', async () => {
    await store.put(STALE_COT_KEY, 'the COT reports of an earlier snapshot');
    const again = await upload();
    expect(again.keys).toEqual([]);
    expect(again.result).toMatchObject({ stale: 1, stale_keys: [STALE_KEY], deleted_keys: [STALE_COT_KEY] });
    expect(await store.get(STALE_COT_KEY)).toBeNull();
    // The newest snapshot's own COT files stay.
    expect((await store.list('api/v1/bulk/')).filter((key) => key.includes('/cot_reports.'))).toHaveLength(2);
  });

  it('refuses a file changed since the build, uploading nothing', async () => {
    const path = join(fixture.distDir, 'api/v1/status/index.json');
    const original = readFileSync(path);
    writeFileSync(path, Buffer.concat([original, Buffer.from(' ')]));
    try {
      const keys: string[] = [];
      await expect(uploadDist(store, fixture.distDir, { onUpload: (key) => keys.push(key) })).rejects.toThrow(
        DistUploadError,
      );
      expect(keys).toEqual([]);
    } finally {
      writeFileSync(path, original);
    }
  });

  it('uploads a changed file again, with its request path and the manifest, and nothing else', async () => {
    const file = 'api/v1/status/index.json';
    const path = join(fixture.distDir, file);
    const changed = Buffer.concat([readFileSync(path), Buffer.from('\n')]);
    writeFileSync(path, changed);
    const manifest = readManifest();
    const entry = manifest.files.find((f) => f.file === `/${file}`)!;
    entry.bytes = changed.length;
    // The integrity check is of sha256: the ETag of an endpoint file is of its identity, not its bytes.
    entry.sha256 = sha256(changed);
    writeFileSync(join(fixture.distDir, BUILD_MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
    const { result, keys } = await upload();
    expect(keys.sort()).toEqual(['api/v1/status', file, BUILD_MANIFEST_FILE].sort());
    expect(result.uploaded.objects).toBe(3);
    expect(result.unchanged).toBe(result.objects - 3);
    expect(sha256((await store.get(file))!)).toBe(sha256(changed));
    expect(sha256((await store.get('api/v1/status'))!)).toBe(sha256(changed));
  });
});

describe('mmds build --to s3://bucket/prefix', () => {
  const env = () => ({ ...fixture.env, ...gateway.env });

  it('on a dist/ that holds the current snapshot: no build, the upload alone', async () => {
    const run = await runMmds(['build', '--to', `s3://${gateway.bucket}/cli/`], env());
    expect(run.code, run.stderr).toBe(0);
    const objects = (await builtKeys()).length;
    expect(run.stdout).toContain(`dist already holds snapshot ${fixture.snapshotId}`);
    expect(run.stdout).toContain(
      `uploaded snapshot ${fixture.snapshotId}'s dist to s3://${gateway.bucket}/cli: ${objects} of ${objects} object(s)`,
    );
    const cli = openGatewayStore(gateway, 'cli');
    try {
      expect((await cli.list('')).sort()).toEqual((await builtKeys()).sort());
    } finally {
      cli.close();
    }
    const json = await runMmds(['--json', 'build', '--to', `s3://${gateway.bucket}/cli`], env());
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).store).toMatchObject({ uploaded: { objects: 0 }, unchanged: objects });
  });

  it('a bad --to is wrong usage (2), before anything is built', async () => {
    for (const args of [
      ['--to', 'https://example.com/site'],
      ['--site-only', '--to', 's3://bucket/site'],
    ]) {
      const run = await runMmds(['build', ...args], env());
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mmds: --to/)]);
    }
  });

  it('an unreachable bucket is exit 69 with one line, found before the build', async () => {
    const out = join(fixture.distDir, '..', 'never-built');
    const unreachable = { ...env(), AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await closedPort()}` };
    const run = await runMmds(['build', '--out', out, '--to', 's3://mmds-test/site'], unreachable);
    expect(run.code, run.stderr).toBe(69);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^mmds: LIST s3:\/\/mmds-test\/site\//),
    ]);
    expect(existsSync(out)).toBe(false);
  });
});

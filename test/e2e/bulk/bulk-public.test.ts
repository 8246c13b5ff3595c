import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import type { ServerProcess } from '../../../scripts/bench/processes.ts';
import type { BulkSnapshot } from '../../../src/api/v1/bulk.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';
import { LICENSED_FIXTURE_STEPS } from '../../helpers/snapshot-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Listing {
  data: BulkSnapshot[];
  meta: { snapshot: string; count: number; latest: string | null };
}

/** A raw request (fetch would normalise `..` and `%2F` away before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('public bulk files: build, carry-over, mmds serve, static host and nginx', () => {
  let fixture: SharedSampleFixture;
  let distDir: string;
  let first: string;
  let second: string;
  let manifest: BuildManifest;
  let server: TestServer;

  const build = async (...extra: string[]) => {
    const run = await runMmds(['build', '--out', distDir, ...extra], fixture.env);
    if (run.code !== 0) throw new Error(`mmds build failed (${run.code}): ${run.stderr}`);
    return JSON.parse(readFileSync(join(distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
  };

  beforeAll(async () => {
    // Snapshot 1: the sample data. Snapshot 2: plus the licensed vendor, which must stay out.
    // Snapshot 1 comes built: a copy of the shared build's dist/ (test/helpers/shared-sample-build.ts).
    fixture = await useSharedSample({ copyDist: true });
    distDir = fixture.distDir;
    first = fixture.snapshotId;
    for (const [source, ...rest] of LICENSED_FIXTURE_STEPS) {
      const run = await runMmds(['ingest', source!, ...rest], fixture.env);
      if (run.code !== 0) throw new Error(`ingest ${source} failed: ${run.stderr}`);
    }
    const published = await runMmds(['publish'], fixture.env);
    if (published.code !== 0) throw new Error(`publish failed: ${published.stderr}`);
    second = readCurrentId(resolveLayout(fixture.dataDir))!;
    manifest = await build();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir, anonymousLimit: 10_000 });
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('lists both snapshots newest first, the earlier one carried over with its files intact', async () => {
    expect(second).not.toBe(first);
    const response = await fetch(`${server.url}/api/v1/bulk`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const body = (await response.json()) as Listing;
    expect(body.data.map((s) => s.snapshot)).toEqual([second, first]);
    expect(body.meta).toMatchObject({ snapshot: second, count: 2, latest: second });
    expect(manifest.bulk?.map((s) => s.snapshot)).toEqual([second, first]);
    for (const snapshot of body.data) {
      expect(snapshot.files.length).toBe(24);
      for (const file of snapshot.files) {
        const bytes = readFileSync(join(distDir, file.path));
        expect(bytes.length, file.path).toBe(file.bytes);
        expect(createHash('sha256').update(bytes).digest('hex'), file.path).toBe(file.sha256);
      }
    }
    const one = await fetch(`${server.url}/api/v1/bulk/${first}`);
    expect(one.status).toBe(200);
    expect(((await one.json()) as { data: BulkSnapshot }).data).toEqual(body.data[1]);
  });

  it('serves a file with its media type, immutable caching, the sha256 ETag, and no Content-Encoding', async () => {
    const listing = manifest.bulk![0]!;
    for (const file of listing.files.filter((f) => f.dataset === 'observations')) {
      const response = await fetch(`${server.url}${file.path}`, {
        headers: { 'Accept-Encoding': 'gzip, br' },
      });
      expect(response.status, file.path).toBe(200);
      expect(response.headers.get('content-type')).toBe(file.media_type);
      expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('content-length')).toBe(String(file.bytes));
      // fetch would gunzip a body sent with Content-Encoding: the bytes here are the file's own.
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
      const again = await fetch(`${server.url}${file.path}`, {
        headers: { 'If-None-Match': `"${file.sha256}"` },
      });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(`"${file.sha256}"`);
      const head = await fetch(`${server.url}${file.path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(file.bytes));
    }
    expect(listing.files.find((f) => f.format === 'csv.gz')?.media_type).toBe('application/gzip');
  });

  it('redirects latest (302, short caching) to the newest snapshot and its files', async () => {
    const latest = await fetch(`${server.url}/api/v1/bulk/latest`, { redirect: 'manual' });
    expect(latest.status).toBe(302);
    expect(latest.headers.get('location')).toBe(`/api/v1/bulk/${second}`);
    expect(latest.headers.get('cache-control')).toBe('public, max-age=300');
    const file = await fetch(`${server.url}/api/v1/bulk/latest/cot_reports.csv.gz`, { redirect: 'manual' });
    expect(file.status).toBe(302);
    expect(file.headers.get('location')).toBe(`/api/v1/bulk/${second}/cot_reports.csv.gz`);
    const followed = await fetch(`${server.url}/api/v1/bulk/latest/cot_reports.parquet`);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toBe('application/vnd.apache.parquet');
  });

  it('answers an unknown snapshot or file, hostile paths and query parameters with the error envelope', async () => {
    const unknown = await fetch(`${server.url}/api/v1/bulk/20200101T000000Z-00000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    for (const path of [
      `/api/v1/bulk/${second}/nothing.parquet`,
      `/api/v1/bulk/${second}/index.json.gz`,
      `/api/v1/bulk/${second}/..%2F..%2Fbuild-manifest.json`,
      `/api/v1/bulk/${second}%2Fobservations.parquet`,
      `/api/v1/bulk/${second}/%2e%2e/%2e%2e/%2e%2e/nginx.conf`,
      `/api/v1/bulk/${second}/observations.parquet/..%2f..%2f..%2f..%2f..%2fetc%2fpasswd`,
      '/api/v1/bulk/latest/..%2F..%2Fbuild-manifest.json',
      '/api/v1/bulk/latest/observations.exe',
      '/api/v1/bulk/not-a-snapshot',
    ]) {
      const response = await rawGet(server.url, path);
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body).error.code, path).toBe('not_found');
      expect(response.body, path).not.toContain('root:');
    }
    const query = await fetch(`${server.url}/api/v1/bulk?snapshot=x`);
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: { message: string } }).error.message).toContain('snapshot');
  });

  it('drops the bulk files of a snapshot the store no longer keeps on the next build', async () => {
    const kept = join(distDir, 'api/v1/bulk', first);
    expect(existsSync(kept)).toBe(true);
    rmSync(snapshotDir(resolveLayout(fixture.dataDir), first), { recursive: true });
    const rebuilt = await build('--force');
    expect(rebuilt.bulk?.map((s) => s.snapshot)).toEqual([second]);
    expect(existsSync(kept)).toBe(false);
    expect(rebuilt.files.filter((f) => f.file.includes(first))).toEqual([]);
  }, 300_000);
});

describe('a static host (Netlify rules) serves the built bulk files', () => {
  let fixture: SharedSampleFixture;
  let temp: ReturnType<typeof createTempDir>;
  let distDir: string;
  let manifest: BuildManifest;
  let host: StaticHost;
  let server: TestServer;
  let nginx: ServerProcess | null = null;

  beforeAll(async () => {
    // The shared build of the sample, read only (test/helpers/shared-sample-build.ts).
    fixture = await useSharedSample();
    temp = createTempDir('mmds-bulk-hosts-');
    distDir = fixture.distDir;
    manifest = JSON.parse(readFileSync(join(distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    host = await startStaticHost(distDir);
    server = await startTestServer({ dataDir: fixture.dataDir, distDir, anonymousLimit: 10_000 });
    if (HAVE_NGINX)
      nginx = await startMmdsNginx(join(temp.dir, 'nginx'), distDir, Number(new URL(server.url).port));
  }, 600_000);

  afterAll(async () => {
    await nginx?.stop();
    await server?.close();
    await host?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('serves the files immutable with their type, the listing, and the latest redirects', async () => {
    const file = manifest.bulk![0]!.files.find((f) => f.format === 'csv.gz')!;
    const response = await fetch(`${host.url}${file.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    expect(
      createHash('sha256')
        .update(Buffer.from(await response.arrayBuffer()))
        .digest('hex'),
    ).toBe(file.sha256);
    const listing = await fetch(`${host.url}/api/v1/bulk`);
    expect(listing.status).toBe(200);
    expect(((await listing.json()) as Listing).data[0]!.snapshot).toBe(fixture.snapshotId);
    const latest = await fetch(`${host.url}/api/v1/bulk/latest/observations.parquet`, { redirect: 'manual' });
    expect(latest.status).toBe(302);
    expect(latest.headers.get('location')).toBe(`/api/v1/bulk/${fixture.snapshotId}/observations.parquet`);
    // The build's compress step made no copies of the bulk files.
    expect(existsSync(join(distDir, `${file.path}.gz`))).toBe(false);
    expect(existsSync(join(distDir, file.path.replace('.csv.gz', '.parquet.br')))).toBe(false);
  });

  it.runIf(HAVE_NGINX)(
    'is served by the generated nginx.conf alike, with the sha256 ETag and 304',
    async () => {
      const base = `http://127.0.0.1:${nginx!.port}`;
      for (const file of manifest.bulk![0]!.files.filter((f) => f.dataset === 'currencies')) {
        const response = await fetch(`${base}${file.path}`, { headers: { 'Accept-Encoding': 'gzip' } });
        expect(response.status, file.path).toBe(200);
        expect(response.headers.get('content-type')).toBe(file.media_type);
        expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
        expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
        expect(response.headers.get('content-encoding')).toBeNull();
        expect(
          createHash('sha256')
            .update(Buffer.from(await response.arrayBuffer()))
            .digest('hex'),
        ).toBe(file.sha256);
        const again = await fetch(`${base}${file.path}`, {
          headers: { 'If-None-Match': `"${file.sha256}"` },
        });
        expect(again.status).toBe(304);
      }
      const latest = await fetch(`${base}/api/v1/bulk/latest/sectors.csv.gz`, { redirect: 'manual' });
      expect(latest.status).toBe(302);
      expect(latest.headers.get('location')).toMatch(
        new RegExp(`/api/v1/bulk/${fixture.snapshotId}/sectors\\.csv\\.gz$`),
      );
      const missing = await fetch(`${base}/api/v1/bulk/${fixture.snapshotId}/nothing.parquet`);
      expect(missing.status).toBe(404);
      const listing = await fetch(`${base}/api/v1/bulk`);
      expect(listing.status).toBe(200);
      expect(listing.headers.get('content-type')).toBe('application/json; charset=utf-8');
    },
  );
});

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import type { SnapshotManifest } from '../../../src/store/manifest.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import {
  createSampleSnapshot,
  LICENSED_FIXTURE_STEPS,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';

// The server checks key expiry against the real clock, so keys are issued with it.
const REAL_CLOCK = () => new Date();
const PARQUET = 'application/vnd.apache.parquet';

interface ListingEntry {
  table: string;
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
  source: string | null;
  url: string;
}

interface Listing {
  data: ListingEntry[];
  meta: { snapshot: string; count: number; files: number; rows: number; bytes: number; rights: string };
}

interface RawReply {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const sha256 = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The files the manifest lists for the tables, as the listing must give them (read from disk). */
function expectedEntries(dataDir: string, snapshot: string): ListingEntry[] {
  const manifest = JSON.parse(
    readFileSync(join(dataDir, 'snapshots', snapshot, 'manifest.json'), 'utf8'),
  ) as SnapshotManifest;
  return Object.entries(manifest.tables).flatMap(([table, entry]) =>
    entry.files.map((file) => ({
      table,
      file: file.file,
      rows: file.rows,
      bytes: file.bytes,
      sha256: file.sha256,
      source: file.source ?? null,
      url: `/api/v1/bulk/full/${snapshot}/${file.file}`,
    })),
  );
}

describe('the keyed full store: /api/v1/bulk/full and its files', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let temp: ReturnType<typeof createTempDir>;
  let bulkKey: string;
  let bulkOnlyKey: string;
  let otherKey: string;
  /** The sample snapshot, then the two published after it (B with A as parent, C pruning A). */
  let first: string;
  let second: string;
  let third: string;

  const issue = async (scopes: string, limit = 10_000): Promise<string> => {
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'Bulk Test Org',
        '--scopes',
        scopes,
        '--rate-limit',
        String(limit),
      ],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  const get = (path: string, key: string | null = bulkKey, extra: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...extra },
    });

  /** A request whose path goes to the server exactly as written (fetch would resolve `..`). */
  const raw = (path: string, key: string | null = bulkKey, method = 'GET'): Promise<RawReply> =>
    new Promise((resolve, reject) => {
      const url = new URL(server.url);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: key ? { Authorization: `Bearer ${key}` } : {},
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });

  const listing = async (): Promise<Listing> => {
    const response = await get('/api/v1/bulk/full');
    expect(response.status).toBe(200);
    return (await response.json()) as Listing;
  };

  const expectError = async (response: Response, status: number, code: string): Promise<string> => {
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { error: { code: string; message: string; request_id: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe(code);
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
    return body.error.message;
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    first = fixture.snapshotId;
    temp = createTempDir('mmds-bulk-full-');
    server = await startTestServer({ dataDir: fixture.dataDir, anonymousLimit: 10_000, pollMs: 100 });
    // The COT reports' files need cot:history besides bulk:read (docs/api/bulk.md).
    bulkKey = await issue('bulk:read,cot:history');
    bulkOnlyKey = await issue('bulk:read');
    otherKey = await issue('cot:history,macro:history,observations:read');
  });

  afterAll(async () => {
    await server?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('lists every file of every table of the current snapshot, as its manifest states', async () => {
    const body = await listing();
    const expected = expectedEntries(fixture.dataDir, first);
    expect(expected.length).toBeGreaterThan(10);
    expect(body.data).toEqual(expected);
    expect(body.meta.snapshot).toBe(first);
    expect(body.meta.count).toBe(expected.length);
    expect(body.meta.files).toBe(expected.length);
    expect(body.meta.rows).toBe(expected.reduce((sum, entry) => sum + entry.rows, 0));
    expect(body.meta.bytes).toBe(expected.reduce((sum, entry) => sum + entry.bytes, 0));
    expect(body.meta.rights).toMatch(/licensed and proprietary/);
    // Every revision of every source: the fact partitions of BLS, ECB and CFTC are there.
    expect(new Set(body.data.map((entry) => entry.source))).toEqual(new Set([null, 'bls', 'ecb', 'cftc']));
  });

  it('streams each listed file byte for byte, with its sha256 as ETag, immutable and private', async () => {
    const body = await listing();
    for (const entry of body.data) {
      const response = await get(entry.url);
      expect(response.status, entry.url).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      const onDisk = readFileSync(join(fixture.dataDir, 'snapshots', first, entry.file));
      expect(bytes.equals(onDisk), entry.file).toBe(true);
      expect(sha256(bytes)).toBe(entry.sha256);
      expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      expect(response.headers.get('content-type')).toBe(PARQUET);
      expect(response.headers.get('content-length')).toBe(String(entry.bytes));
      expect(response.headers.get('etag')).toBe(`"${entry.sha256}"`);
      expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      expect(response.headers.get('x-snapshot-id')).toBe(first);
      expect(response.headers.get('content-encoding')).toBeNull();
    }
  });

  it('gives the COT reports only to a key that also holds cot:history: left out of the listing, 403 to download', async () => {
    const full = await listing();
    // The reports and the columns stored beside them (cot_report_columns).
    const cotTables = new Set(['cot_reports', 'cot_report_columns']);
    const cot = full.data.filter((entry) => cotTables.has(entry.table));
    expect(new Set(cot.map((entry) => entry.table))).toEqual(cotTables);
    const response = await get('/api/v1/bulk/full', bulkOnlyKey);
    expect(response.status).toBe(200);
    const partial = (await response.json()) as Listing;
    expect(partial.data).toEqual(full.data.filter((entry) => !cotTables.has(entry.table)));
    expect(partial.meta.files).toBe(partial.data.length);
    expect(partial.meta.rows).toBe(partial.data.reduce((sum, entry) => sum + entry.rows, 0));
    for (const entry of cot) {
      const refused = await get(entry.url, bulkOnlyKey);
      expect(await expectError(refused, 403, 'insufficient_scope')).toContain('cot:history');
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_scope", scope="cot:history"',
      );
    }
    // Another table's file is served to the same key.
    const regions = partial.data.find((entry) => entry.table === 'regions')!;
    const served = await get(regions.url, bulkOnlyKey);
    expect(served.status).toBe(200);
    await served.arrayBuffer();
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const [entry] = (await listing()).data;
    const cached = await get(entry!.url, bulkKey, { 'If-None-Match': `"${entry!.sha256}"` });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    expect(cached.headers.get('etag')).toBe(`"${entry!.sha256}"`);
    const stale = await get(entry!.url, bulkKey, { 'If-None-Match': '"0000"' });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    const head = await raw(entry!.url, bulkKey, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(entry!.bytes));
    expect(head.body.length).toBe(0);
  });

  it('counts a keyed download once against the key’s rate limit', async () => {
    const limited = await issue('bulk:read', 50);
    const [entry] = (await listing()).data;
    const remaining: number[] = [];
    for (const path of ['/api/v1/bulk/full', entry!.url, entry!.url, '/api/v1/bulk/full']) {
      const response = await get(path, limited);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(response.headers.get('x-ratelimit-limit')).toBe('50');
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([49, 48, 47, 46]);
  });

  it('needs a key with bulk:read: 401 without or with a bad key, 403 insufficient_scope with another', async () => {
    const [entry] = (await listing()).data;
    for (const path of ['/api/v1/bulk/full', entry!.url]) {
      const anonymous = await get(path, null);
      expect(await expectError(anonymous, 401, 'unauthorized')).toContain('bulk:read');
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      const bad = await get(path, `${bulkKey.slice(0, -1)}${bulkKey.endsWith('a') ? 'b' : 'a'}`);
      await expectError(bad, 401, 'unauthorized');
      const other = await get(path, otherKey);
      await expectError(other, 403, 'insufficient_scope');
      expect(other.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_scope", scope="bulk:read"',
      );
    }
    // A query parameter on a file is refused, as on every endpoint (after the key is checked).
    const query = await get(`${entry!.url}?format=csv`);
    expect(await expectError(query, 400, 'invalid_parameter')).toContain('format');
    const listingQuery = await get('/api/v1/bulk/full?snapshot=x');
    await expectError(listingQuery, 400, 'invalid_parameter');
  });

  it('serves only files its manifest names: traversal, escapes and other names are 404', async () => {
    const base = `/api/v1/bulk/full/${first}`;
    const partition = expectedEntries(fixture.dataDir, first).find((e) => e.file.includes('/'))!;
    const [dir, name] = partition.file.split('/') as [string, string];
    const derived = readFileSync(join(fixture.dataDir, 'snapshots', first, 'manifest.json'), 'utf8');
    const derivedFile = (JSON.parse(derived) as SnapshotManifest).derived;
    const aDerived = Object.values(derivedFile)[0]!.file;
    expect(existsSync(join(fixture.dataDir, 'snapshots', first, aDerived))).toBe(true);
    const attempts = [
      `${base}/manifest.json`,
      `${base}/../${first}/manifest.json`,
      `${base}/../../CURRENT`,
      `${base}/${dir}/../regions.parquet`,
      `${base}/./regions.parquet`,
      `${base}//regions.parquet`,
      `${base}/${dir}%2F${name}`,
      `${base}/${dir}%2f${name}`,
      `${base}/%2e%2e/${first}/regions.parquet`,
      `${base}/regions%2Eparquet`,
      `${base}/${aDerived}`,
      `${base}/regions.parquet/`,
      `${base}/`,
      base,
      `/api/v1/bulk/full/..%2F..%2FCURRENT`,
      `/api/v1/bulk/full/../../../etc/passwd`,
      `/api/v1/bulk/full/%2Fetc%2Fpasswd`,
      `/api/v1/bulk/full//etc/passwd`,
      `/api/v1/bulk/full/${first}/${join(fixture.dataDir, 'snapshots', first, 'regions.parquet')}`,
    ];
    for (const path of attempts) {
      const reply = await raw(path);
      expect(reply.status, path).toBe(404);
      const body = JSON.parse(reply.body.toString()) as { error: { code: string } };
      expect(body.error.code, path).toBe('not_found');
    }
    // The real file at the plain path, for contrast: the same key and server serve it.
    expect((await raw(`${base}/${partition.file}`)).status).toBe(200);
  });

  it('names the current snapshot when a snapshot is unknown', async () => {
    const message = await expectError(
      await get('/api/v1/bulk/full/20200101T000000Z-00000000/regions.parquet'),
      404,
      'not_found',
    );
    expect(message).toContain(`the current snapshot is ${first}`);
    await expectError(await get('/api/v1/bulk/full/latest/regions.parquet'), 404, 'not_found');
  });

  it('finishes a download that started before a publish pruned its snapshot; the pruned snapshot is then 404', async () => {
    const entry = expectedEntries(fixture.dataDir, first).sort((a, b) => b.bytes - a.bytes)[0]!;
    const onDisk = readFileSync(join(fixture.dataDir, 'snapshots', first, entry.file));
    // The response has begun (headers and a first chunk) while the snapshot still exists.
    const response = await get(entry.url);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    const head = await reader.read();
    chunks.push(head.value!);
    // Two publishes: B (whose parent, A, is kept) and C with --keep 1, which prunes A.
    const [catalog, vendor] = LICENSED_FIXTURE_STEPS as [string[], string[]];
    for (const [step, keep] of [
      [catalog, '5'],
      [vendor, '1'],
    ] as const) {
      const ingest = await runMmds(['ingest', ...step], fixture.env);
      expect(ingest.code, ingest.stderr).toBe(0);
      const publish = await runMmds(['--json', 'publish', '--keep', keep], fixture.env);
      expect(publish.code, publish.stderr).toBe(0);
    }
    expect(existsSync(join(fixture.dataDir, 'snapshots', first))).toBe(false);
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
    }
    const bytes = Buffer.concat(chunks);
    expect(bytes.equals(onDisk)).toBe(true);
    expect(sha256(bytes)).toBe(entry.sha256);
    // The server follows CURRENT; the listing moves to C, whose parent B stays downloadable.
    const current = readFileSync(join(fixture.dataDir, 'CURRENT'), 'utf8').trim();
    await expect.poll(async () => (await listing()).meta.snapshot, { timeout: 10_000 }).toBe(current);
    third = current;
    second = (
      JSON.parse(
        readFileSync(join(fixture.dataDir, 'snapshots', third, 'manifest.json'), 'utf8'),
      ) as SnapshotManifest
    ).parent!;
    expect([first, third]).not.toContain(second);
    const message = await expectError(await get(entry.url), 404, 'not_found');
    expect(message).toContain(`snapshot ${first} is not in the store`);
    expect(message).toContain(`the current snapshot is ${third}`);
    const kept = expectedEntries(fixture.dataDir, second)[0]!;
    const older = await get(kept.url);
    expect(older.status).toBe(200);
    expect(older.headers.get('x-snapshot-id')).toBe(second);
    expect(sha256(Buffer.from(await older.arrayBuffer()))).toBe(kept.sha256);
  });

  it('includes licensed data, which no public file holds (the key holder is trusted for it)', async () => {
    expect(third).toBeDefined();
    const body = await listing();
    expect(body.data).toEqual(expectedEntries(fixture.dataDir, third));
    const vendor = body.data.find((entry) => entry.source === 'testvendor');
    expect(vendor, 'the licensed vendor’s partition').toBeDefined();
    const response = await get(vendor!.url);
    expect(response.status).toBe(200);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(vendor!.sha256);
  });

  it('refuses a listed file that has become a symbolic link in the store (404, nothing served)', async () => {
    const dir = join(fixture.dataDir, 'snapshots', third);
    const entry = expectedEntries(fixture.dataDir, third).find((e) => e.table === 'regions')!;
    const path = join(dir, entry.file);
    renameSync(path, `${path}.real`);
    symlinkSync(`${path}.real`, path);
    try {
      const response = await get(entry.url);
      await expectError(response, 404, 'not_found');
    } finally {
      unlinkSync(path);
      renameSync(`${path}.real`, path);
    }
    expect((await get(entry.url)).status).toBe(200);
  });

  describe('behind a static host or nginx (mmds build)', () => {
    let distDir: string;
    let host: StaticHost;

    beforeAll(async () => {
      distDir = join(temp.dir, 'dist');
      const run = await runMmds(['build', '--out', distDir], fixture.env);
      expect(run.code, run.stderr).toBe(0);
      host = await startStaticHost(distDir);
    }, 300_000);

    afterAll(async () => {
      await host?.close();
    });

    it('answers 401 with the Bearer challenge for the listing and every file path (_redirects)', async () => {
      const entry = expectedEntries(fixture.dataDir, third).find((e) => e.file.includes('/'))!;
      for (const path of ['/api/v1/bulk/full', entry.url, `/api/v1/bulk/full/${third}/regions.parquet`]) {
        const response = await fetch(`${host.url}${path}`);
        expect(response.status, path).toBe(401);
        expect(response.headers.get('www-authenticate'), path).toBe('Bearer');
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
      const redirects = readFileSync(join(distDir, '_redirects'), 'utf8');
      expect(redirects).toContain('/api/v1/bulk/full/*  /');
    });

    it.skipIf(!HAVE_NGINX)('hands the listing and the files to mmds serve (dist/nginx.conf)', async () => {
      const nginx = await startMmdsNginx(join(temp.dir, 'nginx'), distDir, Number(new URL(server.url).port));
      try {
        const entry = expectedEntries(fixture.dataDir, third).find((e) => e.file.includes('/'))!;
        for (const path of ['/api/v1/bulk/full', entry.url]) {
          const anonymous = await fetch(`${nginx.url}${path}`);
          expect(anonymous.status, path).toBe(401);
          expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
        }
        const response = await fetch(`${nginx.url}${entry.url}`, {
          headers: { Authorization: `Bearer ${bulkKey}` },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe(PARQUET);
        expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(entry.sha256);
      } finally {
        await nginx.stop();
      }
    });
  });
});

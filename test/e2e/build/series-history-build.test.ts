import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import type { ServerProcess } from '../../../scripts/bench/processes.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { listFiles } from '../../../src/build/finish-dist.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../../../src/model/records.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { parseCsv } from '../../helpers/series-history-csv.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import { LICENSED_SERIES_KEY, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';
import { readCatalogs } from '../site/sample-expectations.ts';

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';
const JSON_TYPE = 'application/json; charset=utf-8';
const ECB_FILE = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
/** The project's catalog plus the test-only licensed vendor's (test/fixtures/licensed/). */
const CATALOG = readCatalogs();
const LICENSED_SLUG = CATALOG.series.find((s) => s.key === LICENSED_SERIES_KEY)!.slug;

interface HistoryRow {
  period: string;
  value: number;
  revision_number: number;
  observed_at: string;
}

/**
 * The value in force per period, read independently of the endpoint's SQL: every stored revision
 * of the series from the snapshot's Parquet files, reduced in JavaScript to the highest revision
 * of each period.
 */
async function readLatestRevisions(db: SnapshotDb, key: string): Promise<HistoryRow[]> {
  const all = await db.query<HistoryRow>(
    `SELECT period, value, revision_number, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
       FROM observations WHERE series_key = $key`,
    { key },
  );
  const latest = new Map<string, HistoryRow>();
  for (const row of all) {
    const seen = latest.get(row.period);
    if (!seen || row.revision_number > seen.revision_number) latest.set(row.period, row);
  }
  return [...latest.values()].sort((a, b) => (a.period < b.period ? -1 : 1));
}

/** CSV rows back as history rows (numbers from their text). */
function csvRows(text: string): HistoryRow[] {
  const [header, ...rows] = parseCsv(text);
  expect(header).toEqual(['period', 'value', 'revision_number', 'observed_at']);
  return rows.map(([period, value, revision, observedAt]) => ({
    period: period!,
    value: Number(value),
    revision_number: Number(revision),
    observed_at: observedAt!,
  }));
}

describe('mmds build writes the public history of each redistributable series', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let distDir: string;
  let manifest: BuildManifest;
  let host: StaticHost;
  let server: TestServer;
  let db: SnapshotDb;
  /** Slugs of the catalogued series of redistributable sources that hold observations. */
  let expectedSlugs: string[];

  const readDist = (file: string) => readFileSync(join(distDir, file), 'utf8');

  beforeAll(async () => {
    // The shared `mmds build --out` of the sample (test/helpers/shared-sample-build.ts), read-only.
    const shared = await useSharedSample({ licensed: true });
    fixture = shared;
    distDir = shared.distDir;
    temp = createTempDir('mmds-series-history-build-');
    manifest = JSON.parse(readDist(BUILD_MANIFEST_FILE)) as BuildManifest;
    host = await startStaticHost(distDir);
    server = await startTestServer({ dataDir: fixture.dataDir, distDir, anonymousLimit: 10_000 });
    db = await fixture.open();
    const observed = new Set(
      (await db.query<{ key: string }>('SELECT DISTINCT series_key AS key FROM observations')).map(
        (r) => r.key,
      ),
    );
    const open = new Set(
      CATALOG.sources
        .filter((s) => (REDISTRIBUTABLE_RIGHTS as readonly string[]).includes(s.rights))
        .map((s) => s.id),
    );
    expectedSlugs = CATALOG.series
      .filter((s) => open.has(s.source) && observed.has(s.key))
      .map((s) => s.slug)
      .sort();
  });

  afterAll(async () => {
    await server?.close();
    await host?.close();
    await db?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('writes a JSON and a CSV file for exactly the catalogued series of open sources with data', () => {
    // Not vacuous: ECB rates and BLS series are among them, the licensed fixture is not.
    expect(expectedSlugs).toEqual(
      expect.arrayContaining(['eur-usd', 'nonfarm-payrolls', 'cpi-u-all-items-nsa']),
    );
    expect(expectedSlugs).not.toContain(LICENSED_SLUG);
    expect(expectedSlugs).not.toContain('eur-cyp'); // no CYP rate since 2007: no data in the sample
    const files = listFiles(distDir);
    const jsonSlugs = files.flatMap((f) => /^api\/v1\/series\/([^/]+)\/index\.json$/.exec(f)?.[1] ?? []);
    const csvSlugs = files.flatMap((f) => /^api\/v1\/series\/([^/]+)\.csv$/.exec(f)?.[1] ?? []);
    expect(jsonSlugs.sort()).toEqual(expectedSlugs);
    expect(csvSlugs.sort()).toEqual(expectedSlugs);
    expect(files.filter((f) => f.includes(LICENSED_SLUG) || f.includes('testvendor'))).toEqual([]);
    const described = new Map(manifest.files.map((f) => [f.file, f]));
    expect(described.get('/api/v1/series/eur-usd.csv')?.content_type).toBe(CSV_TYPE);
    expect(described.get('/api/v1/series/eur-usd/index.json')?.content_type).toBe(JSON_TYPE);
  });

  it('holds per period the latest revision in the snapshot, and the CSV file the same rows', async () => {
    let revised = 0;
    for (const slug of expectedSlugs) {
      const key = CATALOG.series.find((s) => s.slug === slug)!.key;
      const body = JSON.parse(readDist(`api/v1/series/${slug}/index.json`)) as {
        data: HistoryRow[];
        meta: Record<string, unknown>;
      };
      const expected = await readLatestRevisions(db, key);
      expect(expected.length, slug).toBeGreaterThan(0);
      expect(body.data, slug).toEqual(expected);
      expect(body.meta).toMatchObject({ count: expected.length, series: { key, slug } });
      expect(csvRows(readDist(`api/v1/series/${slug}.csv`)), slug).toEqual(body.data);
      revised += body.data.filter((row) => row.revision_number > 1).length;
    }
    expect(revised).toBeGreaterThan(0);
    // And against the publisher's own file: every USD reference rate of the ECB extract.
    const [header, ...lines] = readFileSync(ECB_FILE, 'utf8').trim().split(/\r?\n/);
    const column = header!.split(',').indexOf('USD');
    const rates = new Map(
      lines
        .map((l) => l.split(','))
        .flatMap((f) => (f[column] === 'N/A' ? [] : ([[f[0]!, Number(f[column])]] as const))),
    );
    const usd = JSON.parse(readDist('api/v1/series/eur-usd/index.json')) as { data: HistoryRow[] };
    expect(new Map(usd.data.map((row) => [row.period, row.value]))).toEqual(rates);
  });

  it('is served by a static host: the CSV with its type at its path and with format=csv', async () => {
    const file = readDist('api/v1/series/eur-usd.csv');
    for (const path of ['/api/v1/series/eur-usd.csv', '/api/v1/series/eur-usd?format=csv']) {
      const response = await fetch(`${host.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(CSV_TYPE);
      expect(await response.text(), path).toBe(file);
    }
    for (const path of ['/api/v1/series/eur-usd', '/api/v1/series/eur-usd?format=json']) {
      const response = await fetch(`${host.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(JSON_TYPE);
      expect(await response.text()).toBe(readDist('api/v1/series/eur-usd/index.json'));
    }
    const bad = await fetch(`${host.url}/api/v1/series/eur-usd?format=xml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      'invalid parameter "format": expected json or csv',
    );
    for (const path of [`/api/v1/series/${LICENSED_SLUG}`, `/api/v1/series/${LICENSED_SLUG}.csv`]) {
      const response = await fetch(`${host.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('PAYEMS');
    }
  });

  it('is served by mmds serve from the built files, with the same bytes, type and ETag', async () => {
    const described = new Map(manifest.files.map((f) => [f.file, f]));
    for (const path of ['/api/v1/series/eur-usd.csv', '/api/v1/series/eur-usd?format=csv']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(CSV_TYPE);
      expect(response.headers.get('etag'), path).toBe(described.get('/api/v1/series/eur-usd.csv')!.etag);
      expect(await response.text()).toBe(readDist('api/v1/series/eur-usd.csv'));
    }
    const licensed = await fetch(`${server.url}/api/v1/series/${LICENSED_SLUG}.csv`);
    expect(licensed.status).toBe(404);
  });

  it.skipIf(!HAVE_NGINX)(
    'is served by nginx with the generated dist/nginx.conf, CSV with its type',
    async () => {
      const nginx: ServerProcess = await startMmdsNginx(
        join(temp.dir, 'nginx'),
        distDir,
        Number(new URL(server.url).port),
      );
      try {
        for (const path of ['/api/v1/series/eur-usd.csv', '/api/v1/series/eur-usd?format=csv']) {
          const response = await fetch(`${nginx.url}${path}`);
          expect(response.status, path).toBe(200);
          expect(response.headers.get('content-type'), path).toBe(CSV_TYPE);
          expect(await response.text()).toBe(readDist('api/v1/series/eur-usd.csv'));
        }
        const json = await fetch(`${nginx.url}/api/v1/series/eur-usd`);
        expect(json.headers.get('content-type')).toBe(JSON_TYPE);
        const bad = await fetch(`${nginx.url}/api/v1/series/eur-usd?format=xml`);
        expect(bad.status).toBe(400);
        // An error at a .csv path is still the JSON envelope.
        for (const path of [`/api/v1/series/${LICENSED_SLUG}`, `/api/v1/series/${LICENSED_SLUG}.csv`]) {
          const response = await fetch(`${nginx.url}${path}`);
          expect(response.status, path).toBe(404);
          expect(response.headers.get('content-type'), path).toBe(JSON_TYPE);
        }
      } finally {
        await nginx.stop();
      }
    },
  );
});

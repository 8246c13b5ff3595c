import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { isBulkFile } from '../../../src/build/bulk-files.ts';
import { listFiles } from '../../../src/build/finish-dist.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

type CsvRecord = Record<string, string | null>;

interface CotView {
  report_date: string;
  report_type: string;
  open_interest: number;
  categories: Record<string, { long: number; short: number }>;
}

interface Envelope {
  data?: unknown;
  meta?: Record<string, unknown>;
  error?: { code: string; message: string; request_id: string };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CATALOG = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as {
  markets: Array<{ slug: string; code: string; report_types: string[] }>;
};

/** The columns of the three CFTC layouts the real fixture ingests. */
const COT_FILES = {
  legacy: {
    file: 'cftc/legacy_futures_only_2025_annual.txt',
    code: 'CFTC Contract Market Code',
    date: 'As of Date in Form YYYY-MM-DD',
  },
  tff: {
    file: 'cftc/tff_futures_only_2026_FinFutYY.txt',
    code: 'CFTC_Contract_Market_Code',
    date: 'Report_Date_as_YYYY-MM-DD',
  },
  disaggregated: {
    file: 'cftc/disaggregated_futures_only_2021_f_year.txt',
    code: 'CFTC_Contract_Market_Code',
    date: 'Report_Date_as_YYYY-MM-DD',
  },
} as const;

describe('mmds build on the real data, served the way a static host serves dist/', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let distDir: string;
  let host: StaticHost;
  let manifest: BuildManifest;
  let csv: (file: string) => Promise<CsvRecord[]>;
  let closeCsv: () => void;

  const get = async (path: string) => {
    const response = await fetch(`${host.url}${path}`);
    const text = await response.text();
    return { response, text, body: JSON.parse(text) as Envelope };
  };

  /** Report dates of one market in one CFTC file, oldest first. */
  const readReportDates = async (type: keyof typeof COT_FILES, code: string) => {
    const layout = COT_FILES[type];
    const rows = await csv(layout.file);
    return [
      ...new Set(rows.filter((r) => r[layout.code]?.trim() === code).map((r) => r[layout.date]!)),
    ].sort();
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    temp = createTempDir('mmds-build-real-');
    distDir = join(temp.dir, 'dist');
    const started = performance.now();
    const run = await runMmds(['build', '--out', distDir], fixture.env);
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`mmds build failed (${run.code}): ${run.stderr}`);
    manifest = JSON.parse(readFileSync(join(distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    const onDisk = listFiles(distDir);
    const bytes = onDisk.reduce((sum, file) => sum + statSync(join(distDir, file)).size, 0);
    console.log(
      `mmds build (real data): ${seconds.toFixed(2)} s; ${onDisk.length} files, ${bytes} bytes on disk ` +
        `(manifest: ${manifest.files.length} files, ${manifest.files.reduce((s, f) => s + f.bytes, 0)} bytes ` +
        `uncompressed, ${manifest.routes.length} routes)`,
    );
    host = await startStaticHost(distDir);
    const duck = await openDuckDb();
    const connection = await duck.connect();
    const cache = new Map<string, Promise<CsvRecord[]>>();
    csv = (file) => {
      if (!cache.has(file)) {
        cache.set(
          file,
          readCsvFile(connection, join(SHARED_DATA, file)).then((rows) => rows.map((row) => row.values)),
        );
      }
      return cache.get(file)!;
    };
    closeCsv = () => {
      connection.closeSync();
      duck.closeSync();
    };
  });

  afterAll(async () => {
    await host?.close();
    closeCsv?.();
    temp?.remove();
    fixture?.remove();
  });

  it('serves the USD rate of the newest day of eurofxref-hist.csv', async () => {
    const hist = await csv('ecb/eurofxref-hist.csv');
    const newest = hist.reduce((a, b) => (b.Date! > a.Date! ? b : a));
    // The fixture also ingests eurofxref.csv and eurofxref-daily.xml: neither is newer.
    const [, daily] = readFileSync(join(SHARED_DATA, 'ecb/eurofxref.csv'), 'utf8').split(/\r?\n/);
    const dailyDate = new Date(`${daily!.split(',')[0]} UTC`).toISOString().slice(0, 10);
    const xmlDates = [
      ...readFileSync(join(SHARED_DATA, 'ecb/eurofxref-daily.xml'), 'utf8').matchAll(/time='([\d-]+)'/g),
    ].map((m) => m[1]!);
    for (const date of [dailyDate, ...xmlDates]) expect(date <= newest.Date!).toBe(true);

    const { response, body } = await get('/api/v1/fx/ecb?currency=USD');
    expect(response.status).toBe(200);
    expect(body.data).toEqual([
      expect.objectContaining({ currency: 'USD', base: 'EUR', rate: Number(newest.USD), date: newest.Date }),
    ]);
    expect(body.meta).toMatchObject({ filters: { currency: 'USD' }, date: newest.Date });
  });

  it('summarises every market of the legacy annual file with its newest report of any file', async () => {
    // Every market in the files is served, not only the catalogued ones. The three files are of
    // 2021 (disaggregated), 2025 (legacy) and 2026 (TFF): a market's newest report comes from the
    // newest file that has it.
    const newestRows = new Map<string, { type: keyof typeof COT_FILES; row: CsvRecord }>();
    for (const type of ['disaggregated', 'legacy', 'tff'] as const) {
      const layout = COT_FILES[type];
      const rows = await csv(layout.file);
      const newest = new Map<string, CsvRecord>();
      for (const row of rows) {
        const code = row[layout.code]!.trim();
        const seen = newest.get(code);
        if (seen === undefined || row[layout.date]! > seen[layout.date]!) newest.set(code, row);
      }
      for (const [code, row] of newest) newestRows.set(code, { type, row });
    }
    const legacy = await csv(COT_FILES.legacy.file);
    const legacyCodes = new Set(legacy.map((row) => row[COT_FILES.legacy.code]!.trim()));
    expect(legacyCodes.size).toBeGreaterThan(300);

    const { response, body } = await get('/api/v1/markets/cot');
    expect(response.status).toBe(200);
    const summary = body.data as Array<{ slug: string; code: string; latest: CotView }>;
    expect(summary.map((m) => m.code).sort()).toEqual([...newestRows.keys()].sort());
    expect(new Set(summary.map((m) => m.slug)).size).toBe(summary.length);
    // Catalogued markets keep the catalog's slug.
    for (const market of CATALOG.markets.filter((m) => newestRows.has(m.code))) {
      expect(summary.find((m) => m.code === market.code)?.slug, market.code).toBe(market.slug);
    }

    const byCode = new Map(summary.map((m) => [m.code, m]));
    let fromLegacy = 0;
    for (const code of legacyCodes) {
      const market = byCode.get(code);
      const { type, row } = newestRows.get(code)!;
      expect(market, code).toBeDefined();
      expect(market!.latest, `${code} ${market!.slug}`).toMatchObject({
        report_date: row[COT_FILES[type].date],
        report_type: type,
        open_interest: Number(row[type === 'legacy' ? 'Open Interest (All)' : 'Open_Interest_All']),
      });
      if (type !== 'legacy') continue;
      fromLegacy += 1;
      expect(market!.latest.categories, `${code} ${market!.slug}`).toMatchObject({
        noncommercial: {
          long: Number(row['Noncommercial Positions-Long (All)']),
          short: Number(row['Noncommercial Positions-Short (All)']),
        },
      });
    }
    // Most legacy markets are in no newer file.
    expect(fromLegacy).toBeGreaterThan(legacyCodes.size / 2);
  });

  it('gives every report of a market that has 12 or fewer, with the window they cover', async () => {
    // No tracked market has more than 12 weeks in the real files (the sample test covers the cut).
    const cases = [
      { slug: 'gold', query: '', type: 'legacy' },
      { slug: 'gold', query: '?report_type=disaggregated', type: 'disaggregated' },
      { slug: 'euro-fx', query: '?report_type=tff', type: 'tff' },
    ] as const;
    for (const { slug, query, type } of cases) {
      const code = CATALOG.markets.find((m) => m.slug === slug)!.code;
      const dates = await readReportDates(type, code);
      expect(dates.length).toBeGreaterThan(0);
      expect(dates.length).toBeLessThanOrEqual(12);
      const { response, body } = await get(`/api/v1/markets/cot/${slug}${query}`);
      expect(response.status).toBe(200);
      expect((body.data as CotView[]).map((r) => r.report_date)).toEqual(dates);
      expect(body.meta).toMatchObject({
        report_type: type,
        window: { reports: dates.length, limit: 12, from: dates[0], to: dates.at(-1), full_history: false },
      });
    }
  });

  it('answers an unknown filter value with the 400 envelope', async () => {
    for (const path of ['/api/v1/fx/ecb?currency=ZZZ', '/api/v1/markets/cot/gold?report_type=tff']) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('content-type')).toBe(JSON_TYPE);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(body).toEqual({
        error: { code: 'invalid_parameter', message: expect.any(String), request_id: 'static' },
      });
    }
    expect((await get('/api/v1/fx/ecb?currency=ZZZ')).body.error!.message).toContain('currency');
  });

  it('answers an unknown slug and an unknown path with the 404 envelope', async () => {
    for (const path of ['/api/v1/markets/cot/nope', '/api/v1/nope', '/api/v2/status']) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe(JSON_TYPE);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(body).toEqual({
        error: { code: 'not_found', message: expect.any(String), request_id: 'static' },
      });
    }
  });

  it('answers keyed endpoints with the 401 body and its Bearer challenge', async () => {
    for (const path of [
      '/api/v1/observations',
      '/api/v1/observations?series=ecb.USD',
      '/api/v1/macro/nonfarm-payrolls',
    ]) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(401);
      expect(response.headers.get('content-type')).toBe(JSON_TYPE);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(body).toEqual({
        error: { code: 'unauthorized', message: expect.any(String), request_id: 'static' },
      });
    }
  });

  it("serves every pre-rendered request from its file, with its type and its endpoint's Cache-Control", async () => {
    const routes = manifest.routes.filter((route) => route.status === 200 && route.route_id !== null);
    expect(routes.length).toBeGreaterThan(1000);
    const failures: string[] = [];
    for (let i = 0; i < routes.length; i += 32) {
      await Promise.all(
        routes.slice(i, i + 32).map(async (route) => {
          const url = `${route.path}${Object.keys(route.query).length ? `?${new URLSearchParams(route.query)}` : ''}`;
          const response = await fetch(`${host.url}${url}`);
          const body = Buffer.from(await response.arrayBuffer());
          const maxAge = ROUTES.find((r) => r.id === route.route_id)!.maxAge;
          const got = [
            response.status,
            response.headers.get('content-type'),
            response.headers.get('cache-control'),
          ];
          // The CSV files of the public series histories (endpoint 15) and the iCalendar files of the
          // release calendar (endpoint 16) carry their own types.
          const type = route.file.endsWith('.csv')
            ? 'text/csv; charset=utf-8; header=present'
            : route.file.endsWith('.ics')
              ? 'text/calendar; charset=utf-8'
              : JSON_TYPE;
          const want = [200, type, `public, max-age=${maxAge}`];
          if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${url}: ${got.join(' | ')}`);
          else if (!body.equals(readFileSync(join(distDir, route.file))))
            failures.push(`${url}: body differs`);
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  it('lists every file with its size, content hash and ETag; compressed copies hold the same bytes', () => {
    expect(manifest.snapshot).toBe(fixture.snapshotId);
    const listed = new Set(manifest.files.map((f) => f.file.slice(1)));
    // A bulk file's own name may end in .gz (observations.csv.gz): listed as it is.
    const unlisted = listFiles(distDir)
      .map((file) => (listed.has(file) ? file : file.replace(/\.(gz|br)$/, '')))
      .filter(
        (file) =>
          !listed.has(file) && !['_headers', '_redirects', 'nginx.conf', BUILD_MANIFEST_FILE].includes(file),
      );
    expect(unlisted).toEqual([]);
    const endpointFiles = new Set(
      manifest.routes
        .filter((route) => route.route_id !== null && !route.route_id.startsWith('bulk'))
        .map((route) => route.file),
    );
    expect(endpointFiles.size).toBeGreaterThan(100);
    for (const entry of manifest.files) {
      const path = join(distDir, entry.file);
      const body = readFileSync(path);
      expect(body.length, entry.file).toBe(entry.bytes);
      const hash = createHash('sha256').update(body).digest();
      expect(entry.sha256, entry.file).toBe(hash.toString('hex'));
      // An endpoint's file carries the ETag mmds serve gives its request, of its identity
      // (test/e2e/build/endpoint-etags.test.ts); bulk files (never compressed again) their full
      // hex sha256, the listing's hash; any other file its bytes' hash.
      const file = entry.file.slice(1);
      if (endpointFiles.has(file)) expect(entry.etag, entry.file).toMatch(/^"[\w-]{32}"$/);
      else
        expect(entry.etag, entry.file).toBe(
          isBulkFile(file) ? `"${hash.toString('hex')}"` : `"${hash.toString('base64url').slice(0, 32)}"`,
        );
      for (const [suffix, bytes, decompress] of [
        ['.gz', entry.gzip_bytes, gunzipSync],
        ['.br', entry.br_bytes, brotliDecompressSync],
      ] as const) {
        expect(existsSync(`${path}${suffix}`), `${entry.file}${suffix}`).toBe(bytes !== null);
        if (bytes === null) continue;
        const copy = readFileSync(`${path}${suffix}`);
        expect(copy.length).toBe(bytes);
        expect(decompress(copy).equals(body), `${entry.file}${suffix}`).toBe(true);
      }
    }
  });
});

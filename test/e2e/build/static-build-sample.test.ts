import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCsv } from '../../../src/api/v1/csv.ts';
import { renderReleasesIcs } from '../../../src/api/v1/releases-ics.ts';
import { renderPayload } from '../../../src/api/v1/render.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { listFiles } from '../../../src/build/finish-dist.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { csvQuery, matchRoute, ROUTES, type RouteId } from '../../../src/contract/routes.ts';
import { openDuckDb, readCsvFile } from '../../../src/db/duckdb.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import { LICENSED_SERIES_KEY, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { readCatalogs } from '../site/sample-expectations.ts';

/** The project's catalog plus the test-only licensed vendor's (test/fixtures/licensed/). */
const CATALOG = readCatalogs();
/** Routes whose data objects carry observation values (the only place a leaked value can hide). */
const VALUE_ROUTES: ReadonlySet<RouteId> = new Set([
  'series',
  'macro-latest',
  'fx-ecb',
  'observations',
  'macro-series',
  'series-history',
]);

/** Text of every file of dist/, compressed copies decompressed, by path. */
function readDistTexts(distDir: string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const file of listFiles(distDir)) {
    const bytes = readFileSync(join(distDir, file));
    const body = file.endsWith('.gz')
      ? gunzipSync(bytes)
      : file.endsWith('.br')
        ? brotliDecompressSync(bytes)
        : bytes;
    texts.set(file, body.toString('utf8'));
  }
  return texts;
}

/** Every number held under a `value` or `rate` property anywhere inside `node`. */
function collectValues(node: unknown, found: number[] = []): number[] {
  if (Array.isArray(node)) for (const item of node) collectValues(item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [name, child] of Object.entries(node)) {
      if ((name === 'value' || name === 'rate') && typeof child === 'number') found.push(child);
      else collectValues(child, found);
    }
  }
  return found;
}

/** Modification times of every file and directory under (and of) a directory. */
function readMtimes(dir: string): Record<string, number> {
  const times: Record<string, number> = { '.': statSync(dir).mtimeMs };
  for (const file of listFiles(dir)) {
    times[file] = statSync(join(dir, file)).mtimeMs;
    const parts = file.split('/').slice(0, -1);
    for (let depth = 1; depth <= parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      times[`${parent}/`] ??= statSync(join(dir, parent)).mtimeMs;
    }
  }
  return times;
}

const withoutGeneratedAt = (json: string) => json.replace(/"generated_at":"[^"]*"/g, '"generated_at":"-"');

describe('mmds build on the sample data plus the licensed test series', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let distDir: string;
  let host: StaticHost;
  let db: SnapshotDb;
  let manifest: BuildManifest;
  let csv: (file: string) => Promise<Array<Record<string, string | null>>>;
  let closeCsv: () => void;

  beforeAll(async () => {
    // The build is the subject: it runs here, into a directory of its own, over a copy of the
    // shared sample snapshot (test/helpers/shared-sample-build.ts) instead of a fresh ingest.
    fixture = await useSharedSample({ licensed: true });
    temp = createTempDir('mmds-build-sample-');
    distDir = join(temp.dir, 'dist');
    const started = performance.now();
    const run = await runMmds(['build', '--out', distDir], fixture.env);
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`mmds build failed (${run.code}): ${run.stderr}`);
    manifest = JSON.parse(readFileSync(join(distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    const onDisk = listFiles(distDir);
    const bytes = onDisk.reduce((sum, file) => sum + statSync(join(distDir, file)).size, 0);
    console.log(
      `mmds build (sample): ${seconds.toFixed(2)} s; ${onDisk.length} files, ${bytes} bytes on disk ` +
        `(manifest: ${manifest.files.length} files, ${manifest.files.reduce((s, f) => s + f.bytes, 0)} bytes ` +
        `uncompressed, ${manifest.routes.length} routes)`,
    );
    host = await startStaticHost(distDir);
    db = await fixture.open();
    const duck = await openDuckDb();
    const connection = await duck.connect();
    csv = async (file) => (await readCsvFile(connection, join(SAMPLE_DATA, file))).map((row) => row.values);
    closeCsv = () => {
      connection.closeSync();
      duck.closeSync();
    };
  }, 240_000);

  afterAll(async () => {
    await host?.close();
    await db?.close();
    closeCsv?.();
    temp?.remove();
    fixture?.remove();
  });

  it('serves for every pre-rendered request exactly what renderPayload computes for it', async () => {
    const routes = manifest.routes.filter((route) => route.status === 200 && route.route_id !== null);
    expect(routes.length).toBeGreaterThan(100);
    // Every public route is pre-rendered.
    expect(new Set(routes.map((route) => route.route_id))).toEqual(
      new Set(ROUTES.filter((route) => route.prerender !== 'none').map((route) => route.id)),
    );
    const mismatches: string[] = [];
    // The bulk listings describe files the build wrote, not a payload of the snapshot
    // (test/e2e/bulk/bulk-public.test.ts checks them against the files).
    const rendered = new Set(ROUTES.filter((r) => r.prerender !== 'build').map((r) => r.id as string));
    /** What the host served for each file: another spelling of a request (us for US) must serve the same. */
    const servedFiles = new Map<string, string>();
    for (const entry of routes.filter((r) => rendered.has(r.route_id!))) {
      const search = new URLSearchParams(entry.query);
      const url = `${entry.path}${search.size ? `?${search}` : ''}`;
      const response = await fetch(`${host.url}${url}`);
      const served = await response.text();
      const seen = servedFiles.get(entry.file);
      if (seen !== undefined) {
        if (response.status !== 200 || served !== seen) mismatches.push(`${url}: differs from ${entry.file}`);
        continue;
      }
      servedFiles.set(entry.file, served);
      const matched = matchRoute(entry.path)!;
      expect(matched.route.id, url).toBe(entry.route_id);
      // A `.csv` path is its route's request with format=csv.
      const params = parseRequest(matched.route, matched.slug, matched.csv ? csvQuery(search) : search);
      const computed = await renderPayload(db, matched.route, params, { now: FIXTURE_NOW, keyed: false });
      // format=csv files (endpoint 15) hold the payload's data as CSV; endpoint 16's .ics files iCalendar.
      const expected =
        matched.route.mediaType === 'text/calendar'
          ? renderReleasesIcs(computed)
          : params.query.format === 'csv'
            ? renderCsv(computed.data as unknown[])
            : JSON.stringify(computed);
      if (response.status !== 200) mismatches.push(`${url}: status ${response.status}`);
      else if (withoutGeneratedAt(served) !== withoutGeneratedAt(expected))
        mismatches.push(`${url}: body differs from renderPayload`);
    }
    expect(mismatches).toEqual([]);
  });

  it('serves the most recent weekly reports, at most 12, of each report type of a market', async () => {
    const layouts = {
      legacy: {
        file: 'cftc/legacy_futures_only_2025_selected_markets.txt',
        code: 'CFTC Contract Market Code',
        date: 'As of Date in Form YYYY-MM-DD',
      },
      tff: {
        file: 'cftc/tff_futures_only_2026_selected_markets.txt',
        code: 'CFTC_Contract_Market_Code',
        date: 'Report_Date_as_YYYY-MM-DD',
      },
      disaggregated: {
        file: 'cftc/disaggregated_futures_only_2021_selected_markets.txt',
        code: 'CFTC_Contract_Market_Code',
        date: 'Report_Date_as_YYYY-MM-DD',
      },
    };
    // The real extracts hold 10 (legacy 2025) and 11 (TFF 2026, disaggregated 2021) weeks, so
    // every report is inside the public 12-week window.
    const cases = [
      { slug: 'gold', query: '', type: 'legacy' },
      { slug: 'gold', query: '?report_type=disaggregated', type: 'disaggregated' },
      { slug: 'euro-fx', query: '?report_type=tff', type: 'tff' },
    ] as const;
    for (const { slug, query, type } of cases) {
      const layout = layouts[type];
      const code = CATALOG.markets.find((m) => m.slug === slug)!.code;
      const rows = await csv(layout.file);
      const dates = [
        ...new Set(rows.filter((r) => r[layout.code]?.trim() === code).map((r) => r[layout.date]!)),
      ].sort();
      expect(dates.length).toBeGreaterThan(0);
      const response = await fetch(`${host.url}/api/v1/markets/cot/${slug}${query}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: Array<{ report_date: string }>; meta: unknown };
      const latest = dates.slice(-12);
      expect(body.data.map((report) => report.report_date)).toEqual(latest);
      expect(body.meta).toMatchObject({
        report_type: type,
        // The latest 12 reports at most, and the window says how many it holds.
        window: {
          reports: latest.length,
          limit: 12,
          from: latest[0],
          to: latest.at(-1),
          full_history: false,
        },
      });
    }
  });

  it('never writes the licensed series into dist/, though it is in the snapshot', async () => {
    // Not vacuous: the snapshot holds the licensed series' observations.
    const [stored] = await db.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM observations WHERE series_key = $key',
      { key: LICENSED_SERIES_KEY },
    );
    expect(stored?.n).toBeGreaterThan(1000);
    const slug = CATALOG.series.find((s) => s.key === LICENSED_SERIES_KEY)!.slug;
    const texts = readDistTexts(distDir);
    expect(texts.has('_headers') && texts.has('_redirects') && texts.has(BUILD_MANIFEST_FILE)).toBe(true);
    // The source itself may be listed as metadata (/sources, /status say it is not redistributable).
    const naming = [...texts].filter(([, text]) => text.includes(LICENSED_SERIES_KEY) || text.includes(slug));
    expect(naming.map(([file]) => file)).toEqual([]);
    // Its figures are also public as bls.CES0000000001 (the same real file), so values cannot tell
    // a leak apart: every value-bearing payload must instead belong to a redistributable series.
    const valueFiles = new Set(
      manifest.routes.filter((r) => r.route_id && VALUE_ROUTES.has(r.route_id as RouteId)).map((r) => r.file),
    );
    let checked = 0;
    for (const [file, text] of texts) {
      // The CSV files repeat the JSON files' rows (test/e2e/build/series-history-build.test.ts).
      if (!valueFiles.has(file.replace(/\.(gz|br)$/, '')) || /\.csv(\.(gz|br))?$/.test(file)) continue;
      checked += collectValues((JSON.parse(text) as { data: unknown }).data).length;
    }
    expect(checked).toBeGreaterThan(0);
    expect(manifest.routes.filter((r) => JSON.stringify(r).includes(LICENSED_SERIES_KEY))).toEqual([]);
  });

  it('does nothing when dist/ already holds the current snapshot', async () => {
    const before = readMtimes(distDir);
    const run = await runMmds(['build', '--out', distDir], fixture.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('nothing to do');
    expect(run.stdout).toContain(fixture.snapshotId);
    expect(readMtimes(distDir)).toEqual(before);
  });

  it('exits 1 with one line when no snapshot has been published', async () => {
    const empty = createTempDir('mmds-build-empty-');
    try {
      const out = join(empty.dir, 'dist');
      // An existing, empty data directory (a missing one is a configuration error, exit 78).
      const run = await runMmds(['build', '--out', out], { MMDS_DATA_DIR: empty.dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^mmds: .*snapshot/);
      expect(existsSync(out)).toBe(false);
    } finally {
      empty.remove();
    }
  });
});

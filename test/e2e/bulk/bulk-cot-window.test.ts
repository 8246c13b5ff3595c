import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import type { ServerProcess } from '../../../scripts/bench/processes.ts';
import type { BulkSnapshot } from '../../../src/api/v1/bulk.ts';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';

/**
 * Issue 37: an earlier snapshot's public `cot_reports` bulk file held the report that had just left
 * the public window (SPEC rule 1). Here the CFTC's own TFF file of 2020 for two markets is
 * published without its last report date, built, then published whole (one more weekly report)
 * and built again. The window and the date that leaves it are computed from the file, not by the
 * code under test: no answer without a key, on mmds serve, a static host or nginx, may hold it.
 */

const WINDOW = 12;
const CODES = new Set(['099741', '13874A']);
// The server checks key expiry against the real clock, so the key is issued with it.
const REAL_CLOCK = () => new Date();

interface Listing {
  data: BulkSnapshot[];
  meta: { latest: string; cot_window: { reports: number; snapshot: string; rule: string } };
}

/** The header and the lines of CODES of the 2020 TFF file, and its report dates oldest first. */
function readTffLines(): { header: string; lines: Array<{ line: string; date: string }>; dates: string[] } {
  const text = readFileSync(join(SHARED_DATA, 'cftc/history/tff_fut_2020partial__FinFutYY.txt'), 'latin1');
  const [header, ...rest] = text.split('\r\n');
  const lines = rest.flatMap((line) => {
    const match = /^"[^"]*",\s*\d{6}\s*,\s*(\d{4}-\d{2}-\d{2})\s*,\s*([^,]+?)\s*,/.exec(line);
    return match && CODES.has(match[2]!) ? [{ line, date: match[1]! }] : [];
  });
  return { header: header!, lines, dates: [...new Set(lines.map((l) => l.date))].sort() };
}

describe('the public window of the newest snapshot holds for the bulk COT files of every snapshot', () => {
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;
  let distDir: string;
  let first: string;
  let second: string;
  /** The report date the one more weekly report pushes out of the window. */
  let dropped: string;
  let newestDate: string;
  let server: TestServer;
  let host: StaticHost;
  let nginx: ServerProcess | null = null;
  let historyKey: string;
  /** The earlier snapshot's public COT CSV as its own build wrote it. */
  let earlierCsv: string;

  const mmds = async (...args: string[]) => {
    const run = await runMmds(args, env);
    if (run.code !== 0) throw new Error(`mmds ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
    return run;
  };

  beforeAll(async () => {
    temp = createTempDir('mmds-bulk-cot-window-');
    env = { MMDS_DATA_DIR: join(temp.dir, 'data'), MMDS_DIST_DIR: join(temp.dir, 'dist') };
    distDir = env.MMDS_DIST_DIR!;
    const { header, lines, dates } = readTffLines();
    newestDate = dates.at(-1)!;
    // The first snapshot's window is the 12 dates before the newest; the newest pushes out its oldest.
    dropped = dates.at(-1 - WINDOW)!;
    const before = join(temp.dir, 'tff-before.txt');
    const whole = join(temp.dir, 'tff-whole.txt');
    const write = (path: string, kept: typeof lines) =>
      writeFileSync(path, `${[header, ...kept.map((l) => l.line)].join('\r\n')}\r\n`, 'latin1');
    write(
      before,
      lines.filter((l) => l.date !== newestDate),
    );
    write(whole, lines);
    await mmds('ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml'));
    await mmds('ingest', 'cftc', before);
    await mmds('publish');
    first = readCurrentId(resolveLayout(env.MMDS_DATA_DIR!))!;
    await mmds('build', '--out', distDir);
    earlierCsv = gunzipSync(
      readFileSync(join(distDir, `api/v1/bulk/${first}/cot_reports.csv.gz`)),
    ).toString();
    await mmds('ingest', 'cftc', whole);
    await mmds('publish');
    second = readCurrentId(resolveLayout(env.MMDS_DATA_DIR!))!;
    await mmds('build', '--out', distDir);
    const issued = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'COT window', '--scopes', 'cot:history'],
      env,
      REAL_CLOCK,
    );
    expect(issued.code, issued.stderr).toBe(0);
    historyKey = (JSON.parse(issued.stdout) as { key: string }).key;
    server = await startTestServer({ dataDir: env.MMDS_DATA_DIR!, distDir, anonymousLimit: 10_000 });
    host = await startStaticHost(distDir);
    if (HAVE_NGINX)
      nginx = await startMmdsNginx(join(temp.dir, 'nginx'), distDir, Number(new URL(server.url).port));
  }, 900_000);

  afterAll(async () => {
    await nginx?.stop();
    await host?.close();
    await server?.close();
    temp?.remove();
  });

  const path = (snapshot: string, file: string) => `/api/v1/bulk/${snapshot}/${file}`;

  it('withholds the earlier COT files, which hold the report that has left the window', () => {
    expect(second).not.toBe(first);
    expect(earlierCsv).toContain(dropped);
    expect(earlierCsv).not.toContain(newestDate);
    const manifest = JSON.parse(readFileSync(join(distDir, BUILD_MANIFEST_FILE), 'utf8')) as BuildManifest;
    expect(manifest.bulk?.map((s) => s.snapshot)).toEqual([second, first]);
    const withheld = manifest.bulk![1]!.withheld!;
    expect(withheld.map((w) => w.path).sort()).toEqual(
      [path(first, 'cot_reports.csv.gz'), path(first, 'cot_reports.parquet')].sort(),
    );
  });

  it('the listing says which rule applies, and lists the earlier COT files as withheld', async () => {
    const response = await fetch(`${server.url}/api/v1/bulk`);
    expect(response.status).toBe(200);
    const listing = (await response.json()) as Listing;
    expect(listing.meta.cot_window).toMatchObject({ reports: WINDOW, snapshot: second });
    expect(listing.meta.cot_window.rule).toContain('cot:history');
    const [newest, earlier] = listing.data;
    expect(newest!.snapshot).toBe(second);
    expect(newest!.withheld).toEqual([]);
    expect(newest!.files.filter((f) => f.dataset === 'cot_reports')).toHaveLength(2);
    expect(earlier!.snapshot).toBe(first);
    expect(earlier!.files.filter((f) => f.dataset === 'cot_reports')).toEqual([]);
    // The other datasets of the earlier snapshot stay public.
    expect(earlier!.files.length).toBeGreaterThan(0);
    expect(earlier!.withheld).toHaveLength(2);
    for (const file of earlier!.withheld!)
      expect(file).toMatchObject({
        dataset: 'cot_reports',
        window_of: second,
        scope: 'cot:history',
        history: '/api/v1/markets/cot/{slug}',
      });
    const one = await fetch(`${server.url}/api/v1/bulk/${first}`);
    const entry = (await one.json()) as { data: BulkSnapshot; meta: Listing['meta'] };
    expect(entry.data).toEqual(earlier);
    expect(entry.meta.cot_window.snapshot).toBe(second);
  });

  it('the earlier COT files are 404 without a key and with a cot:history key, and gone from dist/', async () => {
    for (const file of ['cot_reports.csv.gz', 'cot_reports.parquet']) {
      for (const headers of [{}, { Authorization: `Bearer ${historyKey}` }]) {
        const response = await fetch(`${server.url}${path(first, file)}`, { headers });
        const body = await response.text();
        expect(response.status, body).toBe(404);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const error = (JSON.parse(body) as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('not_found');
        expect(error.message).toContain('withheld');
        expect(error.message).toContain('cot:history');
        expect(body).not.toContain(dropped);
      }
      const onHost = await fetch(`${host.url}${path(first, file)}`);
      expect(onHost.status).toBe(404);
      expect(await onHost.text()).not.toContain(dropped);
      if (nginx) {
        const viaNginx = await fetch(`http://127.0.0.1:${nginx.port}${path(first, file)}`);
        expect(viaNginx.status).toBe(404);
      }
    }
    // Nothing in dist/ names or holds them: no static host, bucket upload or nginx rule can serve them.
    expect(
      readdirSync(join(distDir, 'api/v1/bulk', first)).filter((f) => f.startsWith('cot_reports')),
    ).toEqual([]);
    for (const file of ['_headers', 'nginx.conf']) {
      expect(readFileSync(join(distDir, file), 'utf8'), file).not.toContain(path(first, 'cot_reports'));
    }
    expect(existsSync(join(distDir, path(first, 'markets.parquet').slice(1)))).toBe(true);
  });

  it('the newest COT file holds the window only, with a short Cache-Control, and the key reads the older report', async () => {
    const response = await fetch(`${server.url}${path(second, 'cot_reports.csv.gz')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const csv = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
    expect(csv).toContain(newestDate);
    expect(csv).not.toContain(dropped);
    const onHost = await fetch(`${host.url}${path(second, 'cot_reports.parquet')}`);
    expect(onHost.status).toBe(200);
    expect(onHost.headers.get('cache-control')).toBe('public, max-age=300');
    if (nginx) {
      const viaNginx = await fetch(`http://127.0.0.1:${nginx.port}${path(second, 'cot_reports.parquet')}`);
      expect(viaNginx.status).toBe(200);
      expect(viaNginx.headers.get('cache-control')).toBe('public, max-age=300');
      const other = await fetch(`http://127.0.0.1:${nginx.port}${path(second, 'markets.parquet')}`);
      expect(other.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    // The report that left the window is the key's, through endpoint 3.
    const markets = (await (await fetch(`${server.url}/api/v1/markets/cot`)).json()) as {
      data: Array<{ slug: string; code: string }>;
    };
    const slug = markets.data.find((m) => CODES.has(m.code))!.slug;
    const history = await fetch(
      `${server.url}/api/v1/markets/cot/${slug}?report_type=tff&from=${dropped}&to=${dropped}`,
      { headers: { Authorization: `Bearer ${historyKey}` } },
    );
    const body = await history.text();
    expect(history.status, body).toBe(200);
    expect(body).toContain(`"report_date":"${dropped}"`);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles } from '../../../src/build/finish-dist.ts';
import { ROUTES, SCOPES, type Scope } from '../../../src/contract/routes.ts';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { REPO_ROOT, SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * The public COT window (SPEC rule 1: the 12 most recent reports per market and report type) on
 * a snapshot holding more than 12: the sample pipeline, then the CFTC's own TFF file of 2020 (47
 * report dates) for the five TFF markets of the sample, published as a second snapshot. The
 * window and the older report dates are computed here from the snapshot's facts, not by the code
 * under test. (a) no file `mmds build` writes and no public route of the server holds an older
 * report date; (b) no route gives a key a COT report that endpoint 3 refuses to the same key.
 */

const WINDOW = 12;
// Keys are checked against the real clock by the server, so they are issued with it too.
const REAL_CLOCK = () => new Date();
/** A date that is not the date part of a time (`2020-01-14T13:30:00Z`, `2020-01-14 13:30`): a report date. */
const DATE = /\d{4}-\d{2}-\d{2}(?![T ]\d{2}:)/g;

/** The CFTC contract market code and report date of one line of a CFTC file, or null (header). */
function readCodeAndDate(line: string): { code: string; date: string } | null {
  const match = /^"[^"]*",\s*\d{6}\s*,\s*(\d{4}-\d{2}-\d{2})\s*,\s*([^,]+?)\s*,/.exec(line);
  return match ? { date: match[1]!, code: match[2]! } : null;
}

/** The real 2020 TFF file, its header and the lines of the given markets (CRLF kept as the CFTC writes it). */
function writeTffHistory(path: string, codes: ReadonlySet<string>): number {
  const text = readFileSync(join(SHARED_DATA, 'cftc/history/tff_fut_2020partial__FinFutYY.txt'), 'latin1');
  const lines = text.split('\r\n');
  const kept = lines.filter((line, i) => i === 0 || codes.has(readCodeAndDate(line)?.code ?? ''));
  writeFileSync(path, `${kept.join('\r\n')}\r\n`, 'latin1');
  return kept.length - 1;
}

interface Found {
  where: string;
  date: string;
  context: string;
}

/** Every occurrence of an old report date in a text, with a little context. */
function findOldDates(where: string, text: string, old: ReadonlySet<string>): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(DATE)) {
    if (!old.has(match[0])) continue;
    const at = match.index ?? 0;
    found.push({ where, date: match[0], context: text.slice(Math.max(0, at - 80), at + 40) });
  }
  return found;
}

/** The market list of endpoint 2, as the server answers it and as the build writes it. */
const MARKET_LIST = /^\/?api\/v1\/markets\/cot(\/index\.json(\.gz|\.br)?)?$/;

/** The API reference page, and in it the example of the market list (its real public body, shortened). */
const API_REFERENCE = /^docs\/api\/index\.html(\.gz|\.br)?$/;
const MARKET_LIST_EXAMPLE =
  /(<pre[^>]*aria-label="Example response of \/api\/v1\/markets\/cot"[^>]*>)([\s\S]*?<\/pre>)/;

/** A page of the site's guides, as a built file or a path: its docs/ Markdown name. */
const GUIDE_PAGE = /^\/?docs\/(.+?)\/(?:index\.html(?:\.gz|\.br)?)?$/;

/**
 * A body as the old-date search reads it: in the market list, each market's `first_report` (a
 * date of market metadata, issue 22, not a report) is blanked, so that every other field, and
 * every report the list holds, is still searched; likewise in the API reference's example of
 * the list, and there only.
 */
function searchedText(where: string, text: string): string {
  // A guide page (docs/<page>.md rendered by the site, never data of the snapshot): a date its
  // Markdown source writes is prose (data-model.md tells of a BLS correction of 2015-03-17).
  const guide = GUIDE_PAGE.exec(where)?.[1];
  if (guide !== undefined && guide !== 'api') {
    const prose = new Set(readFileSync(join(REPO_ROOT, 'docs', `${guide}.md`), 'utf8').match(DATE) ?? []);
    return text.replace(DATE, (date) => (prose.has(date) ? '' : date));
  }
  if (API_REFERENCE.test(where)) {
    expect(text, where).toMatch(MARKET_LIST_EXAMPLE);
    return text.replace(
      MARKET_LIST_EXAMPLE,
      (_all, open: string, example: string) =>
        `${open}${example.replace(/(&quot;first_report&quot;: &quot;)\d{4}-\d{2}-\d{2}/g, '$1')}`,
    );
  }
  if (!MARKET_LIST.test(where)) return text;
  const body = JSON.parse(text) as { data: Array<Record<string, unknown>> };
  for (const market of body.data) {
    expect(market, where).toHaveProperty('first_report');
    market.first_report = null;
  }
  return JSON.stringify(body);
}

/** The first leak of each file or path, so that a failure names every place at once. */
function firstPerPlace(leaks: readonly Found[]): Record<string, string> {
  const first: Record<string, string> = {};
  for (const leak of leaks) first[leak.where] ??= `${leak.date}: …${leak.context}…`;
  return first;
}

describe('the public COT window holds everywhere (more than 12 reports per market stored)', () => {
  let temp: ReturnType<typeof createTempDir>;
  let env: Record<string, string>;
  let distDir: string;
  let firstSnapshot: string;
  /** Per COT series key its report dates, oldest first (read from the snapshot's facts). */
  let datesBySeries: Map<string, string[]>;
  /** Report dates outside every series' window: no public answer may hold one. */
  let oldDates: Set<string>;
  let duck: Awaited<ReturnType<typeof openDuckDb>>;
  let parquetText: (path: string) => Promise<string>;
  /** The server rendering every route itself, and the one serving the build (pages, bulk files). */
  let rendering: TestServer;
  let serving: TestServer;
  let tffCodes: Set<string>;

  beforeAll(async () => {
    temp = createTempDir('mmds-cot-window-');
    const dataDir = join(temp.dir, 'data');
    distDir = join(temp.dir, 'dist');
    env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: distDir };
    const ok = async (argv: string[]) => {
      const run = await runMmds(argv, env);
      if (run.code !== 0) throw new Error(`mmds ${argv[0]} failed (${run.code}): ${run.stderr}`);
    };
    await ok(['ingest-plan', join(SAMPLE_DATA, 'pipeline.json')]);
    await ok(['publish']);
    const layout = resolveLayout(dataDir);
    firstSnapshot = readCurrentId(layout)!;
    tffCodes = new Set(
      readFileSync(join(SAMPLE_DATA, 'cftc/tff_futures_only_2026_selected_markets.txt'), 'latin1')
        .split(/\r?\n/)
        .flatMap((line) => readCodeAndDate(line)?.code ?? []),
    );
    const history = join(temp.dir, 'tff_2020_sample_markets.txt');
    expect(writeTffHistory(history, tffCodes)).toBeGreaterThan(5 * WINDOW);
    await ok(['ingest', 'cftc', history]);
    await ok(['publish']);
    await ok(['build', '--out', distDir]);

    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const rows = await db.query<{ series_key: string; period: string }>(
        'SELECT DISTINCT series_key, period FROM cot_reports ORDER BY series_key, period',
      );
      datesBySeries = new Map();
      for (const row of rows)
        datesBySeries.set(row.series_key, [...(datesBySeries.get(row.series_key) ?? []), row.period]);
    } finally {
      db.close();
    }
    const inSomeWindow = new Set([...datesBySeries.values()].flatMap((dates) => dates.slice(-WINDOW)));
    // A date the catalog's own text names is no report date where it appears (the lati's
    // description: "Quoted until 2013-12-31", also a report date of the sample's deep TFF history).
    const catalogDates = new Set(
      readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8').match(DATE),
    );
    oldDates = new Set(
      [...datesBySeries.values()].flat().filter((date) => !inSomeWindow.has(date) && !catalogDates.has(date)),
    );
    // The sample's deep TFF history (2013-2016) alone has 155 older report dates per market.
    expect(oldDates.size).toBeGreaterThan(150);

    duck = await openDuckDb();
    const connection = await duck.connect();
    parquetText = async (path) =>
      JSON.stringify(await readRows(connection, `SELECT * FROM read_parquet(${quotedString(path)})`));
    rendering = await startTestServer({ dataDir, anonymousLimit: 100_000 });
    serving = await startTestServer({ dataDir, distDir, anonymousLimit: 100_000 });
  }, 900_000);

  afterAll(async () => {
    await rendering?.close();
    await serving?.close();
    duck?.closeSync();
    temp?.remove();
  });

  /** A response body as text: Parquet read through DuckDB, gzip and brotli bodies decompressed. */
  const bodyText = async (path: string, body: Buffer): Promise<string> => {
    if (path.endsWith('.parquet') && body.subarray(0, 4).toString() === 'PAR1') {
      const file = join(temp.dir, `body-${Math.random().toString(36).slice(2)}.parquet`);
      writeFileSync(file, body);
      return parquetText(file);
    }
    if (path.endsWith('.gz')) return gunzipSync(body).toString('utf8');
    if (path.endsWith('.br')) return brotliDecompressSync(body).toString('utf8');
    return body.toString('utf8');
  };

  const get = async (server: TestServer, path: string, key?: string) => {
    const response = await fetch(`${server.url}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
      redirect: 'manual',
    });
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, body, text: await bodyText(path.split('?')[0]!, body) };
  };

  /** The public requests of every public route, with every slug the listings name. */
  const publicRequests = async (server: TestServer): Promise<string[]> => {
    const markets = JSON.parse((await get(server, '/api/v1/markets/cot')).text) as {
      data: Array<{ slug: string; report_types: string[] }>;
    };
    const series = JSON.parse((await get(server, '/api/v1/series')).text) as {
      data: Array<{ slug: string | null }>;
    };
    const bulk = JSON.parse((await get(server, '/api/v1/bulk')).text) as {
      data?: Array<{ snapshot: string; files: Array<{ path: string }> }>;
    };
    const paths: string[] = [];
    for (const route of ROUTES) {
      if (route.access.kind === 'scope') continue;
      if (route.id === 'cot-market') {
        for (const market of markets.data) {
          paths.push(`/api/v1/markets/cot/${market.slug}`);
          for (const type of market.report_types)
            paths.push(`/api/v1/markets/cot/${market.slug}?report_type=${type}`);
        }
      } else if (route.id === 'series-history') {
        for (const s of series.data)
          if (s.slug) paths.push(`/api/v1/series/${s.slug}`, `/api/v1/series/${s.slug}.csv`);
      } else if (route.id === 'bulk-snapshot') {
        for (const snapshot of bulk.data ?? []) {
          paths.push(`/api/v1/bulk/${snapshot.snapshot}`);
          for (const file of snapshot.files) paths.push(file.path);
        }
      } else if (route.id === 'changes') {
        paths.push(`/api/v1/changes?since=${firstSnapshot}`, `/api/v1/changes.csv?since=${firstSnapshot}`);
      } else if (route.id === 'releases' || route.id === 'releases-ics') {
        // Past releases carry the report dates: asked for the whole stored year too.
        paths.push(
          route.path,
          `${route.path}?source=cftc`,
          `${route.path}?source=cftc&from=2020-01-01&to=2020-12-31`,
        );
      } else paths.push(route.path);
    }
    return paths;
  };

  it('stores more than 12 reports of each TFF market, so the window leaves some out', () => {
    const tff = [...datesBySeries.entries()].filter(
      ([key]) => key.endsWith('.tff') && tffCodes.has(key.split('.')[1]!),
    );
    expect(tff.length).toBe(tffCodes.size);
    for (const [, dates] of tff) expect(dates.length).toBeGreaterThan(WINDOW + 30);
    expect(oldDates.size).toBeGreaterThan(30);
  });

  it('(a) no file mmds build writes holds a COT report date older than the window', async () => {
    const files = listFiles(distDir);
    expect(files.some((file) => /\/cot_reports\.parquet$/.test(file))).toBe(true);
    expect(files.some((file) => /^markets\/[^/]+\/index\.html$/.test(file))).toBe(true);
    const leaks: Found[] = [];
    for (const file of files) {
      const text = await bodyText(file, readFileSync(join(distDir, file)));
      leaks.push(...findOldDates(file, searchedText(file, text), oldDates));
    }
    expect(firstPerPlace(leaks)).toEqual({});
  }, 600_000);

  it('(a) no public route of the server holds a COT report date older than the window', async () => {
    const leaks: Found[] = [];
    let answered = 0;
    for (const server of [rendering, serving]) {
      for (const path of await publicRequests(server)) {
        const reply = await get(server, path);
        expect(reply.status, path).toBeLessThan(500);
        if (reply.status === 200) answered++;
        leaks.push(...findOldDates(path, searchedText(path, reply.text), oldDates));
      }
    }
    expect(answered).toBeGreaterThan(50);
    expect(firstPerPlace(leaks)).toEqual({});
  }, 600_000);

  it('the market list gives each market its first and last report date and active, its reports stay in the window', async () => {
    const body = JSON.parse((await get(rendering, '/api/v1/markets/cot')).text) as {
      data: Array<{
        code: string;
        first_report: string;
        last_report: string;
        active: boolean;
        replaces: unknown[];
        replaced_by: unknown[];
        latest: { report_date: string; report_type: string };
      }>;
    };
    // Per report type (the series' third part, `_combined` for the combined scope) its latest date.
    const typeOf = (key: string) => key.split('.').slice(2).join('_');
    const latestOfType = new Map<string, string>();
    for (const [key, dates] of datesBySeries) {
      const type = typeOf(key);
      if ((latestOfType.get(type) ?? '') < dates.at(-1)!) latestOfType.set(type, dates.at(-1)!);
    }
    expect(body.data.length).toBe(new Set([...datesBySeries.keys()].map((key) => key.split('.')[1])).size);
    for (const market of body.data) {
      const series = [...datesBySeries.entries()].filter(([key]) => key.split('.')[1] === market.code);
      const dates = series.flatMap(([, d]) => d).sort();
      expect([market.first_report, market.last_report], market.code).toEqual([dates[0], dates.at(-1)]);
      const active = series.some(([key, d]) => d.at(-1) === latestOfType.get(typeOf(key)));
      expect(market.active, market.code).toBe(active);
      // No two codes of the sample hand over to one another.
      expect([market.replaces, market.replaced_by], market.code).toEqual([[], []]);
      expect(oldDates.has(market.latest.report_date), market.code).toBe(false);
    }
    // The TFF markets' first report (2020) is older than their window: metadata, not a report.
    const tff = body.data.filter((market) => tffCodes.has(market.code));
    expect(tff).toHaveLength(tffCodes.size);
    for (const market of tff) {
      expect(market.first_report.startsWith('2020-'), market.code).toBe(true);
      expect(oldDates.has(market.first_report), market.code).toBe(true);
      expect(market.active, market.code).toBe(true);
    }
  });

  it('(b) no route gives a key a COT report that endpoint 3 refuses to the same key', async () => {
    const issue = async (scopes: readonly Scope[]) => {
      const run = await runMmds(
        [
          '--json',
          'keys',
          'issue',
          '--org',
          'Window Org',
          '--scopes',
          scopes.join(','),
          '--rate-limit',
          '100000',
        ],
        env,
        REAL_CLOCK,
      );
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { key: string }).key;
    };
    const tffKey = [...datesBySeries.keys()].find(
      (key) => key.endsWith('.tff') && tffCodes.has(key.split('.')[1]!),
    )!;
    const markets = JSON.parse((await get(rendering, '/api/v1/markets/cot')).text) as {
      data: Array<{ slug: string; code: string }>;
    };
    const slug = markets.data.find((m) => m.code === tffKey.split('.')[1])!.slug;
    const macroSlug = (
      JSON.parse((await get(rendering, '/api/v1/macro')).text) as { data: Array<{ slug: string }> }
    ).data[0]!.slug;
    const full = JSON.parse(
      (await get(rendering, '/api/v1/bulk/full', await issue(['bulk:read', 'cot:history']))).text,
    ) as {
      data: Array<{ url: string; table: string }>;
    };
    const keyedPaths = [
      `/api/v1/markets/cot/${slug}`,
      `/api/v1/markets/cot/${slug}?report_type=tff`,
      `/api/v1/markets/cot/${slug}?report_type=tff&limit=1000`,
      `/api/v1/markets/cot/${slug}.csv?report_type=tff&limit=1000`,
      `/api/v1/observations/aligned?series=${tffKey},${tffKey}.net.dealer&frequency=w&limit=1000`,
      `/api/v1/observations/aligned?series=${tffKey}&frequency=m&limit=1000`,
      `/api/v1/observations?series=${tffKey}`,
      `/api/v1/observations/revisions?series=${tffKey}`,
      `/api/v1/macro/${macroSlug}`,
      `/api/v1/changes?since=${firstSnapshot}`,
      `/api/v1/changes.csv?since=${firstSnapshot}`,
      '/api/v1/bulk/full',
    ];
    // The keyed requests above, then the full store's files and every public request.
    const keyedCount = keyedPaths.length;
    keyedPaths.push(
      ...full.data.map((entry) => new URL(entry.url, rendering.url).pathname),
      ...(await publicRequests(serving)),
    );
    expect(full.data.some((entry) => entry.table === 'cot_reports')).toBe(true);
    // Per key: the routes that gave it an old report date, and whether endpoint 3 gives it the full history.
    const outcome: Record<string, { endpoint3Full: boolean; leaking: string[] }> = {};
    const keys: Array<[string, string | undefined]> = [
      ['anonymous', undefined],
      ...(await Promise.all(SCOPES.map(async (scope) => [scope, await issue([scope])] as [string, string]))),
    ];
    // The aligned weekly rows are labelled by the week's Friday: an old report's week is refused too.
    const fridayOf = (date: string) =>
      new Date(Date.parse(`${date}T00:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10);
    const refused = new Set([...oldDates, ...[...oldDates].map(fridayOf)]);
    const statuses: Record<string, Record<string, number>> = {};
    for (const [name, key] of keys) {
      const leaking: string[] = [];
      statuses[name] = {};
      for (const path of keyedPaths) {
        const server =
          path.startsWith('/api/v1/bulk/') && !path.startsWith('/api/v1/bulk/full') ? serving : rendering;
        const reply = await get(server, path, key);
        expect(reply.status, `${name} ${path}`).toBeLessThan(500);
        if (keyedPaths.indexOf(path) < keyedCount) statuses[name]![path] = reply.status;
        if (reply.status === 200 && findOldDates(path, searchedText(path, reply.text), refused).length > 0)
          leaking.push(path);
      }
      // What endpoint 3 gives this key: the report dates of its rows (not its meta).
      const endpoint3 = await get(rendering, `/api/v1/markets/cot/${slug}?report_type=tff`, key);
      const rows =
        endpoint3.status === 200
          ? (JSON.parse(endpoint3.text) as { data: { report_date: string }[] }).data
          : [];
      outcome[name] = { endpoint3Full: rows.some((row) => oldDates.has(row.report_date)), leaking };
    }
    console.log(`statuses per key: ${JSON.stringify(statuses, null, 1)}`);
    // The detector works: the scope that unlocks the history sees it.
    expect(outcome['cot:history']!.endpoint3Full).toBe(true);
    // Every key at once: the routes that gave it what endpoint 3 refused it.
    const leaks = Object.fromEntries(
      Object.entries(outcome).map(([name, { endpoint3Full, leaking }]) => [
        name,
        endpoint3Full ? [] : leaking,
      ]),
    );
    expect(leaks).toEqual(Object.fromEntries(Object.keys(outcome).map((name) => [name, []])));
  }, 600_000);
});

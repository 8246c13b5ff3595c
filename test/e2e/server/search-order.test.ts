import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { issueTestKey } from '../../reliability/helpers/served-sample.ts';

/**
 * Search and order the way FRED users ask (issue 35 item 2): /api/v1/series/search?search_text=,
 * sort_order=desc with limit ("latest N") on the history endpoints, and from/to/sort_order/limit
 * on the public series history. Over HTTP on a snapshot of the catalog, FRED's two PAYEMS vintages
 * and the CFTC's 2025 legacy extract, checked against those files read by hand.
 */
const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const EARLY = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const COT = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt');
const REAL_CLOCK = () => new Date();

interface Body {
  data: Array<Record<string, unknown>>;
  meta: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** A FRED CSV as written: month (YYYY-MM) to value. */
function readFredCsv(path: string): Map<string, number> {
  const lines = readFileSync(path, 'utf8').trim().split('\n').slice(1);
  return new Map(lines.map((line) => [line.slice(0, 7), Number(line.split(',')[1])]));
}

/** The values in force after both vintages: the later vintage where it has the month. */
function valuesInForce(): Array<[string, number]> {
  const merged = new Map([...readFredCsv(EARLY), ...readFredCsv(LATE)]);
  return [...merged].sort(([a], [b]) => (a < b ? -1 : 1));
}

interface CatalogSeries {
  key: string;
  slug: string;
  name: string;
  source: string;
  description?: string;
}

describe('series search and sort_order, on the catalog, the PAYEMS vintages and a CFTC extract', () => {
  const temp = createTempDir('mmds-search-order-');
  const dataDir = join(temp.dir, 'data');
  const emptyDist = createTempDir('mmds-no-dist-');
  const catalog = parseYaml(readFileSync(CATALOG, 'utf8')) as {
    sources: Array<{ id: string; rights: string }>;
    series: CatalogSeries[];
  };
  const redistributable = new Set(
    catalog.sources
      .filter((s) => s.rights === 'public_domain' || s.rights === 'open_licence')
      .map((s) => s.id),
  );
  let server: TestServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    for (const step of [
      ['catalog', CATALOG],
      ['fred', EARLY, '--series', 'bls.CES0000000001', '--vintage', '2025-08-01'],
      ['fred', LATE, '--series', 'bls.CES0000000001', '--vintage', '2026-10-02'],
      ['cftc', COT],
    ]) {
      const run = await runMmds(['ingest', ...step], { MMDS_DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(0);
    }
    const publish = await runMmds(['publish'], { MMDS_DATA_DIR: dataDir });
    expect(publish.code, publish.stderr).toBe(0);
    server = await startTestServer({ dataDir, distDir: emptyDist.dir, anonymousLimit: 10_000 });
    for (const scope of ['observations:read', 'macro:history', 'cot:history'])
      keys[scope] = (
        await issueTestKey({ MMDS_DATA_DIR: dataDir }, { scopes: scope, org: 'Search Org', now: REAL_CLOCK })
      ).plaintext;
  });

  afterAll(async () => {
    await server?.close();
    emptyDist.remove();
    temp.remove();
  });

  const get = async (path: string, key?: string) => {
    const response = await fetch(new URL(path, server.url), {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    return { response, body: (await response.json()) as Body };
  };

  it('search_text finds every redistributable catalog series holding each word, the name match first', async () => {
    // "nonfarm" is in the names of the two CES series of the catalog (and maybe in others' notes).
    const { response, body } = await get('/api/v1/series/search?search_text=Nonfarm%20payrolls');
    expect(response.status).toBe(200);
    const words = ['nonfarm', 'payrolls'];
    const holds = (text: string | undefined, word: string) =>
      (text ?? '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .some((w) => w.startsWith(word));
    // Name, slug or notes hold every word: a subset of the matches the file alone tells.
    const byHand = catalog.series.filter(
      (s) =>
        redistributable.has(s.source) &&
        words.every((w) => holds(s.name, w) || holds(s.slug, w) || holds(s.description, w)),
    );
    const found = body.data.map((row) => row.key);
    expect(byHand.length).toBeGreaterThan(0);
    for (const series of byHand) expect(found).toContain(series.key);
    expect(body.meta.matches).toBe(found.length);
    // Scores never rise down the list; the exact FRED id is worth the bonus and comes first.
    const scores = body.data.map((row) => row.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const byId = await get('/api/v1/series/search?search_text=payems');
    expect(byId.body.data[0]!.key).toBe('bls.CES0000000001');
    expect(byId.body.data[0]!.score as number).toBeGreaterThanOrEqual(100);
    // Paging by offset and limit walks the same ranked list.
    const first = await get('/api/v1/series/search?search_text=euro&limit=2');
    const second = await get('/api/v1/series/search?search_text=euro&limit=2&offset=2');
    const all = await get('/api/v1/series/search?search_text=euro');
    expect([...first.body.data, ...second.body.data].map((r) => r.key)).toEqual(
      all.body.data.slice(0, 4).map((r) => r.key),
    );
    expect(first.body.meta.next_offset).toBe(2);
    // Licensed sources never appear: FRED's own series are licensed.
    const fred = catalog.series.filter((s) => s.source === 'fred');
    for (const series of fred) expect(all.body.data.map((r) => r.key)).not.toContain(series.key);
  });

  it('search_text refuses what it cannot search: missing, no word, too many words', async () => {
    for (const query of [
      '',
      '?search_text=',
      '?search_text=%20%2C%20',
      `?search_text=${'a%20'.repeat(11)}`,
    ]) {
      const { response, body } = await get(`/api/v1/series/search${query}`);
      expect(response.status, query).toBe(400);
      expect(body.error!.code, query).toBe('invalid_parameter');
      expect(body.error!.message, query).toContain('search_text');
    }
  });

  it('the public series history takes from/to, sort_order and limit without a key, as FRED gives them', async () => {
    const inForce = valuesInForce();
    const whole = await get('/api/v1/series/nonfarm-payrolls');
    expect(whole.body.data.map((r) => [r.period, r.value])).toEqual(inForce);
    // The latest value: limit=1&sort_order=desc.
    const latest = await get('/api/v1/series/nonfarm-payrolls?sort_order=desc&limit=1');
    expect(latest.response.status).toBe(200);
    expect(latest.body.data.map((r) => [r.period, r.value])).toEqual([inForce.at(-1)]);
    // A range with FRED's names, newest first, paged by the cursor.
    const range = inForce.filter(([period]) => period >= '2025-01' && period <= '2025-12').reverse();
    const pages: Array<[unknown, unknown]> = [];
    let path =
      '/api/v1/series/nonfarm-payrolls?observation_start=2025-01-01&observation_end=2025-12-31&sort_order=desc&limit=5';
    for (;;) {
      const { response, body } = await get(path);
      expect(response.status).toBe(200);
      pages.push(...body.data.map((r): [unknown, unknown] => [r.period, r.value]));
      if (body.meta.next_cursor === null) break;
      path = `/api/v1/series/nonfarm-payrolls?from=2025&to=2025&sort_order=desc&limit=5&cursor=${body.meta.next_cursor}`;
    }
    expect(pages).toEqual(range);
    // as_of stays keyed.
    expect((await get('/api/v1/series/nonfarm-payrolls?as_of=2025-09-01')).response.status).toBe(400);
  });

  it('sort_order=desc with limit gives the latest N on the keyed history endpoints, the cursor going back', async () => {
    const early = readFredCsv(EARLY);
    const late = readFredCsv(LATE);
    // Endpoint 8: every revision, newest period and revision first. 2026-09 has one (the late vintage).
    const observations = await get(
      '/api/v1/observations?series=bls.CES0000000001&sort_order=desc&limit=3',
      keys['observations:read'],
    );
    expect(observations.response.status).toBe(200);
    const months = [...late.keys()].sort().reverse();
    expect(observations.body.data.map((r) => [r.period, r.value])).toEqual(
      months.slice(0, 3).map((m) => [m, late.get(m)]),
    );
    // Endpoint 5, as_of before the late vintage: the early file's last months, newest first.
    const macro = await get(
      '/api/v1/macro/nonfarm-payrolls?sort_order=desc&limit=2&as_of=2025-09-01',
      keys['macro:history'],
    );
    const earlyMonths = [...early.keys()].sort().reverse();
    expect(macro.body.data.map((r) => [r.period, r.value])).toEqual(
      earlyMonths.slice(0, 2).map((m) => [m, early.get(m)]),
    );
    const next = await get(
      `/api/v1/macro/nonfarm-payrolls?sort_order=desc&limit=2&as_of=2025-09-01&cursor=${macro.body.meta.next_cursor}`,
      keys['macro:history'],
    );
    expect(next.body.data.map((r) => r.period)).toEqual(earlyMonths.slice(2, 4));
    // A month with two revisions: both, newest revision first.
    const twice = await get(
      '/api/v1/observations?series=bls.CES0000000001&from=2025-07&to=2025-07&sort_order=desc',
      keys['observations:read'],
    );
    expect(twice.body.data.map((r) => r.value)).toEqual([late.get('2025-07'), early.get('2025-07')]);
    // Transformed (units) and revisions pages follow the order too.
    const change = await get(
      '/api/v1/observations?series=bls.CES0000000001&units=chg&sort_order=desc&limit=1',
      keys['observations:read'],
    );
    expect(change.body.data[0]!.period).toBe(months[0]);
    expect(change.body.data[0]!.value).toBe(late.get(months[0]!)! - late.get(months[1]!)!);
    const revisions = await get(
      '/api/v1/macro/nonfarm-payrolls/revisions?sort_order=desc&limit=2',
      keys['macro:history'],
    );
    expect(revisions.body.data.map((r) => r.period)).toEqual(months.slice(0, 2));
    // sort_order is keyed like every history parameter of endpoint 3.
    expect((await get('/api/v1/markets/cot/gold?sort_order=desc')).response.status).toBe(401);
  });

  it('the keyed COT history newest first equals the CFTC file read by hand', async () => {
    const file = readCftcFileByHand(COT);
    const [date, code, oi] = [
      'As of Date in Form YYYY-MM-DD',
      'CFTC Contract Market Code',
      'Open Interest (All)',
    ].map((name) => file.header.indexOf(name));
    const gold = file.lines
      .filter(({ fields }) => fields[code!] === '088691')
      .map(({ fields }) => [fields[date!], Number(fields[oi!])])
      .sort(([a], [b]) => ((a as string) < (b as string) ? 1 : -1));
    const { response, body } = await get(
      '/api/v1/markets/cot/gold?sort_order=desc&limit=4',
      keys['cot:history'],
    );
    expect(response.status).toBe(200);
    expect(body.data.map((r) => [r.report_date, r.open_interest])).toEqual(gold.slice(0, 4));
    const rest = await get(
      `/api/v1/markets/cot/gold?sort_order=desc&limit=4&cursor=${body.meta.next_cursor}`,
      keys['cot:history'],
    );
    expect(rest.body.data.map((r) => r.report_date)).toEqual(gold.slice(4, 8).map(([d]) => d));
  });
});

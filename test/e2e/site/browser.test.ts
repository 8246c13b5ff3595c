import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles } from '../../../src/build/finish-dist.ts';
import { paramSpec, ROUTES } from '../../../src/contract/routes.ts';
import { readDocPages } from '../../../src/site/data/doc-pages.ts';
import { MAX_REVISION_BARS } from '../../../src/site/revisions-view.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import { LICENSED_SERIES_KEY, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { launchChromium, type TestBrowser } from './launch-chromium.ts';
import {
  CHARTED_CATEGORIES,
  type ChartExpectations,
  FX_CHART_MAX_POINTS,
  MACRO_CHART_MAX_POINTS,
  REVISED_TABLE_ROWS,
  readCatalogs,
  readChartExpectations,
} from './sample-expectations.ts';

/** One chart as the browser sees it. */
interface ChartView {
  id: string;
  points: number;
  /** Bars of a bar chart (the size of revisions on a macro page). */
  bars: number;
  /** Per line its markers and the points of its path (one command per point). */
  series: Array<{ name: string; points: number; vertices: number }>;
  description: string;
}

/** A download link of a page (src/site/components/download-links.astro). */
interface DownloadView {
  format: string;
  href: string;
}

/** The few DOM members the in-page probe uses (the project's TypeScript has no DOM library). */
interface ProbeElement {
  id: string;
  href?: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): ProbeElement | null;
  querySelectorAll(selector: string): ArrayLike<ProbeElement>;
}

/** What a visit of one page found. */
interface PageVisit {
  status: number;
  problems: string[];
  links: string[];
  ids: string[];
  scripts: number;
  charts: ChartView[];
  downloads: DownloadView[];
}

const SCREENSHOTS = join(REPO_ROOT, 'test-artifacts/screenshots');
/** The FX page's HTML must stay under this many bytes (it was 2 MB of chart markers). */
const FX_PAGE_MAX_BYTES = 300_000;
const VIEWPORTS = [1280, 390] as const;
const SCHEMES = ['light', 'dark'] as const;

/** What the layout probe found on one page at one width. */
interface LayoutReport {
  /** How far the page is wider than the viewport, in CSS px (0 or less: it fits). */
  pageOverflow: number;
  /** Tables that overflow their box where that box does not scroll them. */
  unscrolled: string[];
  /** Scrolling tables whose first column moved out of view when scrolled to the end. */
  firstColumnGone: string[];
  /** Whitespace-free tokens of table cells and download lines drawn on more than one line. */
  brokenTokens: string[];
  /** Tables wider than their box that scroll in it. */
  scrolling: number;
  /** Links and code spans glued to the word before them (a space the markup lost). */
  glued: string[];
  /** Table captions that run past the edge of the box their table scrolls in (cut off). */
  clippedCaptions: string[];
  /** Periods and dates (`2026-09`, `2026-12-04`) of tables, captions and release lines drawn on two lines. */
  brokenPeriods: string[];
  /** Table rows taller than two lines of text. */
  tallRows: string[];
}

/**
 * Runs in the page (a string: the project's TypeScript has no DOM library). Measures the page's
 * width against the viewport; per table whether a wider table sits in a box that scrolls it, and
 * whether its first column stays in view when that box is scrolled to its end; per word (a run
 * of non-whitespace: a date, a number, a time) of every table cell and download line whether its
 * rendered rectangles lie on more than one line, i.e. the word was broken.
 */
const LAYOUT_PROBE = `(() => {
  const describe = (el) => el.tagName.toLowerCase() + ' "' + (el.textContent || '').trim().slice(0, 50) + '"';
  const unscrolled = [], firstColumnGone = [], brokenTokens = [], glued = [];
  for (const el of document.querySelectorAll('main a, main code')) {
    const before = el.previousSibling;
    if (before && before.nodeType === Node.TEXT_NODE && /[\\w:,;.]$/.test(before.textContent || ''))
      glued.push((before.textContent || '').slice(-20) + '|' + (el.textContent || '').slice(0, 20));
  }
  let scrolling = 0;
  const tables = [...document.querySelectorAll('main table')].filter((t) => t.getBoundingClientRect().width > 0);
  for (const table of tables) {
    const box = table.parentElement;
    if (box.clientWidth >= table.offsetWidth) continue;
    if (getComputedStyle(box).overflowX !== 'auto' && getComputedStyle(box).overflowX !== 'scroll') {
      unscrolled.push(describe(table.querySelector('tr')));
      continue;
    }
    scrolling += 1;
    const first = table.querySelector('tbody tr > :first-child');
    box.scrollLeft = box.scrollWidth;
    const cell = first.getBoundingClientRect(), frame = box.getBoundingClientRect();
    if (cell.left < frame.left - 1) firstColumnGone.push(describe(first));
    box.scrollLeft = 0;
  }
  const clippedCaptions = [], brokenPeriods = [], tallRows = [];
  for (const caption of document.querySelectorAll('main .table-scroll caption')) {
    const box = caption.closest('.table-scroll').getBoundingClientRect(), rect = caption.getBoundingClientRect();
    if (rect.right > box.right + 1 || rect.left < box.left - 1) clippedCaptions.push(describe(caption));
  }
  for (const el of document.querySelectorAll('main td, main th, main caption, main figcaption, main .next-release')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      for (const match of (node.textContent || '').matchAll(/\bd{4}-d{2}(-d{2})?\b/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) brokenPeriods.push(match[0] + ' in ' + describe(el));
      }
  }
  for (const row of document.querySelectorAll('main table:not(.freshness) tbody tr')) {
    const cell = row.querySelector('td, th');
    const style = getComputedStyle(cell);
    const lines = (row.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - 1) / parseFloat(style.lineHeight);
    if (lines > 2.05) tallRows.push(describe(row) + ': ' + lines.toFixed(1) + ' lines');
  }
  for (const el of document.querySelectorAll('main td, main th, main .downloads')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // A sha256 (the bulk page) is 64 characters to copy, not a value to read: it may wrap.
      if (node.parentElement.closest('code.hash')) continue;
      for (const match of (node.textContent || '').matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) brokenTokens.push(match[0] + ' in ' + describe(el));
      }
    }
  }
  return {
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    unscrolled, firstColumnGone, brokenTokens, scrolling, glued, clippedCaptions, brokenPeriods, tallRows,
  };
})()`;
/** The project's catalog plus the test-only licensed vendor's, as the fixture ingests them. */
const CATALOG = readCatalogs();

describe('the documentation site, built from the sample data (plus a licensed test series) and served', () => {
  let browser: TestBrowser;
  let expected: ChartExpectations;
  let fixture: SnapshotFixture;
  let distDir: string;
  let server: TestServer;
  const visits = new Map<string, PageVisit>();
  const otherLinks = new Map<string, number>();

  async function visit(path: string): Promise<PageVisit> {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    const response = await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
    const found = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: ProbeElement }).document;
      const all = (root: ProbeElement, selector: string) => Array.from(root.querySelectorAll(selector));
      return {
        // The resolved URL (the href property), not the attribute as written.
        links: all(doc, 'a[href]').map((a) => a.href ?? ''),
        ids: all(doc, '[id]').map((element) => element.id),
        scripts: all(doc, 'script').length,
        // Each chart is drawn wide and narrow (for phones); the wide drawing is the one counted.
        charts: all(doc, 'svg.chart-wide').map((svg) => ({
          id: (svg.getAttribute('aria-labelledby') ?? '').split(' ')[0]!.replace(/-title$/, ''),
          points: all(svg, 'circle.point').length,
          bars: all(svg, 'rect.bar').length,
          series: all(svg, 'g.series').map((g) => ({
            name: g.getAttribute('data-series') ?? '',
            points: all(g, 'circle.point').length,
            vertices: (g.querySelector('path')?.getAttribute('d') ?? '').match(/[ML]/gi)?.length ?? 0,
          })),
          description: svg.querySelector('desc')?.textContent ?? '',
        })),
        downloads: all(doc, 'a.download').map((a) => ({
          format: a.getAttribute('data-format') ?? '',
          href: a.href ?? '',
        })),
      };
    });
    await page.close();
    return { status: response?.status() ?? 0, problems, ...found };
  }

  /** Visits every page reachable from the home page; fetches every other internal link once. */
  async function crawl(): Promise<void> {
    const queue = ['/'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (visits.has(path)) continue;
      const result = await visit(path);
      visits.set(path, result);
      for (const href of result.links) {
        const url = new URL(href);
        if (url.origin !== server.url) continue;
        if (url.pathname.startsWith('/api/')) {
          const target = `${url.pathname}${url.search}`;
          if (!otherLinks.has(target)) otherLinks.set(target, (await fetch(`${server.url}${target}`)).status);
        } else if (!visits.has(url.pathname)) queue.push(url.pathname);
      }
    }
  }

  const chartsOf = (path: string) => new Map(visits.get(path)!.charts.map((chart) => [chart.id, chart]));

  beforeAll(async () => {
    browser = await launchChromium();
    expected = await readChartExpectations();
    // The shared build of the sample (its dist/ read-only) with a data directory of this file's own.
    const shared = await useSharedSample({ licensed: true });
    fixture = shared;
    distDir = shared.distDir;
    // The crawl makes more requests than one anonymous client may per minute.
    server = await startTestServer({ dataDir: fixture.dataDir, distDir, anonymousLimit: 100_000 });
    await crawl();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fixture?.remove();
  });

  it('reaches every built page through the links, each loading with 200, no error and no script', () => {
    const built = listFiles(distDir)
      // 404.html is the not-found page: no link leads to it (site-views.test.ts checks it).
      .filter((file) => file.endsWith('.html') && file !== '404.html')
      .map((file) => `/${file.replace(/index\.html$/, '')}`)
      .sort();
    expect([...visits.keys()].sort()).toEqual(built);
    for (const type of ['/', '/docs/api/', '/markets/', '/markets/gold/', '/macro/', '/fx/', '/status/']) {
      expect(built).toContain(type);
    }
    for (const [path, result] of visits) {
      expect({ path, status: result.status, problems: result.problems }).toEqual({
        path,
        status: 200,
        problems: [],
      });
      expect({ path, scripts: result.scripts }).toEqual({ path, scripts: 0 });
    }
  });

  it('resolves every internal link: JSON links answer 200 and every #fragment exists on its page', () => {
    expect(otherLinks.size).toBeGreaterThan(5);
    for (const [target, status] of otherLinks) expect({ target, status }).toEqual({ target, status: 200 });
    for (const [path, result] of visits) {
      for (const href of result.links) {
        const url = new URL(href);
        if (url.origin !== server.url || url.hash === '' || url.pathname.startsWith('/api/')) continue;
        const ids = visits.get(url.pathname)?.ids ?? [];
        expect({ from: path, link: href, found: ids.includes(url.hash.slice(1)) }).toEqual({
          from: path,
          link: href,
          found: true,
        });
      }
    }
  });

  it('charts one point per weekly report and trader category on each market page', () => {
    expect(expected.markets.size).toBeGreaterThan(0);
    for (const market of CATALOG.markets) {
      const charts = visits.has(`/markets/${market.slug}/`)
        ? chartsOf(`/markets/${market.slug}/`)
        : new Map();
      const types = expected.markets.get(market.slug);
      if (!types) {
        // A market without a report has no page (the list says so): nothing links to an empty page.
        expect({ market: market.slug, page: visits.has(`/markets/${market.slug}/`) }).toEqual({
          market: market.slug,
          page: false,
        });
        continue;
      }
      for (const [type, reports] of types) {
        const chart = charts.get(`${market.slug}-${type}-net`);
        expect(chart?.series.length).toBe(CHARTED_CATEGORIES[type]);
        for (const series of chart!.series)
          expect({ type, ...series }).toEqual({
            type,
            name: series.name,
            points: reports,
            vertices: reports,
          });
        expect(chart!.points).toBe(CHARTED_CATEGORIES[type]! * reports);
      }
      const firstType = [...types.values()][0]!;
      expect(charts.get(`${market.slug}-open-interest`)?.points).toBe(firstType);
      expect(charts.size).toBe(types.size + 1);
    }
  });

  it('charts the first print and the value in force of every period of each macro series', async () => {
    for (const series of CATALOG.series.filter((s) => s.macro)) {
      const periods = expected.macro.get(series.slug);
      if (periods === undefined) {
        // A series without data has no page (the list says so): nothing links to an empty page.
        expect({ series: series.slug, page: visits.has(`/macro/${series.slug}/`) }).toEqual({
          series: series.slug,
          page: false,
        });
        continue;
      }
      const charts = chartsOf(`/macro/${series.slug}/`);
      const chart = charts.get(`${series.slug}-revisions`)!;
      // Long series (CPI-U since 1913, payrolls since 1939) are thinned to the chart's cap.
      const plotted = Math.min(periods, MACRO_CHART_MAX_POINTS);
      expect({ slug: series.slug, lines: chart.series }).toEqual({
        slug: series.slug,
        // The dashed first print is painted first, the value in force over it (a later sibling
        // in the drawing is painted on top): where they are equal the solid line stays whole.
        lines: [
          { name: 'First print', points: plotted, vertices: plotted },
          { name: 'Value in force', points: plotted, vertices: plotted },
        ],
      });
      expect(chart.description).toMatch(/first .* last .* lowest .* highest/);
      const revised = expected.macroRevised.get(series.slug)!;
      // The size of revisions is one bar per period from the first revised one (docs/api/revisions.md).
      const bars = charts.get(`${series.slug}-revision-size`)?.bars;
      if (revised === 0) expect(bars).toBeUndefined();
      else {
        expect(bars).toBeGreaterThanOrEqual(Math.min(revised, MAX_REVISION_BARS));
        expect(bars).toBeLessThanOrEqual(Math.min(periods, MAX_REVISION_BARS));
      }
    }
    const page = await browser.context.newPage();
    for (const [slug, revised] of expected.macroRevised) {
      await page.goto(`${server.url}/macro/${slug}/`);
      expect({ slug, rows: await page.locator('table.revised tbody tr').count() }).toEqual({
        slug,
        rows: Math.min(revised, REVISED_TABLE_ROWS),
      });
    }
    await page.close();
    expect([...expected.macroRevised.values()].some((n) => n > 0)).toBe(true);
  });

  it('draws the value in force over the dashed first print of payrolls at 390 px, where they are equal', async () => {
    const page = await browser.context.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${server.url}/macro/nonfarm-payrolls/`, { waitUntil: 'load' });
      // Along each segment where both lines run together (periods never revised), the topmost
      // element at every sampled point belongs to the value in force: the dashed line is under it.
      const hits = (await page.evaluate(`(() => {
        const svg = [...document.querySelectorAll('figure svg')].find((s) => s.getBoundingClientRect().width > 0
          && s.querySelector('g.series[data-series="First print"]'));
        svg.scrollIntoView({ block: 'center' });
        const vertices = (name) => [...svg.querySelectorAll('g.series[data-series="' + name + '"] circle.point')]
          .map((c) => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]);
        const inForce = vertices('Value in force'), first = vertices('First print');
        const ctm = svg.getScreenCTM(), point = svg.createSVGPoint();
        const top = { 'Value in force': 0, 'First print': 0, other: 0 };
        for (let i = 0; i + 1 < inForce.length; i++) {
          const same = (j) => inForce[j][0] === first[j][0] && inForce[j][1] === first[j][1];
          if (!same(i) || !same(i + 1)) continue;
          for (let t = 0.2; t < 0.81; t += 0.05) {
            point.x = inForce[i][0] + t * (inForce[i + 1][0] - inForce[i][0]);
            point.y = inForce[i][1] + t * (inForce[i + 1][1] - inForce[i][1]);
            const at = point.matrixTransform(ctm);
            const series = document.elementFromPoint(at.x, at.y)?.closest('g.series')?.getAttribute('data-series');
            top[series in top ? series : 'other'] += 1;
          }
        }
        return top;
      })()`)) as Record<string, number>;
      expect(hits['Value in force']).toBeGreaterThan(20);
      expect(hits).toEqual({ 'Value in force': hits['Value in force'], 'First print': 0, other: 0 });
    } finally {
      await page.close();
    }
  });

  it('charts every ECB reference date of each currency on the FX page, as a line without markers', () => {
    const charts = chartsOf('/fx/');
    expect(charts.size).toBe(expected.fx.size);
    for (const [currency, days] of expected.fx) {
      const line = charts.get(`fx-${currency.toLowerCase()}`)?.series[0];
      // About thirty charts on one page: a marker per point would make it megabytes of HTML.
      expect({ currency, points: line?.points, vertices: line?.vertices }).toEqual({
        currency,
        points: 0,
        vertices: Math.min(days, FX_CHART_MAX_POINTS),
      });
    }
  });

  it('keeps the FX page under 300 KB of HTML', async () => {
    const html = Buffer.from(await (await fetch(`${server.url}/fx/`)).arrayBuffer());
    expect(html.toString('utf8')).toContain('id="fx-usd"');
    expect(html.byteLength).toBeLessThan(FX_PAGE_MAX_BYTES);
    expect(statSync(join(distDir, 'fx/index.html')).size).toBeLessThan(FX_PAGE_MAX_BYTES);
  });

  it('links every series and market page to its public files (CSV, JSON, bulk Parquet), each answering 200', async () => {
    const bulk = (format: string, dataset: string) => ({
      format,
      href: `${server.url}/api/v1/bulk/${fixture.snapshotId}/${dataset}.${format === 'Parquet' ? 'parquet' : 'csv.gz'}`,
    });
    const wanted = new Map<string, DownloadView[]>();
    for (const path of visits.keys()) {
      const macro = /^\/macro\/([^/]+)\/$/.exec(path)?.[1];
      const market = /^\/markets\/([^/]+)\/$/.exec(path)?.[1];
      if (macro)
        wanted.set(path, [
          { format: 'CSV', href: `${server.url}/api/v1/series/${macro}.csv` },
          { format: 'JSON', href: `${server.url}/api/v1/series/${macro}` },
          bulk('Parquet', 'observations'),
          bulk('CSV (gzip)', 'observations'),
        ]);
      if (market)
        wanted.set(path, [
          { format: 'JSON', href: `${server.url}/api/v1/markets/cot/${market}` },
          bulk('Parquet', 'cot_reports'),
          bulk('CSV (gzip)', 'cot_reports'),
        ]);
    }
    // The FX page: the bulk file of every series, then each currency's own history files.
    const slugs = new Map(CATALOG.series.map((s) => [s.key, s.slug]));
    wanted.set('/fx/', [
      bulk('Parquet', 'observations'),
      bulk('CSV (gzip)', 'observations'),
      ...[...expected.fx.keys()].sort().flatMap((currency) => {
        const slug = slugs.get(`ecb.${currency}`)!;
        return [
          { format: 'CSV', href: `${server.url}/api/v1/series/${slug}.csv` },
          { format: 'JSON', href: `${server.url}/api/v1/series/${slug}` },
        ];
      }),
    ]);
    expect([...wanted.keys()].filter((p) => p.startsWith('/macro/')).length).toBeGreaterThan(5);
    expect([...wanted.keys()].filter((p) => p.startsWith('/markets/')).length).toBeGreaterThan(5);
    const hrefs = new Set<string>();
    for (const [path, links] of wanted) {
      expect({ path, links: visits.get(path)!.downloads }).toEqual({ path, links });
      for (const link of links) hrefs.add(link.href);
    }
    // Each is a file of the build (a static host serves it too) and the server answers it.
    const manifest = JSON.parse(readFileSync(join(distDir, 'build-manifest.json'), 'utf8')) as {
      files: Array<{ file: string }>;
    };
    const built = new Set(manifest.files.map((f) => f.file));
    for (const href of hrefs) {
      const path = new URL(href).pathname;
      const file = built.has(path) ? path : `${path}/index.json`;
      expect({ path, built: built.has(file) }).toEqual({ path, built: true });
      const response = await fetch(href);
      await response.arrayBuffer();
      expect({ href, status: response.status }).toEqual({ href, status: 200 });
    }
  });

  it('fits the data pages at 1280 and 390 px, light and dark: tables scroll in their box with the first column in view, no value broken at 1280', async () => {
    const market = [...expected.markets.keys()][0]!;
    const series = [...expected.macroRevised].find(([, n]) => n > 0)![0];
    const paths = [
      '/',
      '/fx/',
      '/releases/',
      '/macro/',
      `/macro/${series}/`,
      '/markets/',
      `/markets/${market}/`,
      // Three years of TFF history: the COT analytics table and its long caption.
      '/markets/vix-futures/',
      '/status/',
      '/sources/',
      '/sectors/',
      '/bulk/',
    ];
    const page = await browser.context.newPage();
    const problems: string[] = [];
    let scrolled = 0;
    try {
      for (const width of VIEWPORTS) {
        await page.setViewportSize({ width, height: 900 });
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const path of paths) {
            await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
            const report = (await page.evaluate(LAYOUT_PROBE)) as LayoutReport;
            const where = `${path} at ${width} px, ${scheme}`;
            if (report.pageOverflow > 0)
              problems.push(`${where}: page ${report.pageOverflow} px wider than the viewport`);
            for (const table of report.unscrolled)
              problems.push(`${where}: table wider than its box, not scrolled: ${table}`);
            for (const cell of report.firstColumnGone)
              problems.push(`${where}: first column scrolled away: ${cell}`);
            for (const text of report.glued)
              problems.push(`${where}: no space before a link or code: ${text}`);
            // At 1280 px a value (date, number, time) is never broken across lines.
            if (width === 1280)
              for (const token of report.brokenTokens) problems.push(`${where}: broken ${token}`);
            if (width === 390) scrolled += report.scrolling;
            // On a phone too: captions are read whole, periods are never broken inside
            // ("2026-" above "09"), and a file of /bulk/ is a row of at most two lines.
            for (const caption of report.clippedCaptions)
              problems.push(`${where}: caption cut off at the edge of its box: ${caption}`);
            for (const period of report.brokenPeriods) problems.push(`${where}: broken period ${period}`);
            if (path === '/bulk/')
              for (const row of report.tallRows) problems.push(`${where}: row taller than two lines: ${row}`);
          }
        }
      }
    } finally {
      await page.close();
    }
    expect(problems).toEqual([]);
    expect(scrolled).toBeGreaterThan(0);
  });

  it('shows the snapshot id on the status page and serves pages as cacheable HTML', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/status/`);
    expect((await page.locator('.snapshot-id').textContent())?.trim()).toBe(fixture.snapshotId);
    await page.close();
    for (const path of ['/', '/status/', '/markets/gold/', '/docs/api']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // The status page is rendered live by the server, with the status endpoint's short max-age.
      expect(response.headers.get('cache-control')).toBe(`public, max-age=${path === '/status/' ? 60 : 300}`);
    }
    // Rendered live by the server (the build's static copy says it was rendered at build time).
    expect(await (await fetch(`${server.url}/status/`)).text()).toContain('Checked live at');
  });

  it('never shows a series of a source that may not be redistributed', async () => {
    expect(expected.privateSeries).toContain(LICENSED_SERIES_KEY);
    for (const file of listFiles(distDir).filter((f) => f.endsWith('.html'))) {
      const html = readFileSync(join(distDir, file), 'utf8');
      for (const text of expected.privateSeries)
        expect({ file, leaks: html.includes(text) }).toEqual({ file, leaks: false });
    }
    for (const series of CATALOG.series.filter((s) => expected.privateSeries.includes(s.slug))) {
      expect((await fetch(`${server.url}/macro/${series.slug}/`)).status).toBe(404);
    }
  });

  it('renders the API reference as written: code spans, spaces around links, one-line parameter names, the key each needs', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/docs/api/`);
    // Runs in the page (a string: the project's TypeScript has no DOM library).
    const found = (await page.evaluate(`(() => {
      const problems = [];
      const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (el.closest('pre, code')) continue;
        const text = node.textContent;
        if (text.includes('\u0060')) problems.push('backtick: ' + text.trim().slice(0, 60));
        if (/\\bdocs\\/[a-z/_-]+\\.md\\b/.test(text) && !el.closest('a')) problems.push('unlinked doc: ' + text.trim().slice(0, 60));
      }
      // A link or code span inside running text keeps the spaces around it.
      for (const el of document.querySelectorAll('p > a, p > code, li > a, li > code, dd > code, td > code, td > a')) {
        const before = el.previousSibling && el.previousSibling.nodeType === 3 ? el.previousSibling.textContent : '';
        const after = el.nextSibling && el.nextSibling.nodeType === 3 ? el.nextSibling.textContent : '';
        if (/[A-Za-z]$/.test(before) || /^[A-Za-z(]/.test(after)) problems.push('no space around: ' + (before.slice(-20) + el.textContent + after.slice(0, 20)));
      }
      const rows = [];
      for (const section of document.querySelectorAll('section.endpoint')) {
        for (const row of section.querySelectorAll('table.params tbody tr')) {
          const name = row.querySelector('th code');
          rows.push({ id: section.id, name: name.textContent, lines: name.getClientRects().length, key: row.children[3].textContent.trim() });
        }
      }
      return { problems, rows };
    })()`)) as { problems: string[]; rows: Array<{ id: string; name: string; lines: number; key: string }> };
    await page.close();
    expect(found.problems).toEqual([]);
    const expectedRows = ROUTES.flatMap((route) => [
      ...(route.path.includes(':slug')
        ? [{ id: route.id, name: 'slug', keyed: route.access.kind === 'scope' }]
        : []),
      ...route.query.map((name) => ({
        id: route.id,
        name,
        // A keyed endpoint needs a key for every parameter; a public one for its keyed-only ones.
        keyed:
          route.access.kind === 'scope' ||
          (route.access.kind === 'public-or-scope' && paramSpec(route, name).keyedOnly === true),
      })),
    ]);
    expect(
      found.rows
        .map((r) => ({ id: r.id, name: r.name, keyed: r.key !== 'no' }))
        .sort((a, b) => `${a.id} ${a.name}`.localeCompare(`${b.id} ${b.name}`)),
    ).toEqual(expectedRows.sort((a, b) => `${a.id} ${a.name}`.localeCompare(`${b.id} ${b.name}`)));
    // The reported case: the series key of /observations needs the endpoint's key.
    expect(found.rows.find((r) => r.id === 'observations' && r.name === 'series')?.key).toBe(
      'yes (observations:read)',
    );
    // A parameter name is one token: drawn on one line even at 390 px.
    for (const row of found.rows)
      expect({ name: row.name, lines: row.lines }).toEqual({ name: row.name, lines: 1 });
  });

  it('keeps the space between a word and a link or code span on every built page', () => {
    // Astro drops a line break between text and an element written on the next line.
    const glued = /[A-Za-z,:;]<(a|code)[ >]|<\/(a|code)>[A-Za-z(]/g;
    for (const file of listFiles(distDir).filter((f) => f.endsWith('.html'))) {
      const html = readFileSync(join(distDir, file), 'utf8').replace(/<pre[\s\S]*?<\/pre>/g, '');
      const found = [...html.matchAll(glued)].map((m) => html.slice(m.index - 30, m.index + 30));
      expect({ file, found }).toEqual({ file, found: [] });
    }
  });

  it('shows no repository path of a docs file as bare text: each names the page the site publishes, linked', () => {
    // The text of every built page outside links (and outside code blocks, whose commands name
    // files as a shell would); a reader of the site cannot open the repository's docs/x.md.
    const bare: string[] = [];
    for (const file of listFiles(distDir).filter((f) => f.endsWith('.html'))) {
      const text = readFileSync(join(distDir, file), 'utf8')
        .replace(/<(script|style|pre|a)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<[^>]*>/g, ' ');
      for (const match of text.matchAll(/\bdocs\/[\w/.-]+\.md\b/g))
        bare.push(`${file}: ${text.slice(Math.max(0, match.index - 40), match.index + match[0].length)}`);
    }
    expect(bare).toEqual([]);
  });

  it('serves every file of docs/ as a page reached through the links, its mentions of other docs linked', () => {
    const pages = readDocPages();
    expect(pages.map((p) => p.name)).toContain('api/revisions');
    for (const doc of pages)
      expect({ path: doc.path, visited: visits.get(doc.path)?.status }).toEqual({
        path: doc.path,
        visited: 200,
      });
    // history-and-as-of.md mentions docs/api/transforms.md; its page links there.
    expect(visits.get('/docs/api/history-and-as-of/')!.links).toContain(`${server.url}/docs/api/transforms/`);
  });

  it('saves a screenshot of each page type to test-artifacts/screenshots/', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const market = [...expected.markets.keys()][0]!;
    const series = [...expected.macroRevised].find(([, n]) => n > 0)![0];
    const pages: Record<string, string> = {
      home: '/',
      'api-reference': '/docs/api/',
      markets: '/markets/',
      market: `/markets/${market}/`,
      macro: '/macro/',
      'macro-series': `/macro/${series}/`,
      fx: '/fx/',
      sources: '/sources/',
      sectors: '/sectors/',
      status: '/status/',
    };
    const page = await browser.context.newPage();
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(`${server.url}${path}`);
      const file = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
    await page.close();
  });
});

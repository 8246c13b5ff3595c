import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMmdsNginx } from '../../../scripts/bench/nginx.ts';
import { documentedPath, ROUTES } from '../../../src/contract/routes.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type StaticHost, startStaticHost } from '../../helpers/static-host.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { HAVE_NGINX } from '../../helpers/test-prerequisites.ts';
import { launchChromium, type TestBrowser } from './launch-chromium.ts';

/** A real BLS series the fixture catalog tracks without data (fixtures/tracked-without-data.yaml). */
const WITHOUT_DATA = { slug: 'average-hourly-earnings', name: 'Average hourly earnings of all employees' };
/** The catalog sources made of reference lists only (no observations): their freshness is the load time. */
const REFERENCE_SOURCES = ['iana-tz', 'iso', 'swift-mic', 'un-m49'];
/** The smallest text the site may render, in CSS px, at any width. */
const MIN_TEXT_PX = 11;
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const SCREENSHOTS = join(REPO_ROOT, 'test-artifacts/site-views');

/** What the in-page probe reports about one rendered page. */
interface PageReport {
  clipped: string[];
  smallText: string[];
  outsideChart: string[];
  pageOverflow: number;
  unfitFreshness: number;
  background: string;
  wideCharts: number;
  narrowCharts: number;
  texts: number;
}

/**
 * Runs in the page (a string, since the project's TypeScript has no DOM library). Opens every
 * <details>, then measures: HTML elements that hide overflowing content (overflow hidden/clip or
 * an ellipsis) and table cells whose content is wider than they are; every rendered text node's
 * font size as drawn (SVG text: its font size times the SVG's scale); SVG text drawn outside its
 * chart; a page wider than the viewport; the freshness table wider than its container.
 */
const PROBE = `(() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const shown = (el) => { const s = getComputedStyle(el); return s.display !== 'none' && s.visibility !== 'hidden'; };
  const clipped = [], smallText = [], outsideChart = [];
  const describe = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement) || !shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue; // visually hidden, for screen readers only
    const s = getComputedStyle(el);
    const hides = ['hidden', 'clip'].includes(s.overflowX) || ['hidden', 'clip'].includes(s.overflowY) || s.textOverflow === 'ellipsis';
    if (hides && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) clipped.push(describe(el));
    else if (el.matches('td, th') && el.scrollWidth > el.clientWidth + 1) clipped.push(describe(el));
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let texts = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !(node.textContent || '').trim() || el.closest('title, desc, style')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width >= 1 && r.height >= 1);
    if (rects.length === 0) continue; // not rendered (display: none, a closed <details>)
    texts += 1;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg) {
      const frame = svg.getBoundingClientRect();
      size *= frame.width / svg.viewBox.baseVal.width;
      const r = el.getBoundingClientRect();
      if (r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1 || r.bottom > frame.bottom + 1)
        outsideChart.push(describe(el));
    }
    if (size < ${MIN_TEXT_PX}) smallText.push(describe(el) + ' at ' + size.toFixed(1) + ' px');
  }
  const visibleCharts = (selector) => [...document.querySelectorAll(selector)].filter((svg) => svg.getBoundingClientRect().width > 0).length;
  const freshness = [...document.querySelectorAll('.table-scroll')].filter((box) => box.querySelector('table.freshness'));
  return {
    clipped, smallText, outsideChart, texts,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    unfitFreshness: freshness.filter((box) => box.scrollWidth > box.clientWidth + 1).length,
    background: getComputedStyle(document.body).backgroundColor,
    wideCharts: visibleCharts('svg.chart-wide'),
    narrowCharts: visibleCharts('svg.chart-narrow'),
  };
})()`;

describe('the site as users meet it: 1280 and 390 px, light and dark, status, 404s and /api/v1/', () => {
  let temp: ReturnType<typeof createTempDir>;
  let dataDir: string;
  let distDir: string;
  let server: TestServer;
  let staticHost: StaticHost;
  let browser: TestBrowser;
  let market: string;

  beforeAll(async () => {
    temp = createTempDir('mmds-site-views-');
    dataDir = join(temp.dir, 'data');
    distDir = join(temp.dir, 'dist');
    const env = { MMDS_DATA_DIR: dataDir, MMDS_DIST_DIR: distDir };
    const steps = [
      ['ingest-plan', join(SAMPLE_DATA, 'pipeline.json')],
      ['ingest', 'catalog', join(import.meta.dirname, 'fixtures/tracked-without-data.yaml')],
      ['publish'],
      ['build', '--out', distDir],
    ];
    for (const step of steps) {
      const run = await runMmds(step, env);
      if (run.code !== 0) throw new Error(`mmds ${step[0]} failed (${run.code}): ${run.stderr}`);
    }
    server = await startTestServer({ dataDir, distDir, anonymousLimit: 100_000 });
    staticHost = await startStaticHost(distDir);
    browser = await launchChromium();
    const markets = (await (await fetch(`${server.url}/api/v1/markets/cot`)).json()) as {
      data: Array<{ slug: string; latest: unknown }>;
    };
    market = markets.data.find((m) => m.latest !== null)!.slug;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await staticHost?.close();
    await server?.close();
    temp?.remove();
  });

  it('gives the reference-list sources the time their lists were loaded, not "no data"', async () => {
    const status = (await (await fetch(`${server.url}/api/v1/status`)).json()) as {
      data: { sources: Array<{ id: string; last_observed_at: string | null; stale: boolean | null }> };
    };
    // The fixture's clock: every batch of this snapshot was loaded at FIXTURE_NOW.
    const loadedAt = `${FIXTURE_NOW.toISOString().slice(0, 19)}Z`;
    for (const id of REFERENCE_SOURCES) {
      const source = status.data.sources.find((s) => s.id === id);
      expect({ id, at: source?.last_observed_at, stale: source?.stale }).toEqual({
        id,
        at: loadedAt,
        stale: false,
      });
    }
    const html = await (await fetch(`${server.url}/status/`)).text();
    const rows = html.split('<tr>').filter((row) => row.includes('scope="row"'));
    for (const name of ['IANA time zone database', 'ISO 4217', 'ISO 10383', 'UN M49']) {
      const row = rows.find((r) => r.includes(name));
      expect({ name, fresh: row?.includes('badge-fresh'), noData: row?.includes('no data') }).toEqual({
        name,
        fresh: true,
        noData: false,
      });
    }
  });

  it('lists a series without data without a link, and builds no empty page for it', async () => {
    const list = await (await fetch(`${server.url}/macro/`)).text();
    const row = list.split('<tr>').find((r) => r.includes(WITHOUT_DATA.name));
    expect(row).toContain('no data in this snapshot');
    expect(list).not.toContain(`/macro/${WITHOUT_DATA.slug}/`);
    expect(
      (await fetch(`${server.url}/sectors/`).then((r) => r.text())).includes(`/macro/${WITHOUT_DATA.slug}/`),
    ).toBe(false);
    expect(existsSync(join(distDir, 'macro', WITHOUT_DATA.slug))).toBe(false);
    expect((await fetch(`${server.url}/macro/${WITHOUT_DATA.slug}/`)).status).toBe(404);
    // Every series the list links has a page with a chart.
    const linked = [...list.matchAll(/href="\/macro\/([a-z0-9-]+)\/"/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(0);
    for (const slug of linked) {
      const page = await (await fetch(`${server.url}/macro/${slug}/`)).text();
      expect({ slug, chart: page.includes('<svg class="chart chart-wide"') }).toEqual({ slug, chart: true });
    }
  });

  it('answers a browser with the HTML 404 page and API clients with the JSON envelope', async () => {
    const html = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const base of [server.url, staticHost.url]) {
      const page = await fetch(`${base}/no-such-page/`, { headers: html });
      expect({ base, status: page.status, type: page.headers.get('content-type') }).toEqual({
        base,
        status: 404,
        type: expect.stringMatching(/^text\/html; charset=utf-8$/i),
      });
      const body = await page.text();
      expect(body).toContain('<h1>Page not found</h1>');
      expect(body).toContain('<nav aria-label="Sections">');
      for (const path of ['/api/v1/no-such-endpoint', '/api/v1/markets/cot/no-such-market']) {
        const api = await fetch(`${base}${path}`, { headers: html });
        expect({ base, path, status: api.status, type: api.headers.get('content-type') }).toEqual({
          base,
          path,
          status: 404,
          type: 'application/json; charset=utf-8',
        });
        expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
    }
    // mmds serve: a client that does not ask for HTML keeps the envelope, also outside /api/.
    const plain = await fetch(`${server.url}/no-such-page/`);
    expect(plain.status).toBe(404);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const nginx = readFileSync(join(distDir, 'nginx.conf'), 'utf8');
    expect(nginx).toContain('error_page 404 /404.html;');
    expect(nginx).toMatch(/location = \/404\.html \{\s+internal;/);
  });

  // Needs nginx (Debian: apt-get install nginx), as the benchmark does.
  it.skipIf(!HAVE_NGINX)(
    'serves the HTML 404 page outside /api/ and the endpoint list through the generated nginx.conf',
    async () => {
      const nginx = await startMmdsNginx(join(temp.dir, 'nginx'), distDir, Number(new URL(server.url).port));
      try {
        const page = await fetch(`${nginx.url}/no-such-page/`, { headers: { Accept: 'text/html' } });
        expect(page.status).toBe(404);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await page.text()).toContain('<h1>Page not found</h1>');
        const api = await fetch(`${nginx.url}/api/v1/no-such-endpoint`, { headers: { Accept: 'text/html' } });
        expect(api.status).toBe(404);
        expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not_found');
        for (const path of ['/api/v1/', '/api/v1']) {
          const index = await fetch(`${nginx.url}${path}`);
          expect({ path, status: index.status, cache: index.headers.get('cache-control') }).toEqual({
            path,
            status: 200,
            cache: 'public, max-age=3600',
          });
          expect(((await index.json()) as { data: unknown[] }).data).toHaveLength(ROUTES.length);
        }
        // Existing pages are untouched.
        expect((await fetch(`${nginx.url}/macro/`)).status).toBe(200);
      } finally {
        await nginx.stop();
      }
    },
  );

  it('lists the endpoints of the route table at /api/v1/ and /api/v1, on mmds serve and the static host', async () => {
    const openapi = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    for (const base of [server.url, staticHost.url]) {
      for (const path of ['/api/v1/', '/api/v1']) {
        const response = await fetch(`${base}${path}`);
        expect({ base, path, status: response.status }).toEqual({ base, path, status: 200 });
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
        const body = (await response.json()) as {
          data: Array<{ path: string; summary: string; access: string; openapi: string }>;
          meta: { api_version: string; snapshot: string; count: number; openapi: string };
        };
        expect(body.meta).toMatchObject({
          api_version: 'v1',
          count: ROUTES.length,
          openapi: '/api/v1/openapi.json',
        });
        expect(body.data.map((e) => e.path)).toEqual(ROUTES.map(documentedPath));
        for (const entry of body.data) {
          expect(entry.summary.length).toBeGreaterThan(0);
          expect(['public', 'public-or-scope', 'scope']).toContain(entry.access);
          // The link names the endpoint's operation in the OpenAPI document.
          const [file, pointer] = entry.openapi.split('#');
          expect(file).toBe('/api/v1/openapi.json');
          const key = decodeURIComponent(pointer!.split('/')[2]!).replace(/~1/g, '/').replace(/~0/g, '~');
          expect({ path: entry.path, inOpenApi: key in openapi.paths }).toEqual({
            path: entry.path,
            inOpenApi: true,
          });
        }
      }
    }
  });

  it('links the OpenAPI document from the API reference and hard-codes no host in its examples', async () => {
    for (const path of ['/docs/api/', '/']) {
      const html = await (await fetch(`${server.url}${path}`)).text();
      expect(html).toContain('href="/api/v1/openapi.json"');
      expect(html).toContain('href="/api/v1/"');
      expect(html).not.toContain('localhost:4321');
      expect(html).toContain('$MMDS_URL/api/v1/');
    }
  });

  it('renders every page readable at 1280 and 390 px in light and dark: no clipped text, nothing under 11 px, stable screenshots', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const pages: Record<string, string> = {
      home: '/',
      'api-reference': '/docs/api/',
      // A docs/ file rendered (docs/api/revisions.md: tables of code spans, code blocks).
      'api-guide': '/docs/api/revisions/',
      markets: '/markets/',
      market: `/markets/${market}/`,
      macro: '/macro/',
      'macro-series': '/macro/nonfarm-payrolls/',
      // The longest axis label of the sample (its unit), on the narrow drawing too.
      'macro-change': '/macro/nonfarm-payrolls-change/',
      fx: '/fx/',
      sources: '/sources/',
      sectors: '/sectors/',
      status: '/status/',
      'not-found': '/no-such-page/',
    };
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const backgrounds = new Map<string, string>();
    const shots = new Map<string, Buffer>();
    try {
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const [name, path] of Object.entries(pages)) {
            const where = `${name} at ${viewport.width} px, ${scheme}`;
            const report = await openAndProbe(page, `${server.url}${path}`);
            for (const text of report.clipped) problems.push(`${where}: clipped ${text}`);
            for (const text of report.smallText) problems.push(`${where}: small text ${text}`);
            for (const text of report.outsideChart) problems.push(`${where}: text outside its chart ${text}`);
            if (report.pageOverflow > 0)
              problems.push(`${where}: page ${report.pageOverflow} px wider than the viewport`);
            if (report.unfitFreshness > 0) problems.push(`${where}: freshness table wider than the page`);
            // On a phone only the narrow drawing of each chart shows, on a desktop only the wide one.
            const wrongCharts = viewport.name === 'phone' ? report.wideCharts : report.narrowCharts;
            if (wrongCharts > 0) problems.push(`${where}: ${wrongCharts} charts drawn for the other width`);
            expect(report.texts).toBeGreaterThan(10);
            backgrounds.set(`${viewport.name}-${scheme}-${name}`, report.background);
            const shot = await screenshot(page, path);
            writeFileSync(join(SCREENSHOTS, `${name}-${viewport.width}-${scheme}.png`), shot);
            // Rendered again from a fresh load: the same pixels (nothing in the layout is unstable).
            // Chromium on a loaded machine now and then rasterises one load differently (stop 28's
            // CI: one of 52 pairs); a third load tells that from a layout that really moves: it must
            // equal one of the first two.
            await openAndProbe(page, `${server.url}${path}`);
            const again = await screenshot(page, path);
            if (!shot.equals(again)) {
              await openAndProbe(page, `${server.url}${path}`);
              const third = await screenshot(page, path);
              if (!third.equals(shot) && !third.equals(again))
                problems.push(`${where}: screenshot differs on each of three loads`);
            }
            shots.set(`${viewport.name}-${scheme}-${name}`, shot);
          }
        }
      }
    } finally {
      await page.close();
    }
    expect(problems).toEqual([]);
    for (const viewport of VIEWPORTS) {
      for (const name of Object.keys(pages)) {
        const light = backgrounds.get(`${viewport.name}-light-${name}`);
        const dark = backgrounds.get(`${viewport.name}-dark-${name}`);
        expect({ name, light }).toEqual({ name, light: 'rgb(255, 255, 255)' });
        expect({ name, darkDiffers: dark !== light }).toEqual({ name, darkDiffers: true });
        const differ = !shots
          .get(`${viewport.name}-light-${name}`)!
          .equals(shots.get(`${viewport.name}-dark-${name}`)!);
        expect({ name, width: viewport.width, screenshotsDiffer: differ }).toEqual({
          name,
          width: viewport.width,
          screenshotsDiffer: true,
        });
      }
    }
  }, 300_000);
});

async function openAndProbe(page: Page, url: string): Promise<PageReport> {
  await page.goto(url, { waitUntil: 'load' });
  return (await page.evaluate(PROBE)) as PageReport;
}

/** A full-page screenshot; the live status page's clock lines are masked (they change each minute). */
async function screenshot(page: Page, path: string): Promise<Buffer> {
  const mask = path === '/status/' ? [page.locator('.checked-at, .site-footer')] : [];
  return page.screenshot({ fullPage: true, mask, animations: 'disabled' });
}

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const REAL_CLOCK = () => new Date();
const MARKET = 'gold';
const PATH = `/api/v1/markets/cot/${MARKET}`;
const PUBLIC_REPORTS = 12;

interface CotPayload {
  data: { report_date: string; report_type: string }[];
  meta: {
    window: { reports: number; limit: number; from: string | null; to: string | null; full_history: boolean };
  };
}

/** A report of the history view, with the columns stored beside it. */
interface HistoryRow {
  report_date: string;
  concentration_net: Record<string, number | null>;
  crop_years: Record<
    'old' | 'other',
    {
      open_interest: number | null;
      categories: Record<string, { long: number | null }>;
      concentration: Record<string, number | null>;
    }
  >;
}

/** Splits one CSV line (RFC 4180 quoting: the CFTC quotes the market name). */
function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  const pattern = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (let match = pattern.exec(line); match; match = pattern.exec(line)) {
    const raw = match[1]!;
    fields.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (match[2] === '') break;
  }
  return fields;
}

/** The weekly report dates of one market in the sample legacy file, oldest first. */
function readLegacyReportDates(marketCode: string): string[] {
  const [header, ...rows] = readFileSync(
    join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt'),
    'utf8',
  )
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const columns = splitCsvLine(header!);
  const dateColumn = columns.indexOf('As of Date in Form YYYY-MM-DD');
  const codeColumn = columns.indexOf('CFTC Contract Market Code');
  expect(dateColumn).toBeGreaterThanOrEqual(0);
  expect(codeColumn).toBeGreaterThanOrEqual(0);
  return rows
    .map(splitCsvLine)
    .filter((fields) => fields[codeColumn]!.trim() === marketCode)
    .map((fields) => fields[dateColumn]!.trim())
    .sort();
}

/** The fields of the sample legacy file's line of one market and report date, by column name. */
function readLegacyLine(marketCode: string, date: string): Map<string, string> {
  const [header, ...rows] = readFileSync(
    join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt'),
    'utf8',
  )
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const columns = splitCsvLine(header!).map((name) => name.trim());
  const line = rows
    .map(splitCsvLine)
    .find((fields) => fields[3]!.trim() === marketCode && fields[2]!.trim() === date);
  if (!line) throw new Error(`no line of ${marketCode} on ${date}`);
  return new Map(columns.map((name, index) => [name, line[index]!.trim()]));
}

/** The CFTC contract market code the catalog files the market under. */
function readMarketCode(slug: string): string {
  const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as {
    markets: { slug: string; code: string }[];
  };
  const market = catalog.markets.find((m) => m.slug === slug);
  if (!market) throw new Error(`market ${slug} not in the catalog`);
  return market.code;
}

/** A raw HTTP GET: fetch would decompress the body behind our back. */
function getRaw(
  url: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('endpoint 3 rules over HTTP (sample market: 10 weekly legacy reports of 2025)', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let emptyDist: ReturnType<typeof createTempDir>;
  let historyKey: string;
  let otherKey: string;
  let reportDates: string[];

  const issue = async (scopes: string): Promise<string> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'COT Org', '--scopes', scopes],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  beforeAll(async () => {
    reportDates = readLegacyReportDates(readMarketCode(MARKET));
    fixture = await createSampleSnapshot();
    // Nothing is built: every payload is rendered live (auth-matrix.test.ts covers the built files).
    // Building here too could run two Astro builds from one working directory at once, and they
    // share (and clobber) <cwd>/.astro/.prerender.
    emptyDist = createTempDir('mmds-no-dist-');
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: emptyDist.dir });
    historyKey = await issue('cot:history');
    otherKey = await issue('macro:history,observations:read');
  });

  afterAll(async () => {
    await server?.close();
    emptyDist?.remove();
    fixture?.remove();
  });

  it('the sample file holds 10 weekly reports of the market', () => {
    // Fewer than 12: the window must say how many there are, not claim 12.
    // (test/integration/api/cot-markets.test.ts checks the cut at 12 on a 30-week real series.)
    expect(reportDates.length).toBe(10);
    expect(new Set(reportDates).size).toBe(reportDates.length);
  });

  describe('one market, with and without a key', () => {
    const get = async (key?: string) => {
      const response = await fetch(`${server.url}${PATH}`, {
        headers: key ? { Authorization: `Bearer ${key}` } : {},
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('vary')).toMatch(/(^|, *)Authorization(,|$)/);
      return { response, payload: (await response.json()) as CotPayload };
    };

    it('rule 1: without a key, the latest 12 weekly reports (all 10 here), and a window that says so', async () => {
      const { response, payload } = await get();
      expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      const latest = reportDates.slice(-PUBLIC_REPORTS);
      expect(payload.data.map((row) => row.report_date).sort()).toEqual(latest);
      // The public shape: the columns stored beside the reports are for cot:history keys only.
      for (const row of payload.data) {
        expect(Object.keys(row)).not.toContain('concentration_net');
        expect(Object.keys(row)).not.toContain('crop_years');
      }
      expect(payload.meta.window).toEqual({
        reports: latest.length,
        limit: PUBLIC_REPORTS,
        full_history: false,
        from: latest[0],
        to: latest.at(-1),
      });
    });

    it('rule 2: a key with cot:history gets all 10 reports', async () => {
      const { response, payload } = await get(historyKey);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(payload.data.map((row) => row.report_date)).toEqual(reportDates);
      // Every report with its net concentration ratios and crop years, as the file gives them.
      const code = readMarketCode(MARKET);
      for (const row of payload.data as unknown as HistoryRow[]) {
        const file = readLegacyLine(code, row.report_date);
        const number = (name: string) => Number(file.get(name));
        expect(row.concentration_net).toEqual({
          net_top4_long: number('Concentration-Net LT =4 TDR-Long (All)'),
          net_top4_short: number('Concentration-Net LT =4 TDR-Short (All)'),
          net_top8_long: number('Concentration-Net LT =8 TDR-Long (All)'),
          net_top8_short: number('Concentration-Net LT =8 TDR-Short (All)'),
        });
        expect(row.crop_years.old.open_interest).toBe(number('Open Interest (Old)'));
        expect(row.crop_years.other.categories.noncommercial?.long).toBe(
          number('Noncommercial Positions-Long (Other)'),
        );
        expect(row.crop_years.other.concentration.gross_top4_short).toBe(
          number('Concentration-Gross LT =4 TDR-Short(Other)'),
        );
      }
      expect(payload.meta.window).toMatchObject({
        reports: reportDates.length,
        limit: 1000,
        full_history: true,
        from: reportDates[0],
        to: reportDates.at(-1),
      });
    });

    it('rule 1: a key without cot:history still gets only 12', async () => {
      const { response, payload } = await get(otherKey);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(payload.data.map((row) => row.report_date).sort()).toEqual(reportDates.slice(-PUBLIC_REPORTS));
      expect(payload.meta.window.full_history).toBe(false);
    });

    it('answers a matching If-None-Match with 304 and no body', async () => {
      const first = await fetch(`${server.url}${PATH}`);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await fetch(`${server.url}${PATH}`, { headers: { 'If-None-Match': etag! } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      const stale = await fetch(`${server.url}${PATH}`, { headers: { 'If-None-Match': '"stale"' } });
      expect(stale.status).toBe(200);
    });

    it('answers HEAD with the GET headers and no body', async () => {
      const get = await getRaw(`${server.url}${PATH}`, {});
      const head = await getRaw(`${server.url}${PATH}`, {}, 'HEAD');
      expect(get.body.length).toBeGreaterThan(0);
      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(get.headers.etag);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(head.headers['content-length']).toBe(String(get.body.length));
      expect(head.headers['x-ratelimit-limit']).toBe('60');
      expect(head.body.length).toBe(0);
    });

    it.each([
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const)(
      'compresses with %s when accepted, to the same bytes once decompressed',
      async (encoding, inflate) => {
        for (const key of [undefined, historyKey]) {
          const auth: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
          const plain = await getRaw(`${server.url}${PATH}`, { ...auth, 'Accept-Encoding': 'identity' });
          const packed = await getRaw(`${server.url}${PATH}`, { ...auth, 'Accept-Encoding': encoding });
          expect(plain.headers['content-encoding']).toBeUndefined();
          expect(packed.status).toBe(200);
          expect(packed.headers['content-encoding']).toBe(encoding);
          expect(packed.headers.vary).toMatch(/Accept-Encoding/);
          expect(packed.body.length).toBeLessThan(plain.body.length);
          const body = inflate(packed.body);
          // generated_at may differ by a second between two live renders; the data must not.
          expect(JSON.parse(body.toString()).data).toEqual(JSON.parse(plain.body.toString()).data);
          expect(packed.headers.etag).toBe(plain.headers.etag);
        }
      },
    );
  });

  it('answers a CORS preflight with 204 and allows the Authorization header', async () => {
    const response = await fetch(`${server.url}${PATH}`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://example.org',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = response.headers
      .get('access-control-allow-headers')!
      .split(',')
      .map((name) => name.trim().toLowerCase());
    expect(allowed).toContain('authorization');
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('refuses POST with 405 method_not_allowed and Allow', async () => {
    const response = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${historyKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('method_not_allowed');
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
  });
});

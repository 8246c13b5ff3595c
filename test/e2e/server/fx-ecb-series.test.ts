import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { type EcbHistDay, oracleRates, parseEcbHist } from '../../helpers/fx-ecb-hist.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { REAL_DATA_STEPS } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Endpoint 11 as Frankfurter users ask it (issue 35): time series by path and by from/to, base=,
 * symbols=, amount=, a weekend or holiday start answered with the reference date before it, and
 * the same on MCP; over HTTP on a snapshot of the ECB's whole real history, every rate recomputed
 * from eurofxref-hist.csv's own text (test/helpers/fx-ecb-hist.ts: exact decimals, long division).
 */
const STEPS = REAL_DATA_STEPS.filter(([source]) => ['catalog', 'iso4217', 'ecb'].includes(source!));

interface Rate {
  currency: string;
  rate: number;
  base: string;
  date: string;
  series_key: string;
}
interface Body {
  data: Rate[];
  meta: Record<string, unknown> & {
    range: null | {
      requested_from: string;
      requested_to: string | null;
      start_date: string | null;
      end_date: string | null;
      dates: number;
      dates_without_base: number;
      note: string | null;
    };
    not_quoted: string[];
  };
  error?: { code: string; message: string };
}

describe('/api/v1/fx/ecb time series, base, symbols and amount on the real ECB history', () => {
  const temp = createTempDir('mmds-fx-series-');
  const dataDir = join(temp.dir, 'data');
  const hist: EcbHistDay[] = parseEcbHist(readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8'));
  const newest = hist.at(-1)!;
  let server: TestServer;

  beforeAll(async () => {
    for (const [source, ...files] of STEPS) {
      const run = await runMmds(['ingest', source!, ...files], { MMDS_DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(0);
    }
    const publish = await runMmds(['publish'], { MMDS_DATA_DIR: dataDir });
    expect(publish.code, publish.stderr).toBe(0);
    server = await startTestServer({ dataDir, anonymousLimit: 10_000 });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  const get = async (path: string) => {
    const response = await fetch(new URL(path, server.url));
    const text = await response.text();
    return { response, body: (text ? JSON.parse(text) : null) as Body };
  };

  /** The rows the CSV gives for the reference dates of [start, end], by date then currency. */
  const expectedRows = (start: string, end: string, base: string, symbols: string[] | null, amount = '1') =>
    hist
      .filter((day) => day.date >= start && day.date <= end)
      .flatMap((day) => {
        const rates = oracleRates(day, base, amount);
        if (rates === null) return [];
        return [...rates]
          .filter(([code]) => symbols === null || symbols.includes(code))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([currency, rate]) => ({ date: day.date, currency, rate }));
      });
  const rowsOf = (data: Rate[]) => data.map(({ date, currency, rate }) => ({ date, currency, rate }));
  /** The last reference date at or before a day (the CSV's own dates). */
  const atOrBefore = (day: string) => hist.filter((entry) => entry.date <= day).at(-1)!.date;

  it('answers a path range with every reference date of it, the same as from/to', async () => {
    const byPath = await get('/api/v1/fx/ecb/2025-01-02..2025-01-31');
    expect(byPath.response.status).toBe(200);
    expect(rowsOf(byPath.body.data)).toEqual(expectedRows('2025-01-02', '2025-01-31', 'EUR', null));
    expect(byPath.body.data.every((rate) => rate.base === 'EUR')).toBe(true);
    const dates = hist.filter((day) => day.date >= '2025-01-02' && day.date <= '2025-01-31');
    expect(byPath.body.meta).toMatchObject({
      date: null,
      base: 'EUR',
      amount: 1,
      rounding: expect.stringMatching(/^none/),
      range: {
        requested_from: '2025-01-02',
        requested_to: '2025-01-31',
        start_date: '2025-01-02',
        end_date: '2025-01-31',
        dates: dates.length,
        note: null,
      },
    });
    const byQuery = await get('/api/v1/fx/ecb?from=2025-01-02&to=2025-01-31');
    expect(byQuery.response.status).toBe(200);
    expect(byQuery.body.data).toEqual(byPath.body.data);
    expect({ ...byQuery.body.meta, generated_at: null }).toEqual({ ...byPath.body.meta, generated_at: null });
  });

  it('starts a range on a weekend or TARGET holiday at the reference date before it, and says so', async () => {
    // 2025-01-04 is a Saturday; 2026-04-03 is Good Friday and 2026-04-06 Easter Monday.
    for (const [from, to] of [
      ['2025-01-04', '2025-01-10'],
      ['2026-04-03', '2026-04-08'],
      ['2025-12-25', '2026-01-05'],
    ] as const) {
      const { response, body } = await get(`/api/v1/fx/ecb/${from}..${to}?symbols=usd,gbp`);
      expect(response.status, from).toBe(200);
      const start = atOrBefore(from);
      expect(start < from, from).toBe(true);
      expect(rowsOf(body.data), from).toEqual(expectedRows(start, to, 'EUR', ['USD', 'GBP']));
      expect(body.meta.range, from).toMatchObject({ requested_from: from, start_date: start });
      expect(body.meta.range!.note, from).toContain(`${from} is not an ECB reference date`);
      expect(body.meta.range!.note, from).toContain(start);
      expect(body.meta.filters, from).toEqual({ symbols: 'USD,GBP' });
    }
  });

  it('converts a range to another base and amount, EUR included, recomputed from the CSV text', async () => {
    const path = '/api/v1/fx/ecb?from=2025-03-01&to=2025-06-30&base=usd&symbols=GBP,JPY,EUR,CHF&amount=12.5';
    const { response, body } = await get(path);
    expect(response.status).toBe(200);
    expect(rowsOf(body.data)).toEqual(
      expectedRows(atOrBefore('2025-03-01'), '2025-06-30', 'USD', ['GBP', 'JPY', 'EUR', 'CHF'], '12.5'),
    );
    expect(body.meta).toMatchObject({ base: 'USD', amount: 12.5, base_rate: null });
    expect(body.meta.rounding).toMatch(/half away from zero to 6 significant digits/);
    expect(body.meta.method).toMatch(/amount x EUR->quote \/ EUR->base/);
    // amount on base EUR scales the published rates, rounded by the same rule.
    const eur = await get('/api/v1/fx/ecb/2025-01-02?amount=100&symbols=usd,jpy');
    expect(asRates(eur.body.data)).toEqual(
      pick(oracleRates(dayOf('2025-01-02'), 'EUR', '100')!, ['USD', 'JPY']),
    );
  });

  const dayOf = (date: string) => hist.find((day) => day.date === date)!;
  const asRates = (data: Rate[]) => new Map(data.map((rate) => [rate.currency, rate.rate]));
  const pick = (rates: Map<string, number>, codes: string[]) =>
    new Map([...rates].filter(([code]) => codes.includes(code)).sort(([a], [b]) => (a < b ? -1 : 1)));

  it('answers the single-day path forms and an open range as the query forms do', async () => {
    const day = await get('/api/v1/fx/ecb/2026-04-05?base=GBP');
    expect(day.response.status).toBe(200);
    expect(day.body.meta).toMatchObject({ requested_date: '2026-04-05', date: '2026-04-02', range: null });
    expect(day.body.data).toEqual((await get('/api/v1/fx/ecb?date=2026-04-05&base=GBP')).body.data);
    expect(asRates(day.body.data)).toEqual(oracleRates(dayOf('2026-04-02'), 'GBP'));
    const latest = await get('/api/v1/fx/ecb/latest?symbols=usd');
    expect(latest.body.data).toEqual((await get('/api/v1/fx/ecb?currency=USD')).body.data);
    const from = hist.at(-8)!.date;
    const open = await get(`/api/v1/fx/ecb/${from}..?symbols=usd`);
    expect(open.response.status).toBe(200);
    expect(rowsOf(open.body.data)).toEqual(expectedRows(from, newest.date, 'EUR', ['USD']));
    expect(open.body.meta.range).toMatchObject({ requested_to: null, end_date: newest.date, dates: 8 });
  });

  it('matches the CSV for random ranges, bases and amounts', async () => {
    const first = Date.parse(`${hist[0]!.date}T00:00:00Z`);
    const last = Date.parse(`${newest.date}T00:00:00Z`);
    const dayText = (ms: number) => new Date(ms - (ms % 86_400_000)).toISOString().slice(0, 10);
    const arbitrary = fc.record({
      start: fc.integer({ min: first, max: last }),
      days: fc.integer({ min: 0, max: 40 }),
      base: fc.constantFrom('EUR', 'USD', 'JPY', 'GBP', 'CHF', 'ISK', 'IDR'),
      amount: fc.constantFrom('1', '100', '12.5', '0.003', '7'),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ start, days, base, amount }) => {
        const from = dayText(start);
        const to = dayText(Math.min(start + days * 86_400_000, last));
        const symbols = ['USD', 'GBP', 'JPY', 'EUR', 'ISK'];
        const { response, body } = await get(
          `/api/v1/fx/ecb/${from}..${to}?base=${base}&symbols=${symbols.join(',')}&amount=${amount}`,
        );
        const expected = expectedRows(atOrBefore(from), to, base, symbols, amount);
        if (expected.length === 0) {
          // ISK was not quoted from 2008-12 to 2018: a base never quoted in the range is a 400.
          expect(response.status).toBe(400);
          expect(body.error!.message).toContain(`${base} has no ECB reference rate`);
          return;
        }
        expect(response.status).toBe(200);
        expect(rowsOf(body.data)).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses conflicting, malformed and oversized requests with a 400 naming the parameter', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const cases: Array<[string, string]> = [
      ['/api/v1/fx/ecb?date=2025-01-02&from=2025-01-02', 'either date (one day) or from/to'],
      ['/api/v1/fx/ecb?to=2025-01-31', '"to": expected to together with from'],
      ['/api/v1/fx/ecb?currency=usd&symbols=gbp', '"symbols": expected either currency or symbols'],
      ['/api/v1/fx/ecb?symbols=USD,usd', '"symbols": USD is listed twice'],
      ['/api/v1/fx/ecb?symbols=ZZZ', '"symbols": ZZZ is not an ISO 4217 code'],
      ['/api/v1/fx/ecb?amount=0', '"amount"'],
      ['/api/v1/fx/ecb?amount=-3', '"amount"'],
      ['/api/v1/fx/ecb?amount=1e3', '"amount"'],
      ['/api/v1/fx/ecb?from=2025-01-31&to=2025-01-02', '"from"'],
      ['/api/v1/fx/ecb/2025-01-31..2025-01-02', '"dates"'],
      [`/api/v1/fx/ecb?from=${tomorrow}`, 'after today'],
      ['/api/v1/fx/ecb/2025-01-02?date=2025-01-02', '"date"'],
      ['/api/v1/fx/ecb?from=1999-01-01', 'expected at most 20000'],
    ];
    for (const [path, message] of cases) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
      expect(body.error, path).toMatchObject({ code: 'invalid_parameter' });
      expect(body.error!.message, path).toContain(message);
    }
    for (const path of [
      '/api/v1/fx/ecb/2025-02-30',
      '/api/v1/fx/ecb/yesterday',
      '/api/v1/fx/ecb/1990-01-01..1998-12-31',
    ]) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(404);
      expect(body.error!.code, path).toBe('not_found');
    }
    // The whole history of one currency is well inside the cap.
    const usd = await get('/api/v1/fx/ecb?from=1999-01-01&symbols=usd');
    expect(usd.response.status).toBe(200);
    expect(usd.body.data.length).toBe(hist.filter((day) => day.rates.has('USD')).length);
    expect(usd.body.meta.range).toMatchObject({ start_date: hist[0]!.date, end_date: newest.date });
    expect(usd.body.meta.range!.note).toContain('before the first ECB reference date');
  });

  it('caches a series like any public payload, with ETag revalidation', async () => {
    const path = '/api/v1/fx/ecb/2024-06-03..2024-06-28?base=CHF&symbols=usd';
    const first = await get(path);
    expect(first.response.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await fetch(new URL(path, server.url), {
      headers: { 'If-None-Match': first.response.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('gives the same series to the MCP tool get_fx_rates', async () => {
    const client = new Client({ name: 'mmds-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const listed = await client.listTools();
      const tool = listed.tools.find((candidate) => candidate.name === 'get_fx_rates')!;
      expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['symbols', 'amount', 'from', 'to', 'base']),
      );
      const args = { from: '2025-01-04', to: '2025-01-10', base: 'usd', symbols: 'GBP,EUR', amount: '100' };
      const result = (await client.callTool({ name: 'get_fx_rates', arguments: args })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      const body = result.structuredContent as unknown as Body;
      const rest = await get(
        '/api/v1/fx/ecb?from=2025-01-04&to=2025-01-10&base=usd&symbols=GBP,EUR&amount=100',
      );
      expect(body.data).toEqual(rest.body.data);
      expect(rowsOf(body.data)).toEqual(
        expectedRows('2025-01-03', '2025-01-10', 'USD', ['GBP', 'EUR'], '100'),
      );
    } finally {
      await client.close();
    }
  });

  it('describes both spellings in OpenAPI, the path form with its dates parameter', () => {
    const doc = createOpenApiDocument() as {
      paths: Record<
        string,
        { get: { parameters: Array<{ name: string; in: string; schema: { pattern?: string } }> } }
      >;
    };
    const byQuery = doc.paths['/api/v1/fx/ecb']!.get.parameters.map((p) => p.name);
    expect(byQuery).toEqual(
      expect.arrayContaining(['currency', 'symbols', 'base', 'amount', 'date', 'from', 'to']),
    );
    const dates = doc.paths['/api/v1/fx/ecb/{dates}']!.get.parameters.find((p) => p.in === 'path')!;
    expect(dates.name).toBe('dates');
    const pattern = new RegExp(dates.schema.pattern!);
    for (const good of ['2025-01-02', '2025-01-02..2025-01-31', '2025-01-02..', 'latest'])
      expect(pattern.test(good)).toBe(true);
    for (const bad of ['2025-01-02...', '..2025-01-02', 'gold']) expect(pattern.test(bad)).toBe(false);
  });
});

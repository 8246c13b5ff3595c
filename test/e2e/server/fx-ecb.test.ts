import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { dayAtOrBefore, type EcbHistDay, oracleRates, parseEcbHist } from '../../helpers/fx-ecb-hist.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, REAL_DATA_STEPS, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * /api/v1/fx/ecb with base=, currency lists, lower case and date=, over HTTP on a snapshot of the
 * ECB's whole real history (1999 onwards), checked against eurofxref-hist.csv split by hand.
 */
const STEPS = REAL_DATA_STEPS.filter(([source]) => ['catalog', 'iso4217', 'ecb'].includes(source!));

interface Rate {
  currency: string;
  currency_name: string | null;
  rate: number;
  base: string;
  date: string;
  observed_at: string;
  observed_at_method: string;
  revision_number: number;
  series_key: string;
}
interface Body {
  data: Rate[];
  meta: Record<string, unknown> & { date: string | null; not_quoted: string[] };
  error?: { code: string; message: string };
}

describe('/api/v1/fx/ecb on the real ECB history', () => {
  let fixture: SnapshotFixture;
  let dataDir: string;
  const hist: EcbHistDay[] = parseEcbHist(readFileSync(join(SHARED_DATA, 'ecb/eurofxref-hist.csv'), 'utf8'));
  const newest = hist.at(-1)!;
  let server: TestServer;

  beforeAll(async () => {
    // Ingested and published once per state of the inputs (test/helpers/fixture-cache.ts).
    fixture = await createRealSnapshot(STEPS);
    dataDir = fixture.dataDir;
    // About a hundred requests: more than the anonymous rate limit allows by default.
    server = await startTestServer({ dataDir, anonymousLimit: 10_000 });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(new URL(path, server.url), { headers });
    const text = await response.text();
    return { response, body: (text ? JSON.parse(text) : null) as Body };
  };
  const asMap = (data: Rate[]) => new Map(data.map((rate) => [rate.currency, rate.rate]));

  it('keeps the default payload for base=EUR and base=eur, and for date= the latest reference date', async () => {
    const plain = await get('/api/v1/fx/ecb');
    expect(plain.response.status).toBe(200);
    expect(asMap(plain.body.data)).toEqual(newest.rates);
    expect(plain.body.data.every((rate) => rate.base === 'EUR' && rate.date === newest.date)).toBe(true);
    expect(plain.body.meta).toMatchObject({
      date: newest.date,
      requested_date: null,
      base: 'EUR',
      base_rate: null,
      filters: {},
    });
    for (const query of ['base=EUR', 'base=eur', `date=${newest.date}`]) {
      const other = await get(`/api/v1/fx/ecb?${query}`);
      expect(other.response.status, query).toBe(200);
      expect(other.body.data, query).toEqual(plain.body.data);
    }
  });

  it('takes a comma list of codes in any case and answers in upper case', async () => {
    const { response, body } = await get('/api/v1/fx/ecb?currency=usd,GBP,jPy');
    expect(response.status).toBe(200);
    expect(body.data.map((rate) => rate.currency)).toEqual(['GBP', 'JPY', 'USD']);
    for (const rate of body.data) expect(rate.rate).toBe(newest.rates.get(rate.currency));
    expect(body.meta.filters).toEqual({ currency: 'USD,GBP,JPY' });
    expect(body.meta.not_quoted).toEqual([]);
    const single = await get('/api/v1/fx/ecb?currency=usd');
    expect(single.body.data).toEqual((await get('/api/v1/fx/ecb?currency=USD')).body.data);
  });

  it('computes cross rates for a base, EUR included, as the CSV gives them', async () => {
    const { response, body } = await get('/api/v1/fx/ecb?base=usd');
    expect(response.status).toBe(200);
    const expected = oracleRates(newest, 'USD')!;
    expect(asMap(body.data)).toEqual(expected);
    expect(body.data.some((rate) => rate.currency === 'USD')).toBe(false);
    const eur = body.data.find((rate) => rate.currency === 'EUR')!;
    expect(eur).toMatchObject({ currency_name: 'Euro', base: 'USD', series_key: 'ecb.USD' });
    expect(body.data.find((rate) => rate.currency === 'GBP')).toMatchObject({
      base: 'USD',
      series_key: 'ecb.GBP',
      date: newest.date,
    });
    expect(body.meta).toMatchObject({
      base: 'USD',
      date: newest.date,
      base_rate: { currency: 'USD', rate: newest.rates.get('USD'), series_key: 'ecb.USD' },
    });
    expect(body.meta.method).toMatch(/EUR->quote \/ EUR->base.*6 significant digits/);
  });

  it('answers date= with the last reference date at or before it, stating both', async () => {
    // 2026-04-05 is Easter Sunday: Good Friday and Easter Monday are TARGET closing days.
    const { body } = await get('/api/v1/fx/ecb?date=2026-04-05&currency=USD');
    const day = dayAtOrBefore(hist, '2026-04-05')!;
    expect(day.date).toBe('2026-04-02');
    expect(body.meta).toMatchObject({ requested_date: '2026-04-05', date: '2026-04-02' });
    expect(body.data).toEqual([
      expect.objectContaining({ currency: 'USD', rate: day.rates.get('USD'), date: '2026-04-02' }),
    ]);
  });

  it('leaves out currencies the ECB no longer quoted on that date, and names them', async () => {
    // Bulgaria adopted the euro on 2026-01-01: the lev is in the file until 2025-12-31.
    const before = await get('/api/v1/fx/ecb?date=2025-12-31&currency=BGN,USD');
    expect(before.body.data.map((rate) => rate.currency)).toEqual(['BGN', 'USD']);
    expect(before.body.data[0]!.rate).toBe(dayAtOrBefore(hist, '2025-12-31')!.rates.get('BGN'));
    const after = await get('/api/v1/fx/ecb?date=2026-01-02&currency=BGN,USD');
    expect(after.response.status).toBe(200);
    expect(after.body.data.map((rate) => rate.currency)).toEqual(['USD']);
    expect(after.body.meta.not_quoted).toEqual(['BGN']);
    const latest = await get('/api/v1/fx/ecb?currency=BGN');
    expect(latest.response.status).toBe(200);
    expect(latest.body.data).toEqual([]);
  });

  it('matches the CSV for any day and any base quoted that day', async () => {
    const first = hist[0]!.date;
    const days = fc
      .integer({
        min: Date.parse(`${first}T00:00:00Z`),
        max: Date.parse(`${newest.date}T00:00:00Z`) + 5 * 86_400_000,
      })
      .map((ms) => new Date(ms - (ms % 86_400_000)).toISOString().slice(0, 10));
    await fc.assert(
      fc.asyncProperty(days, fc.nat(), async (day, pick) => {
        const reference = dayAtOrBefore(hist, day)!;
        const codes = ['EUR', ...reference.rates.keys()];
        const base = codes[pick % codes.length]!;
        const { response, body } = await get(`/api/v1/fx/ecb?date=${day}&base=${base.toLowerCase()}`);
        expect(response.status).toBe(200);
        expect(body.meta).toMatchObject({ requested_date: day, date: reference.date, base });
        expect(asMap(body.data)).toEqual(oracleRates(reference, base));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a date before the first reference date (404), in the future, or not a real day (400)', async () => {
    const early = await get('/api/v1/fx/ecb?date=1998-12-31');
    expect(early.response.status).toBe(404);
    expect(early.body.error).toMatchObject({ code: 'not_found' });
    expect(early.body.error!.message).toContain(`the first reference date is ${hist[0]!.date}`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const day of [tomorrow, '2025-02-30', '2025-2-3', '20250203']) {
      const { response, body } = await get(`/api/v1/fx/ecb?date=${day}`);
      expect(response.status, day).toBe(400);
      expect(response.headers.get('cache-control'), day).toBe('no-store');
      expect(body.error, day).toMatchObject({ code: 'invalid_parameter' });
      expect(body.error!.message, day).toContain('"date"');
    }
    expect((await get(`/api/v1/fx/ecb?date=${tomorrow}`)).body.error!.message).toContain('after today');
  });

  it('refuses bad currency lists and unquoted bases with a 400 naming what is wrong', async () => {
    const cases: Array<[string, string]> = [
      ['currency=ZZZ', 'ZZZ is not an ISO 4217 code'],
      ['currency=USD,zzz', 'ZZZ is not an ISO 4217 code'],
      ['currency=USD,usd', 'USD is listed twice'],
      ['currency=USD,,GBP', 'ISO 4217 codes separated by commas'],
      ['currency=USD,', 'ISO 4217 codes separated by commas'],
      ['currency=', 'ISO 4217 codes separated by commas'],
      ['currency=US', 'ISO 4217 codes separated by commas'],
      [`currency=${Array.from({ length: 41 }, () => 'USD').join(',')}`, '1 to 40 ISO 4217 codes'],
      ['base=BGN', `BGN has no ECB reference rate on ${newest.date}; expected one of AUD`],
      ['base=ZZZ', 'ZZZ has no ECB reference rate'],
      ['base=US', '"base"'],
      ['date=2008-12-31&base=ISK', 'ISK has no ECB reference rate on 2008-12-31'],
    ];
    for (const [query, message] of cases) {
      const { response, body } = await get(`/api/v1/fx/ecb?${query}`);
      expect(response.status, query).toBe(400);
      expect(body.error, query).toMatchObject({ code: 'invalid_parameter' });
      expect(body.error!.message, query).toContain(message);
      expect(body.error!.message, query).toMatch(/"(currency|base)"/);
    }
  });

  it('caches a rendered list or date like any public payload, with ETag revalidation', async () => {
    const path = '/api/v1/fx/ecb?currency=usd,gbp&date=2020-03-16&base=CHF';
    const first = await get(path);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('cache-control')).toBe(
      (await get('/api/v1/fx/ecb')).response.headers.get('cache-control'),
    );
    const etag = first.response.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await fetch(new URL(path, server.url), { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('pre-renders each currency and each quoted base (lower case too), never a list or a date', async () => {
    const layout = resolveLayout(dataDir);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const fx = (await listStaticRequests(db)).filter((r) => r.route.id === 'fx-ecb');
      const bases = fx.filter((r) => r.query.base !== undefined);
      expect(bases.map((r) => r.query.base).sort()).toEqual([...newest.rates.keys()].sort());
      expect(bases.find((r) => r.query.base === 'USD')!.aliases).toEqual([{ base: 'usd' }]);
      const currencies = fx.filter((r) => r.query.currency !== undefined).map((r) => r.query.currency);
      expect(currencies).toContain('USD');
      expect(currencies).toContain('BGN');
      const plain = fx.find((r) => Object.keys(r.query).length === 0)!;
      expect(plain.aliases).toEqual([{ base: 'EUR' }, { base: 'eur' }]);
      expect(fx.some((r) => 'date' in r.query || String(r.query.currency).includes(','))).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('keeps currency= on /series one code (any case, as everywhere)', async () => {
    expect((await get('/api/v1/series?currency=USD')).response.status).toBe(200);
    expect((await get('/api/v1/series?currency=usd')).response.status).toBe(200);
    for (const query of ['currency=USD,GBP', 'base=USD', 'date=2025-01-02']) {
      const { response, body } = await get(`/api/v1/series?${query}`);
      expect(response.status, query).toBe(400);
      expect(body.error!.code, query).toBe('invalid_parameter');
    }
  });

  it('documents the fx parameters in OpenAPI and keeps /series?currency= a single code', () => {
    const doc = createOpenApiDocument() as {
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: { pattern?: string } }> } }>;
    };
    const fx = doc.paths['/api/v1/fx/ecb']!.get.parameters;
    expect(fx.map((p) => p.name).filter((name) => ['currency', 'base', 'date'].includes(name))).toEqual([
      'currency',
      'base',
      'date',
    ]);
    const pattern = new RegExp(fx.find((p) => p.name === 'currency')!.schema.pattern!);
    expect(pattern.test('usd,GBP')).toBe(true);
    expect(pattern.test('USD,,GBP')).toBe(false);
    const series = doc.paths['/api/v1/series']!.get.parameters.find((p) => p.name === 'currency')!;
    expect(series.schema.pattern).toBe('^[A-Za-z]{3}$');
  });
});

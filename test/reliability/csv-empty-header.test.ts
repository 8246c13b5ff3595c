import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/contract/routes.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createServedSample, issueTestKey, type ServedSample } from './helpers/served-sample.ts';

/**
 * An empty CSV answer still has its header row (issue 21): `header=present` with 0 bytes cannot be
 * read by pandas or DuckDB. Every CSV route with a period range is asked for a range without
 * data and for one with data; the empty answer is exactly its header line, the same header as
 * the answer with rows.
 */

/** One RFC 4180 line split into fields (the headers are names: no quotes needed, none expected). */
function parseCsv(text: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => line.split(','));
}

describe('CSV answers without rows', () => {
  let sample: ServedSample;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    sample = await createServedSample();
    key = (await issueTestKey(sample.env, { scopes: 'cot:history,macro:history,observations:read' }))
      .plaintext;
    server = await startTestServer({ dataDir: sample.dataDir, distDir: sample.distDir });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  const get = async (target: string) => {
    const response = await fetch(`${server.url}${target}`, { headers: { Authorization: `Bearer ${key}` } });
    const body = await response.text();
    expect(response.status, `${target}: ${body.slice(0, 200)}`).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    return body;
  };

  it('write the header row of the same columns as an answer with rows, for every CSV route with a range', async () => {
    const macro = /"slug":"([a-z0-9-]+)"/.exec(await (await fetch(`${server.url}/api/v1/macro`)).text())![1];
    const cot = sample.publicRequests.find((r) => /^\/api\/v1\/markets\/cot\/[^/]+$/.test(r.path))!.path;
    const slugs: Partial<Record<string, string>> = {
      'cot-market': cot.split('/').at(-1)!,
      'macro-series': macro,
      'macro-revisions': macro,
      'series-history': 'eur-usd',
    };
    const extra: Partial<Record<string, string>> = {
      observations: 'series=ecb.USD&',
      'observations-revisions': 'series=ecb.USD&',
      'observations-aligned': 'series=ecb.USD,ecb.GBP&frequency=m&',
    };
    const routes = ROUTES.filter((route) => route.query.includes('format') && route.query.includes('from'));
    expect(routes.map((route) => route.id).sort()).toEqual(
      [
        'cot-market',
        'macro-revisions',
        'macro-series',
        'observations',
        'observations-aligned',
        'observations-revisions',
        'series-history',
      ].sort(),
    );
    for (const route of routes) {
      const path = route.path.replace(':slug', slugs[route.id] ?? '');
      const query = extra[route.id] ?? '';
      const full = parseCsv(await get(`${path}?${query}format=csv`));
      expect(full.length, route.id).toBeGreaterThan(1);
      const empty = parseCsv(await get(`${path}?${query}from=1900&to=1900&format=csv`));
      expect(empty.length, route.id).toBe(1);
      const header = empty[0]!;
      expect(header.length, route.id).toBeGreaterThan(1);
      expect(header, route.id).toEqual(full[0]);
    }
  });

  it('write the header of the report type for a COT market without rows: its categories and crop years too', async () => {
    // Issue 37: the empty answer had 15 columns against 134 (TFF) or 195 (legacy) with rows.
    const markets = (await (await fetch(`${server.url}/api/v1/markets/cot`)).json()) as {
      data: Array<{ slug: string; report_types: string[] }>;
    };
    const checked = new Set<string>();
    for (const market of markets.data) {
      for (const type of market.report_types) {
        if (checked.has(type)) continue;
        checked.add(type);
        const path = `/api/v1/markets/cot/${market.slug}?report_type=${type}&format=csv`;
        const full = parseCsv(await get(path));
        expect(full.length, path).toBeGreaterThan(1);
        const empty = parseCsv(await get(`${path}&from=1900-01-01&to=1900-01-01`));
        expect(empty, `${type}: the header of an answer with rows`).toEqual([full[0]]);
      }
    }
    expect([...checked].sort()).toEqual(expect.arrayContaining(['disaggregated', 'legacy', 'tff']));
  });
});

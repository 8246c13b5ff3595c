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

  it('write the header row of the same columns as an answer with rows, for every CSV route with a range', async () => {
    const get = async (target: string) => {
      const response = await fetch(`${server.url}${target}`, { headers: { Authorization: `Bearer ${key}` } });
      const body = await response.text();
      expect(response.status, `${target}: ${body.slice(0, 200)}`).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      return body;
    };
    const macro = /"slug":"([a-z0-9-]+)"/.exec(await (await fetch(`${server.url}/api/v1/macro`)).text())![1];
    const cot = sample.publicRequests.find((r) => /^\/api\/v1\/markets\/cot\/[^/]+$/.test(r.path))!.path;
    const slugs: Partial<Record<string, string>> = {
      'cot-market': cot.split('/').at(-1)!,
      'macro-series': macro,
      'macro-revisions': macro,
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
      ].sort(),
    );
    for (const route of routes) {
      const path = route.path.replace(':slug', slugs[route.id] ?? '');
      const query = extra[route.id] ?? '';
      const full = parseCsv(await get(`${path}?${query}format=csv`));
      expect(full.length, route.id).toBeGreaterThan(1);
      const empty = parseCsv(await get(`${path}?${query}from=1900&to=1900&format=csv`));
      expect(empty.length, route.id).toBe(1);
      // The COT categories are named by the rows (per report type): only answers with rows have
      // them; the empty header is the full one without them, in the same order.
      const header = empty[0]!;
      expect(header.length, route.id).toBeGreaterThan(1);
      if (route.id === 'cot-market') {
        expect(
          full[0]!.filter((column) => header.includes(column)),
          route.id,
        ).toEqual(header);
        expect(full[0]!.length).toBeGreaterThan(header.length);
      } else expect(header, route.id).toEqual(full[0]);
    }
  });
});

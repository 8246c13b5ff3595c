import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_PATH_SUFFIX, ROUTES } from '../../src/contract/routes.ts';
import {
  TRANSFORM_AGGREGATIONS,
  TRANSFORM_FREQUENCIES,
  TRANSFORM_UNITS,
} from '../../src/model/transforms.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { findContractViolations } from './helpers/contract-checks.ts';
import { percentEncode } from './helpers/hostile-requests.ts';
import { rawGet, sendRaw } from './helpers/raw-http.ts';
import { createServedSample, issueTestKey, type ServedSample } from './helpers/served-sample.ts';

/**
 * No input reaches a 5xx (issue 21): random bytes in the Host and other headers, the path, the
 * query string and the cursor of every route of the route table, with and without a valid key,
 * sent on raw sockets (fetch would refuse or normalise most of them) to the real server. Every
 * answer must be below 500 and every 4xx the contract's JSON envelope; the bad Host requests are
 * also counted by the rate limiter and logged once, without a stack.
 */

// Scaled with the other property tests (MMDS_PROPERTY_RUNS, 100 by default: 4,000 requests).
const REQUESTS = Math.round(40 * Number(process.env.MMDS_PROPERTY_RUNS ?? 100));

/** Bytes that keep the request's framing: no CR or LF (a header would end), no space in the target. */
const bytes = (maxLength: number, keep: (byte: number) => boolean) =>
  fc.uint8Array({ maxLength }).map((array) => Buffer.from(array.filter(keep)).toString('latin1'));
const headerBytes = bytes(60, (byte) => byte !== 0x0d && byte !== 0x0a);
const targetBytes = bytes(40, (byte) => byte > 0x20 && byte !== 0x7f && byte !== 0x23);

/** Hosts just inside and outside what a URL accepts. */
const HOSTS = [
  '127.0.0.1',
  'localhost:8080',
  'x:99999',
  'x:65536',
  'x:0',
  '1.2.3.256',
  '999.1.1.1',
  '[::1]:99999',
  '[::1]',
  '[::g]',
  '[1:2:3:4:5:6:7:8:9]',
  'a..b',
  'user@host',
  'host/path',
  'x:',
  ':80',
  '',
  '_invalid_',
  'xn--',
  'xn--zz',
  '0x7f.1',
  '%41',
];

/** Numbers and dates past every range a column or parser holds. */
const EXTREMES = [
  '0',
  '-1',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '1e309',
  '99999',
  '99999-01-01',
  '9999-12-31',
  '0000-01-01',
  '0001-01-01',
  '9999',
  '0000',
  '9999-12',
  '9999-Q4',
  '0000-Q1',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '99999999T999999Z-ffffffff',
  '20261123T120000Z-ab8311e4',
  'w',
  'q',
  'a',
  'csv',
  'json',
];

/** Values each parameter accepts, so that a request reaches its queries with one bad value among good ones. */
const VALID: Record<string, readonly string[]> = {
  series: ['ecb.USD', 'bls.CUUR0000SA0', 'fred.PAYEMS', 'ecb.USD,ecb.GBP'],
  as_of: ['2026-01-01T00:00:00Z', '2025-08-01T12:30:00Z'],
  from: ['2024', '2025-01', '2025-Q1', '2025-06-02'],
  to: ['2026', '2026-12', '2026-Q4'],
  observation_start: ['2024-01'],
  observation_end: ['2026-Q2'],
  limit: ['1', '2', '10000'],
  format: ['json', 'csv'],
  units: TRANSFORM_UNITS,
  frequency: TRANSFORM_FREQUENCIES,
  aggregation: TRANSFORM_AGGREGATIONS,
  currency: ['USD', 'USD,GBP'],
  base: ['EUR', 'USD'],
  date: ['2025-06-02'],
  shape: ['list', 'triangle'],
  fill: ['ffill', 'none'],
  report_type: ['legacy', 'tff'],
};

/** A cursor: well-formed JSON with forged fields (revision past 2^31, odd periods), or noise. */
const cursorArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      p: fc.oneof(fc.constantFrom('2025-01', '2025', '2025-Q1', '2025-06-02', '9999-12-31', ''), fc.string()),
      r: fc.oneof(
        fc.constantFrom(1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, -1, 0, 1.5, 1e308),
        fc.integer(),
        fc.double(),
        fc.string(),
      ),
    })
    .map((cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')),
  fc.uint8Array({ maxLength: 40 }).map((array) => Buffer.from(array).toString('base64url')),
  fc.string({ maxLength: 40 }),
);

interface Probe {
  path: string;
  query: string;
  host: string | null;
  headers: Record<string, string>;
  keyed: boolean;
}

describe('no input reaches a 5xx', () => {
  let sample: ServedSample;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    sample = await createServedSample();
    key = (
      await issueTestKey(sample.env, {
        scopes: 'cot:history,macro:history,observations:read,bulk:read',
        rateLimit: 100_000,
      })
    ).plaintext;
    server = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.distDir,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  /** Every route of the table (its CSV path too), with the sample's slugs and random ones. */
  function probeArbitrary(): fc.Arbitrary<Probe> {
    const slugs = [
      ...new Set(
        sample.publicRequests.map((request) => request.path.split('/').at(-1)!).filter((s) => s !== ''),
      ),
      'cpi',
      'payrolls',
      'full',
    ];
    const routePath = fc
      .tuple(
        fc.constantFrom(...ROUTES),
        fc.oneof(
          fc.constantFrom(...slugs),
          targetBytes.map((text) => percentEncode(text)),
        ),
        fc.boolean(),
      )
      .map(([route, slug, csv]) => {
        const path = route.path.replace(':slug', slug);
        return { route, path: csv && route.query.includes('format') ? path + CSV_PATH_SUFFIX : path };
      });
    const value = (name: string) =>
      fc.oneof(
        { arbitrary: fc.constantFrom(...(VALID[name] ?? ['x'])).map(percentEncode), weight: 8 },
        { arbitrary: fc.constantFrom(...EXTREMES).map(percentEncode), weight: 3 },
        { arbitrary: headerBytes.map(percentEncode), weight: 2 },
        { arbitrary: targetBytes, weight: 1 },
        { arbitrary: name === 'cursor' ? cursorArbitrary.map(percentEncode) : fc.constant(''), weight: 3 },
      );
    return fc
      .record({
        target: routePath.chain(({ route, path }) =>
          fc.tuple(
            fc.constant(path),
            fc
              .subarray([...route.query, 'series', 'cursor'])
              .chain((names) =>
                fc.tuple(...names.map((name) => value(name).map((text) => `${name}=${text}`))),
              ),
            fc.oneof({ arbitrary: fc.constant(''), weight: 8 }, { arbitrary: targetBytes, weight: 1 }),
          ),
        ),
        host: fc.oneof(
          { arbitrary: fc.constant('127.0.0.1'), weight: 12 },
          { arbitrary: fc.constantFrom(...HOSTS), weight: 3 },
          { arbitrary: headerBytes, weight: 2 },
          { arbitrary: fc.constant(null), weight: 1 },
        ),
        headers: fc.dictionary(
          fc.constantFrom('If-None-Match', 'Accept-Encoding', 'Accept', 'X-Forwarded-For', 'Range', 'Origin'),
          headerBytes,
          { maxKeys: 2 },
        ),
        keyed: fc.boolean(),
      })
      .map(({ target: [path, pairs, junk], host, headers, keyed }) => ({
        path: path + junk,
        query: pairs.join('&'),
        host,
        headers,
        keyed,
      }));
  }

  it(`answers ${REQUESTS} random requests over every route below 500, each 4xx in the envelope`, async () => {
    const byStatus: Record<number, number> = {};
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(probeArbitrary(), async (probe) => {
        const target = probe.query === '' ? probe.path : `${probe.path}?${probe.query}`;
        const headers: Record<string, string> = { ...probe.headers };
        if (probe.keyed) headers.Authorization = `Bearer ${key}`;
        const raw = rawGet(target, headers);
        // rawGet always writes a Host line: replace it by the probe's, or drop it.
        const text = raw.toString('latin1');
        const request = Buffer.from(
          text.replace('Host: 127.0.0.1\r\n', probe.host === null ? '' : `Host: ${probe.host}\r\n`),
          'latin1',
        );
        const response = await sendRaw(server.port, request);
        requests += 1;
        const shown = JSON.stringify(request.toString('latin1').slice(0, 300));
        expect(response.status, shown).not.toBeNull();
        byStatus[response.status!] = (byStatus[response.status!] ?? 0) + 1;
        const exchange = { method: 'GET', target, ...response, status: response.status! };
        // The full store's listing (bulk:read) names its .parquet files: only errors may not.
        const violations = findContractViolations(exchange).filter(
          (problem) => response.status! >= 400 || problem !== 'body shows a .parquet file name',
        );
        expect(violations, shown).toEqual([]);
      }),
      { numRuns: REQUESTS },
    );
    const fiveHundreds = Object.entries(byStatus).filter(([status]) => Number(status) >= 500);
    console.info(`no-5xx: ${requests} requests, by status ${JSON.stringify(byStatus)}`);
    expect(requests).toBe(REQUESTS);
    expect(fiveHundreds).toEqual([]);
    // The mix reached the routes' answers as well as their refusals.
    expect(byStatus[200] ?? 0).toBeGreaterThan(0);
    expect(byStatus[400] ?? 0).toBeGreaterThan(0);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
  }, 240_000);

  it('answers a bad or missing Host with a counted 400 in the envelope and one log line without a stack', async () => {
    const remaining: number[] = [];
    for (const host of ['x:99999', '1.2.3.256', '[::1]:99999', 'x:65536', null]) {
      const hostLine = host === null ? '' : `Host: ${host}\r\n`;
      const response = await sendRaw(
        server.port,
        `GET /api/v1/status HTTP/1.1\r\n${hostLine}Connection: close\r\n\r\n`,
      );
      const shown = String(host);
      expect(response.status, shown).toBe(400);
      const exchange = { method: 'GET', target: '/api/v1/status', ...response, status: 400 };
      expect(findContractViolations(exchange), shown).toEqual([]);
      expect(JSON.parse(response.body).error.code).toBe('invalid_parameter');
      expect(JSON.parse(response.body).error.message).toMatch(/Host/);
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
      const lines = server.logs.filter((entry) => entry.request_id === response.headers['x-request-id']);
      expect(lines.map((entry) => [entry.event, entry.status, entry.path])).toEqual([
        ['request', 400, '/api/v1/status'],
      ]);
    }
    // Each refusal was counted by the anonymous limiter.
    for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBeLessThan(remaining[i - 1]!);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    // HTTP/1.0 may omit Host (RFC 9112 3.2), and a good Host is still answered.
    expect((await sendRaw(server.port, 'GET /api/v1/status HTTP/1.0\r\n\r\n')).status).toBe(200);
    expect((await sendRaw(server.port, rawGet('/api/v1/status', { Host: 'localhost:8080' }))).status).toBe(
      200,
    );
  });

  it('refuses a forged cursor whose revision number is past 2^31 as an invalid cursor', async () => {
    const listing = await (await fetch(`${server.url}/api/v1/macro`)).text();
    const slug = /"slug":"([a-z0-9-]+)"/.exec(listing)?.[1];
    expect(slug).toBeDefined();
    for (const r of [2 ** 31, 2 ** 32, 2 ** 53 + 2]) {
      const cursor = Buffer.from(JSON.stringify({ p: '2025-01', r })).toString('base64url');
      for (const target of [
        `/api/v1/observations?series=ecb.USD&cursor=${cursor}`,
        `/api/v1/macro/${slug}?cursor=${cursor}`,
      ]) {
        const response = await fetch(`${server.url}${target}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        const body = await response.text();
        expect(response.status, `${target}: ${body}`).toBe(400);
        expect(JSON.parse(body).error.message).toMatch(/"cursor"/);
      }
    }
    // The largest revision number a column holds is still a cursor.
    const edge = Buffer.from(JSON.stringify({ p: '2025-01', r: 2 ** 31 - 1 })).toString('base64url');
    const response = await fetch(`${server.url}/api/v1/observations?series=ecb.USD&cursor=${edge}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
  });
});

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  createClient,
  isRevisionsView,
  isTransformedView,
  MmdsApiError,
  type PageRow,
  type ReleaseEvent,
} from '../../../clients/typescript/src/index.ts';
import type { components } from '../../../clients/typescript/src/schema.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

// The server checks key expiry against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();

const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as {
  series: { key: string; slug: string; macro?: boolean }[];
  markets: { slug: string }[];
};
const market = catalog.markets[0]!.slug;
const macro = catalog.series.find((s) => s.macro)!;

describe('the typed TypeScript client (clients/typescript) against the real server', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  let limitedKey: string;

  const issue = async (scopes: string, rateLimit: string) => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Client test', '--scopes', scopes, '--rate-limit', rateLimit],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: join(fixture.dataDir, 'no-dist'),
      anonymousLimit: 10_000,
    });
    key = await issue('cot:history,macro:history,observations:read', '100000');
    limitedKey = await issue('observations:read', '1');
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('answers a public call with its typed payload', async () => {
    const client = createClient({ baseUrl: server.url });
    const status = await client.get('/api/v1/status');
    expectTypeOf(status.meta.snapshot).toEqualTypeOf<string>();
    expect(status.meta.api_version).toBe('v1');
    const raw = (await (await fetch(`${server.url}/api/v1/status`)).json()) as typeof status;
    expect(status.meta.snapshot).toBe(raw.meta.snapshot);

    const fx = await client.get('/api/v1/fx/ecb');
    expect(Array.isArray(fx.data)).toBe(true);
    expect(fx.data.length).toBeGreaterThan(0);
  });

  it('sends the key: the keyed history with as_of', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const all = await client.get('/api/v1/observations', {
      params: { query: { series: macro.key, limit: 10000 } },
    });
    expect(all.data.length).toBeGreaterThan(1);
    const asOf = '2000-01-01T00:00:00Z';
    const early = await client.get('/api/v1/observations', {
      params: { query: { series: macro.key, as_of: asOf, limit: 10000 } },
    });
    expect(early.meta.as_of).toBe(asOf);
    // Nothing of the sample had been observed in 2000: the point in time sees less than today.
    expect(early.data.length).toBeLessThan(all.data.length);

    const cot = await client.get('/api/v1/markets/cot/{slug}', {
      params: { path: { slug: market }, query: { limit: 2 } },
    });
    // The key unlocks the history view (meta.view is the discriminator of the two metas).
    expect(cot.meta.view).toBe('history');
  });

  it('takes as_of straight from Date.toISOString() (milliseconds), read as the whole second', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const when = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 999));
    const asOf = when.toISOString();
    expect(asOf).toBe('2026-01-01T00:00:00.999Z');
    const typed = await client.get('/api/v1/observations', {
      params: { query: { series: macro.key, as_of: asOf, limit: 10000 } },
    });
    expect(typed.meta.as_of).toBe('2026-01-01T00:00:00Z');
    const plain = await client.get('/api/v1/observations', {
      params: { query: { series: macro.key, as_of: '2026-01-01T00:00:00Z', limit: 10000 } },
    });
    expect(typed.data).toEqual(plain.data);
  });

  it('pages with the async iterator: the rows of several pages equal one big page', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const collect = async <T>(rows: AsyncIterable<T>) => {
      const out: T[] = [];
      for await (const row of rows) out.push(row);
      return out;
    };
    const query = { series: macro.key, limit: 10000 };
    const big = await client.get('/api/v1/observations', { params: { query } });
    expect(big.meta.next_cursor).toBeNull();
    // At least three pages (a small page size would make the test slow: each page is a query).
    const pageSize = Math.ceil(big.data.length / 3);
    const first = await client.get('/api/v1/observations', {
      params: { query: { ...query, limit: pageSize } },
    });
    expect(first.meta.next_cursor).toEqual(expect.any(String));
    const rows: PageRow<'/api/v1/observations'>[] = await collect(
      client.paginate('/api/v1/observations', { params: { query: { ...query, limit: pageSize } } }),
    );
    expect(big.data.length).toBeGreaterThanOrEqual(3);
    expect(rows).toEqual(big.data);

    const slug = { path: { slug: macro.slug } };
    const macroBig = await client.get('/api/v1/macro/{slug}', {
      params: { ...slug, query: { limit: 10000 } },
    });
    const macroLimit = Math.max(1, Math.ceil(macroBig.data.length / 3));
    const macroRows = await collect(
      client.paginate('/api/v1/macro/{slug}', { params: { ...slug, query: { limit: macroLimit } } }),
    );
    expect(macroBig.data.length).toBeGreaterThan(1);
    expect(macroRows).toEqual(macroBig.data);

    // COT: meta is a union on meta.view; paging follows the history view's next_cursor.
    const cotPath = { path: { slug: market } };
    const cotBig = await client.get('/api/v1/markets/cot/{slug}', {
      params: { ...cotPath, query: { limit: 10000 } },
    });
    const cotRows = await collect(
      client.paginate('/api/v1/markets/cot/{slug}', {
        params: { ...cotPath, query: { limit: Math.max(1, Math.ceil(cotBig.data.length / 3)) } },
      }),
    );
    expect(cotBig.data.length).toBeGreaterThan(1);
    expect(cotRows).toEqual(cotBig.data);
  });

  it('iterates the release events page by page, resuming after an id; a too-old id is MmdsApiError gone', async () => {
    const client = createClient({ baseUrl: server.url });
    const all: ReleaseEvent[] = [];
    for await (const event of client.events({ limit: 7 })) all.push(event);
    const raw = (await (await fetch(`${server.url}/api/v1/events?limit=1000`)).json()) as {
      data: ReleaseEvent[];
    };
    expect(all).toEqual(raw.data);
    expect(all.length).toBeGreaterThan(7);
    expect(all.every((event) => event.public)).toBe(true);
    const rest: ReleaseEvent[] = [];
    for await (const event of client.events({ after: all[4]!.id, type: 'series.released' })) rest.push(event);
    expect(rest).toEqual(all.slice(5).filter((event) => event.type === 'series.released'));
    // With a key holding observations:read and cot:history: the events of older COT reports too.
    const keyed: ReleaseEvent[] = [];
    for await (const event of createClient({ baseUrl: server.url, apiKey: key }).events({ limit: 1000 }))
      keyed.push(event);
    expect(keyed.length).toBeGreaterThan(all.length);
    const gone = client.events({ after: '20200101T000000Z-00000000:1' }).next();
    await expect(gone).rejects.toMatchObject({ status: 410, code: 'gone' });
  });

  it('types both views of /macro/{slug} and /observations: the guard narrows data by meta.view', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const slug = { path: { slug: macro.slug } };
    const transformed = await client.get('/api/v1/macro/{slug}', {
      params: { ...slug, query: { units: 'pch', limit: 5 } },
    });
    const revisions = await client.get('/api/v1/observations', {
      params: { query: { series: macro.key, limit: 5 } },
    });
    // One type for every answer of the path: a union of two whole bodies, never `unknown[]` rows.
    expectTypeOf(transformed).toEqualTypeOf<typeof revisions>();
    expectTypeOf(transformed.data).not.toEqualTypeOf<unknown[]>();
    expect(transformed.meta.view).toBe('transformed');
    expect(revisions.meta.view).toBe('revisions');
    expect(isTransformedView(transformed)).toBe(true);
    expect(isTransformedView(revisions)).toBe(false);
    if (isTransformedView(transformed)) {
      expectTypeOf(transformed.data[0]!.level).toEqualTypeOf<number | null>();
      expectTypeOf(transformed.meta.transform.units).toEqualTypeOf<
        'lin' | 'chg' | 'ch1' | 'pch' | 'pc1' | 'pca' | 'cch' | 'cca' | 'log'
      >();
      expect(transformed.meta.transform.units).toBe('pch');
      expect(transformed.data.length).toBeGreaterThan(0);
      for (const row of transformed.data) expect(typeof row.complete).toBe('boolean');
    }
    if (isRevisionsView(revisions)) {
      expectTypeOf(revisions.data[0]!.in_force).toEqualTypeOf<boolean>();
      expect(revisions.data.length).toBeGreaterThan(0);
      for (const row of revisions.data) expect(typeof row.in_force).toBe('boolean');
    }
    // The rows of paginate are either kind: the guard is for the body.
    expectTypeOf<PageRow<'/api/v1/macro/{slug}'>>().toEqualTypeOf<
      | components['schemas']['Observation']
      | components['schemas']['TransformedValue']
      | components['schemas']['VintageValue']
    >();
  });

  it('reads CSV as text', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const csv = await client.get('/api/v1/observations.csv', {
      params: { query: { series: macro.key, limit: 3 } },
    });
    expectTypeOf(csv).toEqualTypeOf<string>();
    expect(csv.split('\r\n')[0]).toMatch(/^[a-z_]+(,[a-z0-9_.]+)+$/);
  });

  it('throws MmdsApiError with the request id of the X-Request-Id header (404, 400)', async () => {
    const seen: string[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: key,
      fetch: async (request) => {
        const response = await fetch(request);
        seen.push(response.headers.get('x-request-id') ?? '');
        return response;
      },
    });
    const notFound = await client
      .get('/api/v1/series/{slug}', { params: { path: { slug: 'no-such-series' } } })
      .catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(MmdsApiError);
    expect(notFound).toMatchObject({ status: 404, code: 'not_found', retry_after: null });
    expect((notFound as MmdsApiError).request_id).toBe(seen.at(-1));
    expect((notFound as MmdsApiError).request_id).not.toBe('');

    const bad = await client
      .get('/api/v1/observations', { params: { query: { series: macro.key, limit: 0 } } })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(MmdsApiError);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect((bad as MmdsApiError).message).toMatch(/limit/);
    expect((bad as MmdsApiError).request_id).toBe(seen.at(-1));
  });

  it('throws a 401 for a key the server does not know', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'mmds_not_a_key' });
    const error = await client
      .get('/api/v1/observations', { params: { query: { series: macro.key } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MmdsApiError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('on a 429 whose Retry-After exceeds maxRetryWaitMs: throws at once, carrying retry_after', async () => {
    let requests = 0;
    const client = createClient({
      baseUrl: server.url,
      apiKey: limitedKey,
      maxRetries: 3,
      maxRetryWaitMs: 500,
      fetch: (request) => {
        requests += 1;
        return fetch(request);
      },
    });
    await client.get('/api/v1/observations', { params: { query: { series: macro.key, limit: 1 } } });
    const started = Date.now();
    const error = await client
      .get('/api/v1/observations', { params: { query: { series: macro.key, limit: 1 } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MmdsApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
    // A one-per-minute key: the server asks for tens of seconds, more than the client may wait.
    expect((error as MmdsApiError).retry_after).toBeGreaterThan(1);
    expect(requests).toBe(2);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a type error for a parameter the operation does not have', () => {
    const client = createClient({ baseUrl: server.url });
    // Type-level only (never called): tsc --noEmit fails if any of these stop being errors.
    const calls = () => [
      // @ts-expect-error `limt` is not a parameter of /api/v1/observations
      client.get('/api/v1/observations', { params: { query: { series: 'x', limt: 1 } } }),
      // @ts-expect-error the path parameter `slug` is required
      client.get('/api/v1/series/{slug}'),
      // @ts-expect-error no such path
      client.get('/api/v1/nothing', {}),
      // @ts-expect-error /api/v1/status has no pages
      client.paginate('/api/v1/status', {}),
    ];
    expect(typeof calls).toBe('function');
  });
});

describe('429 retries honour Retry-After (a loopback server answering 429 then 200)', () => {
  // The real server's rate window is a minute, too long for a test to wait; this loopback server
  // answers the API's own 429 envelope with a Retry-After of 1 s, the given number of times.
  async function withLoopback(
    failures: number,
    run: (url: string, served: () => number) => Promise<void>,
  ): Promise<void> {
    let served = 0;
    const loopback = createServer((_req, res) => {
      served += 1;
      if (served <= failures) {
        res.writeHead(429, {
          'Content-Type': 'application/json',
          'Retry-After': '1',
          'X-Request-Id': `r${served}`,
        });
        res.end(
          JSON.stringify({ error: { code: 'rate_limited', message: 'slow down', request_id: `r${served}` } }),
        );
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: [], meta: { api_version: 'v1' } }));
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    const { port } = loopback.address() as AddressInfo;
    try {
      await run(`http://127.0.0.1:${port}`, () => served);
    } finally {
      await new Promise((resolve) => loopback.close(resolve));
    }
  }

  it('waits Retry-After, then succeeds', async () => {
    await withLoopback(1, async (url, served) => {
      const client = createClient({ baseUrl: url, maxRetries: 2 });
      const started = Date.now();
      const payload = await client.get('/api/v1/fx/ecb');
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(payload.data).toEqual([]);
      expect(served()).toBe(2);
    });
  });

  it('gives up after maxRetries with the typed error', async () => {
    await withLoopback(5, async (url, served) => {
      const client = createClient({ baseUrl: url, maxRetries: 1 });
      const error = await client.get('/api/v1/fx/ecb').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MmdsApiError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limited', request_id: 'r2', retry_after: 1 });
      expect(served()).toBe(2);
    });
  });
});

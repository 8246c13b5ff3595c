import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { ROUTES, SCOPES, type Scope } from '../../../src/contract/routes.ts';
import { createKey } from '../../../src/keys/key-codec.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { useSharedSample } from '../../helpers/shared-sample-build.ts';
import type { SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

// The server checks expiry and grace deadlines against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();
// Every refused key is counted against the client IP; the matrix sends far more than 60 of those.
const ANONYMOUS_LIMIT = 10_000;
/** The report dates of gold (088691) in the sample's legacy COT file, oldest first. */
const GOLD_LEGACY_WEEKS = readFileSync(
  join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt'),
  'utf8',
)
  .split('\n')
  .map((line) => /^"[^"]*",\d{6},(\d{4}-\d{2}-\d{2}),088691,/.exec(line)?.[1])
  .filter((date) => date !== undefined)
  .sort();
const PAYROLLS = 'bls.CES0000000001';

interface Endpoint {
  name: string;
  path: string;
  scope: Scope;
}

interface Reply {
  response: Response;
  text: string;
  body: { error?: { code: string; message: string; request_id: string } } & Record<string, unknown>;
}

interface IssuedKey {
  key: string;
  id: string;
}

/** The slug the catalog gives a macro series (read from the catalog, not from an API response). */
function readMacroSlug(seriesKey: string): string {
  const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as {
    series: { key: string; slug: string; macro?: boolean }[];
  };
  const entry = catalog.series.find((series) => series.key === seriesKey && series.macro === true);
  if (!entry) throw new Error(`${seriesKey} is not a macro series of the catalog`);
  return entry.slug;
}

/** Every non-empty combination of scopes. */
function scopeCombinations(): Scope[][] {
  const combinations: Scope[][] = [];
  for (let mask = 1; mask < 1 << SCOPES.length; mask++) {
    combinations.push(SCOPES.filter((_, i) => mask & (1 << i)));
  }
  return combinations;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keyed tier over HTTP: who gets what', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let manifest: BuildManifest;
  /** The 401 body every bad key gets, without its request_id (taken from a malformed key). */
  let badKeyError: { code: string; message: string };

  // Endpoint 3 needs cot:history only for its keyed parameters (from here) or for the full history.
  const keyedEndpoints: Endpoint[] = [
    {
      name: '3 /markets/cot/gold?from=',
      path: '/api/v1/markets/cot/gold?from=2025-01-01',
      scope: 'cot:history',
    },
    {
      name: '3 /markets/cot/gold?sort_order=desc',
      path: '/api/v1/markets/cot/gold?sort_order=desc&limit=2',
      scope: 'cot:history',
    },
    { name: '5 /macro/<slug>', path: `/api/v1/macro/${readMacroSlug(PAYROLLS)}`, scope: 'macro:history' },
    { name: '8 /observations', path: `/api/v1/observations?series=${PAYROLLS}`, scope: 'observations:read' },
    {
      name: '5 /macro/<slug>?output_type=4',
      path: `/api/v1/macro/${readMacroSlug(PAYROLLS)}?output_type=4&realtime_start=1776-07-04&realtime_end=9999-12-31`,
      scope: 'macro:history',
    },
    {
      name: '8 /observations?vintage_dates=',
      path: `/api/v1/observations?series=${PAYROLLS}&output_type=2&vintage_dates=2025-08-01,2026-10-02`,
      scope: 'observations:read',
    },
    {
      name: '27 /series/<slug>/vintagedates',
      path: `/api/v1/series/${readMacroSlug(PAYROLLS)}/vintagedates`,
      scope: 'observations:read',
    },
    {
      name: '17 /macro/<slug>/revisions',
      path: `/api/v1/macro/${readMacroSlug(PAYROLLS)}/revisions`,
      scope: 'macro:history',
    },
    {
      name: '17 /observations/revisions',
      path: `/api/v1/observations/revisions?series=${PAYROLLS}`,
      scope: 'observations:read',
    },
    {
      name: '21 /observations/aligned',
      path: `/api/v1/observations/aligned?series=${PAYROLLS},ecb.USD&frequency=m`,
      scope: 'observations:read',
    },
    // Issue 35's surfaces: field selection, the point-in-time panel, the vintages view in CSV.
    {
      name: '8 /observations?fields=',
      path: `/api/v1/observations?series=${PAYROLLS}&fields=period,value`,
      scope: 'observations:read',
    },
    {
      name: '3 /markets/cot/gold?fields=&from=',
      path: '/api/v1/markets/cot/gold?from=2025-01-01&fields=report_date',
      scope: 'cot:history',
    },
    {
      name: '21 /observations/aligned?as_of=row',
      path: `/api/v1/observations/aligned?series=${PAYROLLS},ecb.USD&frequency=m&as_of=row`,
      scope: 'observations:read',
    },
    {
      name: '8 /observations vintages as CSV',
      path: `/api/v1/observations?series=${PAYROLLS}&output_type=4&realtime_start=1776-07-04&realtime_end=9999-12-31&format=csv`,
      scope: 'observations:read',
    },
  ];
  const publicPaths = [
    ...ROUTES.filter(
      (route) =>
        route.access.kind === 'public' && !route.path.includes(':slug') && route.prerender !== 'none',
    ).map((route) => route.path),
    '/api/v1/markets/cot/gold',
    '/api/v1/series/eur-usd',
  ];
  /** Public requests the server renders (no file): the series search, the public history's range and order. */
  const publicRendered = [
    '/api/v1/series/search?search_text=euro%20dollar',
    '/api/v1/series/eur-usd?sort_order=desc&limit=3',
    '/api/v1/series/eur-usd?observation_start=2025-01-01&observation_end=2025-01-31',
  ];

  const issue = async (args: string[]): Promise<IssuedKey> => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Matrix Org', ...args],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as IssuedKey;
  };

  const rotate = async (id: string, grace: string): Promise<IssuedKey> => {
    const run = await runMmds(['--json', 'keys', 'rotate', id, '--grace', grace], fixture.env, REAL_CLOCK);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as IssuedKey;
  };

  /** GETs a path and checks what every response must carry. */
  const call = async (path: string, authorization?: string): Promise<Reply> => {
    const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
    const response = await fetch(`${server.url}${path}`, { headers });
    const text = await response.text();
    // The iCalendar feed (endpoint 16, releases.ics) answers text/calendar and a format=csv request
    // CSV; their errors are JSON.
    const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
    if (!json)
      expect(response.headers.get('content-type'), path).toBe(
        path.includes('format=csv')
          ? 'text/csv; charset=utf-8; header=present'
          : 'text/calendar; charset=utf-8',
      );
    const body = (json ? JSON.parse(text) : { data: text, meta: {} }) as Reply['body'];
    const requestId = response.headers.get('x-request-id');
    expect(requestId, path).toMatch(/^[\w-]{8,}$/);
    const limit = Number(response.headers.get('x-ratelimit-limit'));
    const remaining = Number(response.headers.get('x-ratelimit-remaining'));
    expect(Number.isInteger(limit) && limit > 0, `X-RateLimit-Limit of ${path}`).toBe(true);
    expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
    if (response.status >= 400) {
      expect(Object.keys(body)).toEqual(['error']);
      expect(Object.keys(body.error!).sort()).toEqual(['code', 'message', 'request_id']);
      expect(body.error!.request_id).toBe(requestId);
      expect(response.headers.get('cache-control')).toBe('no-store');
    } else {
      expect(Object.keys(body).sort()).toEqual(['data', 'meta']);
      expect(response.headers.get('cache-control')).toEqual(
        authorization ? 'private, no-store' : expect.stringMatching(/^public, max-age=\d+$/),
      );
      if (new URL(path, server.url).pathname.startsWith('/api/v1/markets/cot/')) {
        expect(response.headers.get('vary')).toMatch(/(^|, *)Authorization(,|$)/);
      }
    }
    return { response, text, body };
  };

  const bearer = (key: string) => `Bearer ${key}`;

  /**
   * A bad key is refused with the same 401 everywhere, public endpoints included; a key with its
   * right secret that no longer works (revoked, expired, rotated out) is told why (`reason`).
   */
  const expectRefusedEverywhere = async (authorization: string, reason?: RegExp) => {
    for (const path of [
      ...keyedEndpoints.map((endpoint) => endpoint.path),
      ...publicPaths,
      ...publicRendered,
    ]) {
      const { response, body } = await call(path, authorization);
      expect(response.status, `${path} with ${authorization.slice(0, 20)}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      const { request_id: _id, ...rest } = body.error!;
      if (reason) {
        expect(rest.code).toBe('unauthorized');
        expect(rest.message).toMatch(reason);
      } else expect(rest).toEqual(badKeyError);
      // Refused keys get no budget of their own: they are counted against the client IP.
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(ANONYMOUS_LIMIT));
    }
  };

  const expectAccepted = async (key: string, endpoints: readonly Endpoint[]) => {
    for (const endpoint of endpoints) {
      const { response } = await call(endpoint.path, bearer(key));
      expect(response.status, endpoint.name).toBe(200);
    }
  };

  beforeAll(async () => {
    // The shared build (its dist/ read-only) with a data directory of this file's own.
    fixture = await useSharedSample();
    manifest = JSON.parse(readFileSync(join(fixture.env.MMDS_DIST_DIR!, BUILD_MANIFEST_FILE), 'utf8'));
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.env.MMDS_DIST_DIR,
      anonymousLimit: ANONYMOUS_LIMIT,
    });
    const malformed = await call(keyedEndpoints[0]!.path, 'Bearer abc');
    expect(malformed.response.status).toBe(401);
    const { request_id: _id, ...rest } = malformed.body.error!;
    badKeyError = rest;
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('serves the public endpoints anonymously, from the build in memory (status is always live)', async () => {
    expect(manifest.snapshot).toBe(fixture.snapshotId);
    for (const path of publicPaths) {
      const { response, body } = await call(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(ANONYMOUS_LIMIT));
      if (path === '/api/v1/status') continue;
      const route = manifest.routes.find((r) => r.path === path && Object.keys(r.query).length === 0);
      const file = manifest.files.find((f) => f.file === `/${route?.file}`);
      expect(response.headers.get('etag'), path).toBe(file?.etag);
      if (path === '/api/v1/markets/cot/gold') {
        // Rule 1 holds on the built file as well: the 12 latest weeks only. The sample's legacy
        // file (gold's default report) holds fewer weeks than that, so all of them.
        const { data, meta } = body as { data: Array<{ report_date: string }>; meta: { window: unknown } };
        const shown = GOLD_LEGACY_WEEKS.slice(-12);
        expect(data.map((row) => row.report_date)).toEqual(shown);
        expect(meta.window).toEqual({
          reports: shown.length,
          limit: 12,
          from: shown[0],
          to: shown.at(-1),
          full_history: false,
        });
      }
    }
  });

  it('answers the rendered public requests without a key and with any valid key alike', async () => {
    const { key } = await issue(['--scopes', 'bulk:read']);
    for (const path of publicRendered) {
      const anonymous = await call(path);
      expect(anonymous.response.status, path).toBe(200);
      const keyed = await call(path, bearer(key));
      expect(keyed.response.status, path).toBe(200);
      expect((keyed.body as { data: unknown }).data, path).toEqual(
        (anonymous.body as { data: unknown }).data,
      );
      expect((anonymous.body as { data: unknown[] }).data.length, path).toBeGreaterThan(0);
    }
  });

  it('answers 401 with WWW-Authenticate: Bearer to a keyed request without a key', async () => {
    for (const endpoint of keyedEndpoints) {
      const { response, body } = await call(endpoint.path);
      expect(response.status, endpoint.name).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(body.error!.code).toBe('unauthorized');
      expect(body.error!.message).toContain(endpoint.scope);
    }
  });

  it('refuses a malformed key (Bearer abc) on every endpoint', async () => {
    expect(badKeyError.code).toBe('unauthorized');
    await expectRefusedEverywhere('Bearer abc');
  });

  it('refuses a well-formed key whose checksum is wrong, though the key itself works', async () => {
    const { key } = await issue(['--scopes', SCOPES.join(',')]);
    await expectAccepted(key, keyedEndpoints);
    const last = key.at(-1)!;
    const mistyped = `${key.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`;
    await expectRefusedEverywhere(bearer(mistyped));
  });

  it('refuses a well-formed key with a valid checksum and an unknown id', async () => {
    await expectRefusedEverywhere(bearer(createKey().plaintext));
  });

  it('refuses a key once it has expired (real clock)', async () => {
    // Whole seconds, two of them ahead: the CLI takes YYYY-MM-DDTHH:MM:SSZ.
    const expiresAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000);
    const expires = expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const { key } = await issue(['--scopes', SCOPES.join(','), '--expires', expires]);
    await expectAccepted(key, keyedEndpoints);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    await expectRefusedEverywhere(bearer(key), /^the API key has expired; ask its issuer for a new one$/);
  });

  it('refuses a revoked key from the next request on', async () => {
    const { key, id } = await issue(['--scopes', SCOPES.join(',')]);
    await expectAccepted(key, keyedEndpoints);
    const run = await runMmds(['keys', 'revoke', id], fixture.env, REAL_CLOCK);
    expect(run.code, run.stderr).toBe(0);
    await expectRefusedEverywhere(bearer(key), /^the API key was revoked; ask its issuer for a new one$/);
    // The same id with another secret is just "not valid": test/reliability/secrets.test.ts.
  });

  it('accepts both the old and the new key while a rotation grace period runs', async () => {
    const old = await issue(['--scopes', SCOPES.join(',')]);
    const replacement = await rotate(old.id, '1h');
    expect(replacement.key).not.toBe(old.key);
    await expectAccepted(old.key, keyedEndpoints);
    await expectAccepted(replacement.key, keyedEndpoints);
  });

  it('refuses the old key after a rotation without grace and accepts the new one', async () => {
    const old = await issue(['--scopes', SCOPES.join(',')]);
    await expectAccepted(old.key, keyedEndpoints);
    const replacement = await rotate(old.id, '0');
    await expectRefusedEverywhere(
      bearer(old.key),
      /^the API key was replaced by a rotation and its grace period is over/,
    );
    await expectAccepted(replacement.key, keyedEndpoints);
  });

  describe.each(scopeCombinations().map((scopes) => [scopes.join(','), scopes] as const))(
    'a key with scopes %s',
    (_label, scopes) => {
      let key: IssuedKey;
      beforeAll(async () => {
        key = await issue(['--scopes', scopes.join(',')]);
      });

      it('gets 200 where it holds the scope and 403 insufficient_scope elsewhere', async () => {
        for (const endpoint of keyedEndpoints) {
          const { response, body } = await call(endpoint.path, bearer(key.key));
          expect(response.headers.get('x-ratelimit-limit')).toBe('60');
          if (scopes.includes(endpoint.scope)) {
            expect(response.status, endpoint.name).toBe(200);
            continue;
          }
          expect(response.status, endpoint.name).toBe(403);
          expect(body.error!.code).toBe('insufficient_scope');
          expect(response.headers.get('www-authenticate')).toBe(
            `Bearer error="insufficient_scope", scope="${endpoint.scope}"`,
          );
        }
      });

      it('gets every public endpoint, privately, and the full COT history only with cot:history', async () => {
        for (const path of publicPaths) {
          const { response } = await call(path, bearer(key.key));
          expect(response.status, path).toBe(200);
        }
        const { body } = await call('/api/v1/markets/cot/gold', bearer(key.key));
        const window = (body.meta as { window: { full_history: boolean } }).window;
        expect(window.full_history).toBe(scopes.includes('cot:history'));
      });
    },
  );
});

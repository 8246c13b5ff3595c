import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

interface Body {
  data?: unknown[];
  meta?: { filters?: Record<string, unknown> };
  error?: { code: string; message: string };
}

/**
 * What a newcomer trips on in the first hour (issue 23, "Smaller"): ISO codes in lower case work
 * on every filter as on /fx/ecb, from the build (the fast path) and from the server alike; a 401
 * on a `.csv` path speaks of the CSV form, not of a `format` parameter nobody sent.
 */
describe('the first hour: case-insensitive codes and plain 401s', () => {
  let fixture: SharedSampleFixture;
  let server: TestServer;
  let manifest: BuildManifest;

  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { response, body: (await response.json()) as Body };
  };

  beforeAll(async () => {
    fixture = await useSharedSample();
    manifest = JSON.parse(readFileSync(join(fixture.env.MMDS_DIST_DIR!, BUILD_MANIFEST_FILE), 'utf8'));
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.env.MMDS_DIST_DIR,
      anonymousLimit: 10_000,
    });
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it.each([
    ['/api/v1/series', 'country', 'US'],
    ['/api/v1/series', 'currency', 'USD'],
    ['/api/v1/reference/venues', 'country', 'US'],
  ])('%s?%s= in lower case answers what upper case does', async (path, name, code) => {
    const upper = await get(`${path}?${name}=${code}`);
    const lower = await get(`${path}?${name}=${code.toLowerCase()}`);
    const mixed = await get(`${path}?${name}=${code[0]}${code.slice(1).toLowerCase()}`);
    expect(upper.response.status).toBe(200);
    expect(upper.body.data!.length).toBeGreaterThan(0);
    for (const other of [lower, mixed]) {
      expect(other.response.status).toBe(200);
      expect(other.body.data).toEqual(upper.body.data);
      expect(other.body.meta!.filters).toEqual(upper.body.meta!.filters);
    }
    // The build holds the lower-case spelling too, so a static host answers it from a file.
    const spellings = manifest.routes
      .filter((route) => route.path === path && route.query[name] !== undefined)
      .map((route) => route.query[name]);
    expect(spellings).toEqual(expect.arrayContaining([code, code.toLowerCase()]));
  });

  it('still refuses a code that is not one, in any case', async () => {
    for (const query of ['country=usa', 'country=u1', 'currency=us', 'country=zz']) {
      const { response, body } = await get(`/api/v1/series?${query}`);
      expect(response.status, query).toBe(400);
      expect(body.error!.message).toMatch(/such as (US or us|USD or usd),/);
    }
  });

  it('a .csv path without a key is a 401 about the CSV form, not about a format parameter', async () => {
    const { response, body } = await get('/api/v1/markets/cot/gold.csv');
    expect(response.status).toBe(401);
    expect(body.error!.message).toBe(
      'the CSV form of this endpoint (.csv) needs an API key with scope cot:history: send Authorization: Bearer <key>',
    );
    // Asked for by name, format is what the message names.
    const named = await get('/api/v1/markets/cot/gold?format=csv');
    expect(named.response.status).toBe(401);
    expect(named.body.error!.message).toMatch(/^parameter format needs an API key with scope cot:history/);
  });
});

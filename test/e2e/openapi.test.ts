import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../src/build/build-manifest.ts';
import { createOpenApiDocument, OPENAPI_PATH } from '../../src/contract/openapi.ts';
import { PARAMS } from '../../src/contract/params.ts';
import { ROUTES, type RouteDefinition, SCOPES } from '../../src/contract/routes.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../helpers/paths.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

// biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the assertions check
type Json = Record<string, any>;

const doc = createOpenApiDocument() as Json;
const COMPONENTS_ID = 'urn:mmds:openapi-components';
// The server checks key expiry against the real clock, so keys are issued with it too.
const REAL_CLOCK = () => new Date();

/** `#/components/schemas/X` as a reference into the schema registered under COMPONENTS_ID. */
function rebase<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`),
  ) as T;
}

/**
 * The document leaves objects open for forward compatibility; the test closes every object
 * that lists its properties, so a payload field the document lacks fails as surely as a
 * documented field the payload lacks (every listed field is required).
 */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = closeObjects(value);
  if ('properties' in out) out.unevaluatedProperties = false;
  return out;
}

function createAjv(closed: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats.default(ajv);
  const defs = doc.components.schemas as Json;
  ajv.addSchema(
    { $id: COMPONENTS_ID, $defs: rebase(closed ? (closeObjects(defs) as Json) : defs) },
    COMPONENTS_ID,
  );
  return ajv;
}

const resolve = (value: Json): Json =>
  typeof value.$ref === 'string'
    ? (value.$ref as string)
        .slice(2)
        .split('/')
        .reduce((node: Json, part) => node[part.replaceAll('~1', '/').replaceAll('~0', '~')], doc)
    : value;

/** The document's operation for a request path, by its template. */
function findOperation(pathname: string): { template: string; operation: Json } | null {
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return { template, operation: item.get };
  }
  return null;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (the official JSON Schema of the specification)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('holds JSON Schema 2020-12 that compiles in strict mode (no unknown keyword, no dangling $ref)', () => {
    const ajv = createAjv(false);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`${COMPONENTS_ID}#/$defs/${name}`), name).not.toThrow();
    }
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [status, response] of Object.entries(item.get.responses as Json)) {
        for (const [type, media] of Object.entries((resolve(response).content ?? {}) as Json)) {
          expect(() => ajv.compile(rebase(media.schema)), `${path} ${status} ${type}`).not.toThrow();
        }
      }
      for (const parameter of item.get.parameters as Json[]) {
        expect(() => ajv.compile(parameter.schema), `${path} ${parameter.name}`).not.toThrow();
      }
    }
  });

  it('has exactly the paths of the route table, each with its parameters, access and formats', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      ROUTES.map((r) => r.path.replace(':slug', '{slug}')).sort(),
    );
    const ids = new Set<string>();
    for (const route of ROUTES) {
      const operation = doc.paths[route.path.replace(':slug', '{slug}')].get as Json;
      ids.add(operation.operationId);
      expect(Object.keys(doc.paths[route.path.replace(':slug', '{slug}')])).toEqual(['get']);
      const query = (operation.parameters as Json[]).filter((p) => p.in === 'query');
      expect(query.map((p) => p.name)).toEqual([...route.query]);
      for (const parameter of query) {
        const spec = PARAMS[parameter.name as keyof typeof PARAMS];
        expect(parameter.schema).toEqual(spec.openapi);
        expect(parameter.required).toBe('required' in spec && spec.required === true);
        expect(parameter['x-keyed-only'] === true).toBe('keyedOnly' in spec && spec.keyedOnly === true);
      }
      const path = (operation.parameters as Json[]).filter((p) => p.in === 'path');
      expect(path.map((p) => p.name)).toEqual(route.path.includes(':slug') ? ['slug'] : []);
      expect(operation['x-cache-max-age']).toBe(route.maxAge);
      const scope = route.access.kind === 'public' ? undefined : route.access.scope;
      expect(operation['x-required-scope']).toBe(scope);
      // Anonymous access is the empty requirement; a scope route has none.
      expect(operation.security.some((s: Json) => Object.keys(s).length === 0)).toBe(
        route.access.kind !== 'scope',
      );
      const statuses = Object.keys(operation.responses);
      expect(statuses.includes('403')).toBe(scope !== undefined);
      for (const status of ['200', '304', '400', '401', '429', '500', '503'])
        expect(statuses).toContain(status);
      const media = Object.keys(operation.responses['200'].content);
      expect(media).toEqual(
        route.query.includes('format') ? ['application/json', 'text/csv'] : ['application/json'],
      );
    }
    expect(ids.size).toBe(ROUTES.length);
    const description = doc.components.securitySchemes.bearerAuth.description as string;
    for (const scope of SCOPES) expect(description).toContain(scope);
  });
});

describe('real responses of the server against the document', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let empty: { dir: string; remove: () => void };
  let emptyServer: TestServer;
  let keys: { all: string; other: Record<string, string>; limited: string; emptyAll: string };
  let closedAjv: Ajv2020;
  const validators = new Map<unknown, ValidateFunction>();
  /** `<template> <status>` of every response checked. */
  const seen = new Set<string>();

  const catalog = parseYaml(readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8')) as {
    series: { key: string; slug: string; macro?: boolean }[];
    markets: { slug: string }[];
  };
  const market = catalog.markets[0]!.slug;
  const macro = catalog.series.find((s) => s.macro)!;
  const FILTERS: Record<string, string> = { country: 'US', region: '150', currency: 'USD' };

  const issue = async (env: Record<string, string>, scopes: string, extra: string[] = []) => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'OpenAPI test', '--scopes', scopes, ...extra],
      env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  const samplePath = (route: RouteDefinition) =>
    route.path.replace(':slug', route.id === 'cot-market' ? market : macro.slug) +
    (route.query.includes('series') ? `?series=${macro.key}` : '');
  const keyFor = (route: RouteDefinition) => (route.access.kind === 'scope' ? keys.all : undefined);

  /** Fetches and checks status, headers and body against the document; returns the response. */
  async function check(
    path: string,
    options: {
      key?: string;
      status: number;
      method?: string;
      headers?: Record<string, string>;
      base?: string;
    },
  ): Promise<{ response: Response; text: string }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    const response = await fetch(`${options.base ?? server.url}${path}`, {
      method: options.method ?? 'GET',
      headers,
    });
    const text = await response.text();
    expect(response.status, `${options.method ?? 'GET'} ${path}: ${text.slice(0, 300)}`).toBe(options.status);
    const pathname = new URL(path, server.url).pathname;
    const found = findOperation(pathname);
    expect(found, `${pathname} is documented`).not.toBeNull();
    const documented =
      options.status === 405
        ? doc.components.responses['405']
        : found!.operation.responses[String(options.status)];
    expect(documented, `${found!.template} documents ${options.status}`).toBeDefined();
    const spec = resolve(documented);
    for (const [name, header] of Object.entries((spec.headers ?? {}) as Json)) {
      const definition = resolve(header);
      const value = response.headers.get(name);
      if (definition.required) expect(value, `${path} ${options.status} header ${name}`).not.toBeNull();
      if (value === null) continue;
      const typed = definition.schema.type === 'integer' ? Number(value) : value;
      expect(validatorOf(definition.schema)(typed), `${name}: ${value}`).toBe(true);
    }
    if (options.status !== 304) {
      const type = response.headers.get('content-type')!.split(';')[0]!.trim();
      const media = spec.content?.[type];
      expect(media, `${path} answers a documented media type (${type})`).toBeDefined();
      const body = type === 'application/json' ? JSON.parse(text) : text;
      const validate = validatorOf(media.schema);
      expect(
        validate(body),
        `${path} ${options.status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
      ).toBe(true);
    }
    seen.add(`${found!.template} ${options.status}`);
    return { response, text };
  }

  function validatorOf(schema: unknown): ValidateFunction {
    let validate = validators.get(schema);
    if (!validate) {
      validate = closedAjv.compile(rebase(closeObjects(schema)) as Json);
      validators.set(schema, validate);
    }
    return validate;
  }

  beforeAll(async () => {
    closedAjv = createAjv(true);
    fixture = await createSampleSnapshot();
    const build = await runMmds(['build'], fixture.env);
    expect(build.code, build.stderr).toBe(0);
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: fixture.env.MMDS_DIST_DIR,
      anonymousLimit: 10_000,
    });
    const other: Record<string, string> = {};
    for (const scope of SCOPES) {
      other[scope] = await issue(fixture.env, SCOPES.filter((s) => s !== scope).join(','));
    }
    keys = {
      all: await issue(fixture.env, SCOPES.join(','), ['--rate-limit', '10000']),
      other,
      limited: await issue(fixture.env, SCOPES[0], ['--rate-limit', '1']),
      emptyAll: '',
    };
    // A data directory without a snapshot: every endpoint is 503.
    empty = createTempDir('mmds-openapi-empty-');
    const emptyEnv = { MMDS_DATA_DIR: empty.dir };
    keys.emptyAll = await issue(emptyEnv, SCOPES.join(','));
    emptyServer = await startTestServer({ dataDir: empty.dir, anonymousLimit: 10_000 });
  });
  afterAll(async () => {
    await server?.close();
    await emptyServer?.close();
    fixture?.remove();
    empty?.remove();
  });

  it('sample filter values exist in the sample reference lists', () => {
    const countries = readFileSync(join(SAMPLE_DATA, 'reference/country-codes.csv'), 'utf8');
    expect(countries).toMatch(new RegExp(`,${FILTERS.country},`));
    // ISO 4217 in the sample is SIX's list one (current) and list three (historic), as XML.
    const listOne = readFileSync(join(SAMPLE_DATA, 'reference/iso4217_list_one_table_a1.xml'), 'utf8');
    expect(listOne).toContain(`<Ccy>${FILTERS.currency}</Ccy>`);
    expect(readFileSync(join(SAMPLE_DATA, 'reference/unsd_m49_overview_en.csv'), 'utf8')).toMatch(
      new RegExp(`\\b${FILTERS.region}\\b`),
    );
  });

  it('answers every documented path with a 200 that matches its schema, and a 304 on its ETag', async () => {
    for (const route of ROUTES) {
      const path = samplePath(route);
      const { response } = await check(path, { key: keyFor(route), status: 200 });
      const etag = response.headers.get('etag')!;
      await check(path, { key: keyFor(route), status: 304, headers: { 'If-None-Match': etag } });
      for (const name of route.query.filter((n) => n in FILTERS)) {
        await check(`${path}?${name}=${FILTERS[name]}`, { status: 200 });
      }
    }
  });

  it('matches the keyed forms: full history, paging with Link, CSV', async () => {
    const cot = `/api/v1/markets/cot/${market}`;
    const { text } = await check(`${cot}?limit=2`, { key: keys.all, status: 200 });
    expect(JSON.parse(text).meta.window.full_history).toBe(true);
    const paged = await check(`/api/v1/observations?series=${macro.key}&limit=1`, {
      key: keys.all,
      status: 200,
    });
    expect(paged.response.headers.get('link')).toMatch(/rel="next"/);
    expect(JSON.parse(paged.text).meta.next_cursor).toEqual(expect.any(String));
    for (const route of ROUTES.filter((r) => r.query.includes('format'))) {
      const csv = await check(`${samplePath(route)}${route.query.includes('series') ? '&' : '?'}format=csv`, {
        key: keys.all,
        status: 200,
      });
      expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
    }
    const asOf = await check(`/api/v1/macro/${macro.slug}?as_of=2026-01-01T00:00:00Z`, {
      key: keys.all,
      status: 200,
    });
    expect(JSON.parse(asOf.text).meta.as_of).toBe('2026-01-01T00:00:00Z');
  });

  it('answers the documented errors in the documented envelope and headers', async () => {
    for (const route of ROUTES) {
      const path = samplePath(route);
      const join = path.includes('?') ? '&' : '?';
      await check(`${path}${join}no_such_parameter=1`, { key: keyFor(route), status: 400 });
      await check(path, { key: 'mmds_not_a_key', status: 401 });
      await check(path, { method: 'POST', status: 405 });
      if (route.access.kind !== 'public') {
        const keyedParam = route.access.kind === 'scope' ? '' : `${join}limit=5`;
        if (route.access.kind === 'scope') await check(path, { status: 401 });
        else await check(`${path}${keyedParam}`, { status: 401 });
        await check(`${path}${keyedParam}`, { key: keys.other[route.access.scope], status: 403 });
      }
      if (route.path.includes(':slug')) {
        await check(route.path.replace(':slug', 'no-such-slug'), { key: keys.all, status: 404 });
      }
      if (route.query.includes('series')) {
        await check(`${route.path}?series=bls.NO_SUCH_SERIES`, { key: keys.all, status: 404 });
      }
      await check(path, {
        key: keyFor(route) ? keys.emptyAll : undefined,
        status: 503,
        base: emptyServer.url,
      });
    }
    await check('/api/v1/series?country=ZZ', { status: 400 });
    await check(`/api/v1/observations?series=${macro.key}&as_of=2999-01-01T00:00:00Z`, {
      key: keys.all,
      status: 400,
    });
  });

  it('answers 429 with Retry-After once a key has spent its limit', async () => {
    await check('/api/v1/status', { key: keys.limited, status: 200 });
    for (const route of ROUTES) {
      const { response } = await check(samplePath(route), { key: keys.limited, status: 429 });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('serves the document itself at /api/v1/openapi.json from the build', async () => {
    const manifest = JSON.parse(
      readFileSync(join(fixture.env.MMDS_DIST_DIR!, BUILD_MANIFEST_FILE), 'utf8'),
    ) as BuildManifest;
    expect(manifest.routes.find((r) => r.path === OPENAPI_PATH)?.cache_control).toBe('public, max-age=3600');
    expect(existsSync(join(fixture.env.MMDS_DIST_DIR!, OPENAPI_PATH))).toBe(true);
    const response = await fetch(`${server.url}${OPENAPI_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(await response.json()).toEqual(doc);
  });

  it('checked every documented response of every path but 500', () => {
    const missing: string[] = [];
    for (const [template, item] of Object.entries(doc.paths as Json)) {
      for (const status of Object.keys(item.get.responses)) {
        if (status !== '500' && !seen.has(`${template} ${status}`)) missing.push(`${template} ${status}`);
      }
      if (!seen.has(`${template} 405`)) missing.push(`${template} 405`);
    }
    expect(missing).toEqual([]);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../src/build/build-manifest.ts';
import { API_INDEX_PATH, createOpenApiDocument, OPENAPI_PATH } from '../../src/contract/openapi.ts';
import type { ParamName } from '../../src/contract/params.ts';
import {
  CSV_PATH_SUFFIX,
  documentedPath,
  paramSpec,
  ROUTES,
  type RouteDefinition,
  SCOPES,
} from '../../src/contract/routes.ts';
import { createBulkPublicPathItems } from '../../src/contract/schemas/bulk.ts';
import { createBulkFullFilePathItems } from '../../src/contract/schemas/bulk-full.ts';
import { MCP_PATH } from '../../src/contract/schemas/mcp.ts';
import { TAGGED_BY } from '../../src/contract/schemas/transforms.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../helpers/paths.ts';
import { runMmds } from '../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { useSharedSample } from '../helpers/shared-sample-build.ts';
import type { SnapshotFixture } from '../helpers/snapshot-fixture.ts';
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
  // OpenAPI's discriminator is an annotation here (Ajv's own refuses `mapping`); the oneOf and the
  // const of each shape validate, and a test below checks that the mapping agrees with them.
  ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
  // x-tagged-by names the nested tag of a union a discriminator cannot (a test below checks it).
  ajv.addKeyword({ keyword: TAGGED_BY, schemaType: 'string' });
  const defs = doc.components.schemas as Json;
  ajv.addSchema(
    { $id: COMPONENTS_ID, $defs: rebase(closed ? (closeObjects(defs) as Json) : defs) },
    COMPONENTS_ID,
  );
  return ajv;
}

const resolve = (value: Json, root: Json = doc): Json =>
  typeof value.$ref === 'string'
    ? (value.$ref as string)
        .slice(2)
        .split('/')
        .reduce((node: Json, part) => node[part.replaceAll('~1', '/').replaceAll('~0', '~')], root)
    : value;

/**
 * The document's operation for a request path, by its template: of several that match
 * (`/macro/{slug}` and `/macro/{slug}.csv`), the one with the most literal characters.
 */
function findOperation(pathname: string, method = 'GET'): { template: string; operation: Json } | null {
  let found: { template: string; operation: Json } | null = null;
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`);
    const literal = (t: string) => t.replace(/\{[^}]+\}/g, '').length;
    if (pattern.test(pathname) && (!found || literal(template) > literal(found.template)))
      found = { template, operation: item[method.toLowerCase()] ?? item.get };
  }
  return found;
}

/** Paths outside the route table: the public bulk files (src/contract/schemas/bulk.ts). */
const BULK_PUBLIC_PATHS = createBulkPublicPathItems().map(([path]) => path);

/** Every operation of the document: per route its JSON one, and the CSV one of a route with `format`. */
const OPERATIONS = ROUTES.flatMap((route) =>
  route.query.includes('format')
    ? [
        { route, csv: false },
        { route, csv: true },
      ]
    : [{ route, csv: false }],
);
const templateOf = (route: RouteDefinition, csv: boolean) =>
  documentedPath(route) + (csv ? CSV_PATH_SUFFIX : '');

/**
 * 405 is answered on every path but is no operation's response (OpenAPI describes the methods a
 * path has); the introduction describes it: the error envelope with Allow.
 */
const methodNotAllowed = (allow: string): Json => ({
  headers: {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
    Allow: { required: true, schema: { type: 'string', const: allow } },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const METHOD_NOT_ALLOWED = methodNotAllowed('GET, HEAD, OPTIONS');

/** The operations of a path item (GET everywhere but POST /mcp). */
const operationsOf = (item: Json): Json[] =>
  ['get', 'post'].flatMap((method) => (item[method] ? [item[method]] : []));

/** Every `anyOf`/`oneOf` in the document with more than one alternative besides `{type: 'null'}`. */
function findUnions(node: unknown, at: string, out: { at: string; schema: Json }[] = []) {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) findUnions(item, `${at}/${i}`, out);
  } else if (node !== null && typeof node === 'object') {
    for (const keyword of ['anyOf', 'oneOf']) {
      const options = (node as Json)[keyword];
      if (Array.isArray(options) && options.filter((o: Json) => o.type !== 'null').length > 1)
        out.push({ at: `${at}/${keyword}`, schema: node as Json });
    }
    for (const [key, value] of Object.entries(node)) findUnions(value, `${at}/${key}`, out);
  }
  return out;
}

/** The JSON 200 body of a path's GET. */
const bodyOf = (path: string): Json =>
  doc.paths[path].get.responses['200'].content['application/json'].schema;

/**
 * What is wrong with the tag of a union of object shapes (empty: nothing). A oneOf, so that exactly
 * one shape applies, tagged either by an OpenAPI discriminator that agrees with the shapes (a
 * top-level property: its mapping lists every shape, each requires the property with that const), or,
 * where the tag is nested (meta.view), by `x-tagged-by` with its dotted path: every shape requires
 * each step of the path and has a const of its own at its end.
 */
function unionProblems(at: string, schema: Json, root: Json = doc): string[] {
  const options = (schema.oneOf ?? schema.anyOf) as Json[];
  if (!schema.oneOf) return [`${at}: an anyOf, not a oneOf`];
  const discriminator = schema.discriminator as Json | undefined;
  const taggedBy = schema[TAGGED_BY] as string | undefined;
  if ((discriminator === undefined) === (taggedBy === undefined))
    return [`${at}: needs a discriminator or ${TAGGED_BY}, one of the two`];
  const problems: string[] = [];
  if (discriminator) {
    const mapping = discriminator.mapping as Record<string, string>;
    const name = discriminator.propertyName as string;
    if (JSON.stringify(Object.values(mapping).sort()) !== JSON.stringify(options.map((o) => o.$ref).sort()))
      problems.push(`${at}: the mapping lists other shapes than the oneOf`);
    for (const [value, target] of Object.entries(mapping)) {
      const shape = resolve({ $ref: target }, root);
      if (!shape.required?.includes(name)) problems.push(`${target} does not require ${name}`);
      if (shape.properties?.[name]?.const !== value)
        problems.push(`${target}: ${name} is not const ${value}`);
    }
    return problems;
  }
  // A $ref, or a one-member allOf of one (a $ref with a description): the schema it stands for.
  const shapeOf = (value: Json): Json => {
    const node = resolve(value, root);
    return Array.isArray(node.allOf) && node.allOf.length === 1 ? shapeOf(node.allOf[0]) : node;
  };
  const values = options.map((option) => {
    let node = shapeOf(option);
    for (const step of taggedBy!.split('.')) {
      if (!node.required?.includes(step) || !node.properties?.[step]) {
        problems.push(`${option.$ref ?? at} does not require ${step} of ${taggedBy}`);
        return undefined;
      }
      node = shapeOf(node.properties[step]);
    }
    if (typeof node.const !== 'string') problems.push(`${option.$ref ?? at}: ${taggedBy} has no const`);
    return node.const as string | undefined;
  });
  if (new Set(values).size !== values.length) problems.push(`${at}: two shapes share a ${taggedBy}`);
  return problems;
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
      for (const operation of operationsOf(item)) {
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          for (const [type, media] of Object.entries((resolve(response).content ?? {}) as Json)) {
            expect(() => ajv.compile(rebase(media.schema)), `${path} ${status} ${type}`).not.toThrow();
          }
        }
        for (const parameter of (operation.parameters ?? []) as Json[]) {
          expect(() => ajv.compile(parameter.schema), `${path} ${parameter.name}`).not.toThrow();
        }
        for (const media of Object.values((operation.requestBody?.content ?? {}) as Json))
          expect(() => ajv.compile(rebase(media.schema)), `${path} request body`).not.toThrow();
      }
    }
  });

  it('has exactly the paths of the route table, each with its parameters, access and formats', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        API_INDEX_PATH,
        ...OPERATIONS.map((o) => templateOf(o.route, o.csv)),
        ...BULK_PUBLIC_PATHS,
        ...createBulkFullFilePathItems('bearerAuth').map(([path]) => path),
        MCP_PATH,
      ].sort(),
    );
    const ids = new Set<string>();
    for (const { route, csv } of OPERATIONS) {
      const template = templateOf(route, csv);
      const operation = doc.paths[template].get as Json;
      ids.add(operation.operationId);
      expect(Object.keys(doc.paths[template])).toEqual(['get']);
      const query = (operation.parameters as Json[]).filter((p) => p.in === 'query');
      // The CSV operation takes the route's parameters but format, which its path implies.
      expect(query.map((p) => p.name)).toEqual(route.query.filter((n) => !(csv && n === 'format')));
      for (const parameter of query) {
        const spec = paramSpec(route, parameter.name as ParamName);
        expect(parameter.schema).toEqual(spec.openapi);
        expect(parameter.required).toBe('required' in spec && spec.required === true);
        // On a public route (endpoint 15's format) every parameter is open to all.
        expect(parameter['x-keyed-only'] === true).toBe('keyedOnly' in spec && spec.keyedOnly === true);
      }
      const path = (operation.parameters as Json[]).filter((p) => p.in === 'path');
      // Named as in the path template (and the README): {snapshot} on /bulk/{snapshot}, else {slug}.
      expect(path.map((p) => p.name)).toEqual(
        route.path.includes(':slug') ? [/\{(\w+)\}/.exec(documentedPath(route))![1]] : [],
      );
      if (route.pathParam === 'snapshot')
        expect(new RegExp(path[0]!.schema.pattern).test('20261124T084307Z-9da82ee8')).toBe(true);
      // format is keyed-only: where a key unlocks more, the CSV operation needs it (not the change feed's).
      const access =
        csv && route.access.kind === 'public-or-scope' && paramSpec(route, 'format').keyedOnly
          ? 'scope'
          : route.access.kind;
      expect(operation['x-access']).toBe(access);
      expect(operation['x-cache-max-age']).toBe(access === 'scope' ? 0 : route.maxAge);
      const scope = route.access.kind === 'public' ? undefined : route.access.scope;
      expect(operation['x-required-scope']).toBe(scope);
      // Anonymous access is the empty requirement; a scope operation has none.
      expect(operation.security.some((s: Json) => Object.keys(s).length === 0)).toBe(access !== 'scope');
      const statuses = Object.keys(operation.responses);
      // 403 where a scope can be missing: not on the change feed, which has no keyed-only parameter;
      // on endpoint 25 by the date asked for (COT reports older than the public window).
      const keyedParams = route.query.some((name) => paramSpec(route, name).keyedOnly === true);
      const cotWindow = route.id === 'cot-reports';
      expect(statuses.includes('403')).toBe(
        scope !== undefined && (access === 'scope' || keyedParams || cotWindow),
      );
      for (const status of ['200', '304', '400', '401', '429', '500', '503'])
        expect(statuses).toContain(status);
      // One success media type per operation: what lets a generator type the 200.
      const media = Object.keys(operation.responses['200'].content);
      expect(media).toEqual(csv ? ['text/csv'] : [route.mediaType ?? 'application/json']);
      if (route.query.includes('format') && !csv) {
        const format = query.find((p) => p.name === 'format')!;
        expect(format.description).toContain(`${template}${CSV_PATH_SUFFIX}`);
      }
    }
    expect(ids.size).toBe(OPERATIONS.length);
    const description = doc.components.securitySchemes.bearerAuth.description as string;
    for (const scope of SCOPES) expect(description).toContain(scope);
  });

  it('tags every union of object shapes: a discriminator, or x-tagged-by where the tag is nested', () => {
    const unions = findUnions(doc, '#');
    const body = (path: string) => `#/paths/${path}/get/responses/200/content/application/json/schema`;
    // The two views of /markets/cot/{slug} meta (a discriminator on view), and the two whole bodies
    // of endpoints 5 and 8, told apart by meta.view (x-tagged-by).
    expect(unions.map((u) => u.at)).toEqual(
      expect.arrayContaining([
        `${body('/api/v1/markets/cot/{slug}')}/properties/meta/oneOf`,
        `${body('/api/v1/macro/{slug}')}/oneOf`,
        `${body('/api/v1/observations')}/oneOf`,
      ]),
    );
    for (const path of ['/api/v1/macro/{slug}', '/api/v1/observations'])
      expect(bodyOf(path)[TAGGED_BY], path).toBe('meta.view');
    for (const { at, schema } of unions) expect(unionProblems(at, schema), at).toEqual([]);
  });

  it('the union rule finds an untagged union, a nested tag a shape lacks, and a shared tag value', () => {
    const views = bodyOf('/api/v1/observations');
    expect(unionProblems('#', views)).toEqual([]);
    expect(unionProblems('#', { oneOf: views.oneOf })).toEqual([
      `#: needs a discriminator or ${TAGGED_BY}, one of the two`,
    ]);
    // The transformed meta without a view, then with the revisions view's value.
    const copy = structuredClone(doc);
    const meta = copy.components.schemas.SeriesHistoryTransformedMeta as Json;
    meta.required = meta.required.filter((name: string) => name !== 'view');
    expect(unionProblems('#', views, copy)).toEqual([
      '#/components/schemas/SeriesHistoryTransformed does not require view of meta.view',
    ]);
    meta.required.push('view');
    meta.properties.view = { ...meta.properties.view, const: 'revisions' };
    expect(unionProblems('#', views, copy)).toEqual(['#: two shapes share a meta.view']);
  });

  it('has a relative server, a licence, a description on every tag, and every component used', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.info.description).toContain('/api/v1/sources');
    const used = new Set(
      Object.values(doc.paths as Json).flatMap((item) =>
        operationsOf(item).flatMap((o) => o.tags as string[]),
      ),
    );
    expect(doc.tags.map((t: Json) => t.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags as Json[]) expect(tag.description, tag.name).toEqual(expect.any(String));
    const text = JSON.stringify({ ...doc, components: undefined });
    const components = JSON.stringify(doc.components);
    for (const [kind, entries] of Object.entries(doc.components as Json)) {
      if (kind === 'securitySchemes') continue;
      for (const name of Object.keys(entries as Json)) {
        const ref = `"#/components/${kind}/${name}"`;
        expect(text.includes(ref) || components.includes(ref), `${kind}/${name} is referenced`).toBe(true);
      }
    }
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

  const samplePath = (route: RouteDefinition, csv = false) =>
    route.path.replace(
      ':slug',
      route.id === 'cot-market'
        ? market
        : route.id === 'bulk-snapshot'
          ? fixture.snapshotId
          : // Frankfurter's range path of the ECB rates (the sample's rates start on 2025-01-02).
            route.id === 'fx-ecb-series'
            ? '2025-01-02..2025-01-10'
            : macro.slug,
    ) +
    (csv ? CSV_PATH_SUFFIX : '') +
    (route.query.includes('series') ? `?series=${macro.key}` : '') +
    // The aligned observations need their calendar (docs/api/aligned.md).
    (route.id === 'observations-aligned' ? '&frequency=m' : '') +
    // The change feed since the fixture's own snapshot (docs/api/changes.md).
    (route.id === 'changes' ? `?since=${fixture.snapshotId}` : '') +
    // The series search needs its words (docs/api/series-search.md).
    (route.id === 'series-search' ? '?search_text=nonfarm' : '');
  /** Whether the operation needs a key: format (so the CSV path) is keyed-only on endpoint 3. */
  const keyedOperation = (route: RouteDefinition, csv = false) =>
    route.access.kind === 'scope' ||
    (csv && route.access.kind === 'public-or-scope' && paramSpec(route, 'format').keyedOnly === true);
  const keyFor = (route: RouteDefinition, csv = false) => (keyedOperation(route, csv) ? keys.all : undefined);

  /**
   * Waits for the start of a second in which /status answers its own ETag with a 304 (at most five
   * tries): the pair of requests of the check below then lands in one second unless the machine
   * stalls for most of it.
   */
  async function statusPairWithinOneSecond(path: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
      const first = await fetch(`${server.url}${path}`);
      await first.arrayBuffer();
      const again = await fetch(`${server.url}${path}`, {
        headers: { 'If-None-Match': first.headers.get('etag') ?? '' },
      });
      await again.arrayBuffer();
      if (again.status === 304) {
        await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
        return;
      }
    }
  }

  /** Fetches and checks status, headers and body against the document; returns the response. */
  async function check(
    path: string,
    options: {
      key?: string;
      status: number;
      method?: string;
      headers?: Record<string, string>;
      base?: string;
      body?: string;
    },
  ): Promise<{ response: Response; text: string }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    const response = await fetch(`${options.base ?? server.url}${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body,
    });
    const text = await response.text();
    expect(response.status, `${options.method ?? 'GET'} ${path}: ${text.slice(0, 300)}`).toBe(options.status);
    const url = new URL(path, server.url);
    // format=csv on a JSON path is the same request as its .csv path, which the CSV operation describes.
    const csvQuery = url.searchParams.get('format') === 'csv' && !url.pathname.endsWith(CSV_PATH_SUFFIX);
    const pathname = url.pathname + (csvQuery ? CSV_PATH_SUFFIX : '');
    const found = findOperation(pathname, options.method);
    expect(found, `${pathname} is documented`).not.toBeNull();
    const documented =
      options.status === 405
        ? pathname === MCP_PATH
          ? methodNotAllowed('POST, OPTIONS')
          : METHOD_NOT_ALLOWED
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
    // A documented response without content (304, the 202 of an MCP notification) has no body.
    if (spec.content === undefined) expect(text, `${path} ${options.status} has no body`).toBe('');
    else {
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
    // The shared build (its dist/ read-only) with a data directory of this file's own.
    fixture = await useSharedSample();
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
    for (const { route, csv } of OPERATIONS) {
      const path = samplePath(route, csv);
      // /status carries checked_at in whole seconds, so its ETag changes as the clock passes a
      // second: its pair of requests starts at the beginning of one, and on a loaded machine a pair
      // that still straddles a second (a new checked_at, so a new body) is asked again.
      if (route.id === 'status') await statusPairWithinOneSecond(path);
      const { response } = await check(path, { key: keyFor(route, csv), status: 200 });
      const etag = response.headers.get('etag')!;
      await check(path, { key: keyFor(route, csv), status: 304, headers: { 'If-None-Match': etag } });
      for (const name of route.query.filter((n) => n in FILTERS && !csv)) {
        await check(`${path}?${name}=${FILTERS[name]}`, { status: 200 });
      }
    }
  });

  it('matches the keyed forms: full history, paging with Link, CSV', async () => {
    const cot = `/api/v1/markets/cot/${market}`;
    const { text } = await check(`${cot}?limit=2`, { key: keys.all, status: 200 });
    expect(JSON.parse(text).meta.window.full_history).toBe(true);
    // meta.view tags the two views (the discriminator): history with the key, latest without.
    expect(JSON.parse(text).meta.view).toBe('history');
    const anonymous = await check(cot, { status: 200 });
    expect(JSON.parse(anonymous.text).meta.view).toBe('latest');
    // supersedes_id, optional in CotReport, is in every report of the history view and in no other.
    const rows = (body: string) => (JSON.parse(body) as { data: Json[] }).data;
    expect(rows(text).length).toBeGreaterThan(0);
    expect(rows(text).every((r) => 'supersedes_id' in r)).toBe(true);
    expect(rows(anonymous.text).some((r) => 'supersedes_id' in r)).toBe(false);
    const paged = await check(`/api/v1/observations?series=${macro.key}&limit=1`, {
      key: keys.all,
      status: 200,
    });
    expect(paged.response.headers.get('link')).toMatch(/rel="next"/);
    expect(JSON.parse(paged.text).meta.next_cursor).toEqual(expect.any(String));
    for (const route of ROUTES.filter((r) => r.query.includes('format'))) {
      const csv = await check(
        `${samplePath(route)}${samplePath(route).includes('?') ? '&' : '?'}format=csv`,
        {
          key: keys.all,
          status: 200,
        },
      );
      expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
      // The .csv path is the same request: the same body and ETag.
      const path = await check(samplePath(route, true), { key: keys.all, status: 200 });
      expect(path.text).toBe(csv.text);
      // Every CSV has its header row, even the change feed since the fixture's own snapshot (no
      // rows); the aligned observations have one column per series key.
      expect(path.text.split('\r\n')[0]).toMatch(
        route.id === 'observations-aligned'
          ? /^period(,[a-z0-9-]+\.[A-Za-z0-9_.-]+)+$/
          : /^[a-z_]+(,[a-z0-9_.]+)+$/,
      );
      expect(path.response.headers.get('etag')).toBe(csv.response.headers.get('etag'));
      expect(path.response.headers.get('content-type')).toBe(csv.response.headers.get('content-type'));
    }
    // A .csv path pages like the JSON one, and its Link keeps the .csv path.
    const csvPage = await check(`/api/v1/observations${CSV_PATH_SUFFIX}?series=${macro.key}&limit=1`, {
      key: keys.all,
      status: 200,
    });
    const link = csvPage.response.headers.get('link')!;
    expect(link).toMatch(/^<\/api\/v1\/observations\.csv\?series=[^>]*&cursor=[^>]+>; rel="next"$/);
    const next = await check(link.slice(1, link.indexOf('>')), { key: keys.all, status: 200 });
    expect(next.text.split('\r\n')[0]).toBe(csvPage.text.split('\r\n')[0]);
    expect(next.text).not.toBe(csvPage.text);
    const asOf = await check(`/api/v1/macro/${macro.slug}?as_of=2026-01-01T00:00:00Z`, {
      key: keys.all,
      status: 200,
    });
    expect(JSON.parse(asOf.text).meta.as_of).toBe('2026-01-01T00:00:00Z');
    // Endpoints 5 and 8 in both views: exactly one branch of the body's oneOf matches each answer.
    for (const base of [`/api/v1/macro/${macro.slug}?`, `/api/v1/observations?series=${macro.key}&`]) {
      for (const [query, view] of [
        ['limit=5', 'revisions'],
        ['units=pch&limit=5', 'transformed'],
      ]) {
        const { text } = await check(`${base}${query}`, { key: keys.all, status: 200 });
        expect(JSON.parse(text).meta.view, `${base}${query}`).toBe(view);
        expect(JSON.parse(text).data.length).toBeGreaterThan(0);
      }
    }
  });

  it('answers the documented errors in the documented envelope and headers', async () => {
    for (const { route, csv } of OPERATIONS) {
      const path = samplePath(route, csv);
      const join = path.includes('?') ? '&' : '?';
      const suffix = csv ? CSV_PATH_SUFFIX : '';
      await check(`${path}${join}no_such_parameter=1`, { key: keyFor(route, csv), status: 400 });
      await check(path, { key: 'mmds_not_a_key', status: 401 });
      await check(path, { method: 'POST', status: 405 });
      // The change feed and the event log have no keyed-only parameter: no request can lack a scope.
      if (route.access.kind !== 'public' && route.id !== 'changes' && route.id !== 'events') {
        // Endpoint 25's key is needed by the date asked for: a TFF date of 2013, long past the public window.
        const keyedParam = keyedOperation(route, csv)
          ? ''
          : route.id === 'cot-reports'
            ? `${join}report_type=tff&report_date=2013-01-08`
            : `${join}limit=5`;
        await check(`${path}${keyedParam}`, { status: 401 });
        await check(`${path}${keyedParam}`, { key: keys.other[route.access.scope], status: 403 });
      }
      if (route.path.includes(':slug')) {
        await check(route.path.replace(':slug', 'no-such-slug') + suffix, { key: keys.all, status: 404 });
      }
      // The event log's series filter is a pattern: an unknown key matches no event (200, no 404).
      if (route.query.includes('series') && route.id !== 'observations-aligned' && route.id !== 'events') {
        await check(`${route.path}${suffix}?series=bls.NO_SUCH_SERIES`, { key: keys.all, status: 404 });
      }
      await check(path, {
        key: keyFor(route, csv) ? keys.emptyAll : undefined,
        status: 503,
        base: emptyServer.url,
      });
    }
    // An event id older than the log (docs/api/events.md).
    await check('/api/v1/events?after=20200101T000000Z-00000000:1', { status: 410 });
    // The .csv path implies format: a format parameter there is refused, naming it.
    for (const route of ROUTES.filter((r) => r.query.includes('format'))) {
      const path = samplePath(route, true);
      const { text } = await check(`${path}${path.includes('?') ? '&' : '?'}format=csv`, {
        key: keys.all,
        status: 400,
      });
      expect(JSON.parse(text).error.message).toMatch(/"format".*\.csv path/);
    }
    // Only the routes with format have a .csv path; elsewhere it is an unknown path.
    const status = await fetch(`${server.url}/api/v1/status${CSV_PATH_SUFFIX}`);
    expect(status.status).toBe(404);
    expect(((await status.json()) as Json).error.code).toBe('not_found');
    await check('/api/v1/series?country=ZZ', { status: 400 });
    await check(`/api/v1/observations?series=${macro.key}&as_of=2999-01-01T00:00:00Z`, {
      key: keys.all,
      status: 400,
    });
  });

  it('answers the endpoint list at /api/v1 (and /api/v1/) as documented, one entry per route', async () => {
    const { response, text } = await check(API_INDEX_PATH, { status: 200 });
    expect(
      (JSON.parse(text) as { data: Json[] }).data.map((entry) => entry.path),
      'the routes of the table, in order',
    ).toEqual(ROUTES.map(documentedPath));
    const slash = await fetch(`${server.url}${API_INDEX_PATH}/`);
    expect(await slash.text()).toBe(text);
    const etag = response.headers.get('etag')!;
    await check(API_INDEX_PATH, { status: 304, headers: { 'If-None-Match': etag } });
    await check(API_INDEX_PATH, { key: 'mmds_not_a_key', status: 401 });
    await check(API_INDEX_PATH, { method: 'POST', status: 405 });
    await check(API_INDEX_PATH, { status: 503, base: emptyServer.url });
  });

  it('answers 429 with Retry-After once a key has spent its limit', async () => {
    await check('/api/v1/status', { key: keys.limited, status: 200 });
    for (const { route, csv } of OPERATIONS) {
      const { response } = await check(samplePath(route, csv), { key: keys.limited, status: 429 });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await check(API_INDEX_PATH, { key: keys.limited, status: 429 });
  });

  it('answers POST /mcp as documented: JSON-RPC answers and refusals, the REST 401, 413, 415 and 429', async () => {
    const post = (
      body: string,
      status: number,
      extra: { key?: string; headers?: Record<string, string> } = {},
    ) =>
      check(MCP_PATH, {
        method: 'POST',
        status,
        body,
        key: extra.key,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...extra.headers,
        },
      });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const { text } = await post(list, 200);
    expect((JSON.parse(text) as Json).result.tools.length).toBeGreaterThan(0);
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), 202);
    await post('{"jsonrpc":', 400);
    await post(list, 401, { key: 'mmds_not-a-key' });
    await post(list, 403, { headers: { Origin: 'http://evil.example' } });
    await post(' '.repeat(70_000), 413);
    await post(list, 415, { headers: { 'Content-Encoding': 'gzip' } });
    // keys.limited spent its one request a minute in the test before.
    await post(list, 429, { key: keys.limited });
    await check(MCP_PATH, { status: 405 });
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

  it('answers a public bulk file as documented (binary body, 304, 404, 429, 405)', async () => {
    const file = `/api/v1/bulk/${fixture.snapshotId}/sectors.parquet`;
    const { response } = await check(file, { status: 200 });
    expect(response.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    await check(file, { status: 304, headers: { 'If-None-Match': response.headers.get('etag')! } });
    await check(`/api/v1/bulk/${fixture.snapshotId}/no_such_dataset.parquet`, { status: 404 });
    await check(file, { key: keys.limited, status: 429 });
    await check(file, { method: 'POST', status: 405 });
  });

  it('answers a file of the keyed full store as documented (binary body and every error)', async () => {
    const listing = await check('/api/v1/bulk/full', { key: keys.all, status: 200 });
    const entries = (JSON.parse(listing.text) as { data: Array<{ url: string; file: string }> }).data;
    // A partition of a fact table (`observations/…`) and a reference table (`regions.parquet`).
    const partition = entries.find((entry) => entry.file.includes('/'))!;
    const reference = entries.find((entry) => !entry.file.includes('/'))!;
    for (const { url, file } of [partition, reference]) {
      const { response } = await check(url, { key: keys.all, status: 200 });
      expect(response.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      const etag = response.headers.get('etag')!;
      await check(url, { key: keys.all, status: 304, headers: { 'If-None-Match': etag } });
      await check(`${url}?no_such_parameter=1`, { key: keys.all, status: 400 });
      await check(url, { status: 401 });
      await check(url, { key: keys.other['bulk:read'], status: 403 });
      const missing = url.replace(file.split('/').at(-1)!, 'no_such_file.parquet');
      await check(missing, { key: keys.all, status: 404 });
      await check(url, { key: keys.limited, status: 429 });
      await check(url, { method: 'POST', status: 405 });
      await check(url, { key: keys.emptyAll, status: 503, base: emptyServer.url });
    }
  });

  it('checked every documented response of every path but 500', () => {
    const missing: string[] = [];
    for (const [template, item] of Object.entries(doc.paths as Json)) {
      for (const status of operationsOf(item).flatMap((operation) => Object.keys(operation.responses))) {
        if (status !== '500' && !seen.has(`${template} ${status}`)) missing.push(`${template} ${status}`);
      }
      if (!seen.has(`${template} 405`)) missing.push(`${template} 405`);
    }
    expect(missing).toEqual([]);
  });
});

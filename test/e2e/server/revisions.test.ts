import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { REVISIONS_MAX_VINTAGES } from '../../../src/contract/schemas/revisions.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * The revisions endpoints (docs/api/revisions.md) over HTTP on the real data: the PAYEMS vintages
 * of ../shared/data (FRED files of 2025-08-02 and of the 2026-09 data, known at the Employment
 * Situation releases of 2025-08-01 and 2026-10-02) compared with an independent reading of the
 * two files; the triangle, as_of, CSV of both shapes, paging, the OpenAPI schema, 401/403/400/404.
 */

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const SLUG = 'nonfarm-payrolls';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const ECB_HISTORY = join(SHARED_DATA, 'ecb/eurofxref-hist.csv');
const CES_VINTAGES = join(
  SHARED_DATA,
  'bls/ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json',
);
const PAYROLLS_CHANGE = 'bls.CES0000000001.change';
/** The knowledge times of the two vintages: 08:30 in Washington on the release days. */
const EARLY_AT = '2025-08-01T12:30:00Z';
const LATE_AT = '2026-10-02T12:30:00Z';
const BETWEEN = '2026-01-01T00:00:00Z';

interface Release {
  revision_number: number;
  value: number;
  observed_at: string;
  observed_at_method: string;
}
interface Period {
  shape: 'list';
  period: string;
  first_release: Release;
  revisions: Array<Release & { change: number; change_percent: number | null; note: string | null }>;
  latest: Release;
  revision_count: number;
  total_revision: number;
  total_revision_percent: number | null;
  total_revision_note: string | null;
}
interface TriangleRow {
  shape: 'triangle';
  period: string;
  values: Array<number | null>;
}
interface Body<T> {
  data: T[];
  meta: Record<string, unknown> & { shape: string; next_cursor: string | null; vintages?: string[] };
}

/** A FRED download as month → value (`DATE,PAYEMS`, the month's first day). */
function readFred(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/).slice(1)) {
    const [date, value] = line.split(',');
    if (date && value && value !== '.') out.set(date.slice(0, 7), Number(value));
  }
  return out;
}

/** The ECB history's USD column as day → rate (N/A where none). */
function readEcbUsd(): Map<string, number> {
  const [header, ...lines] = readFileSync(ECB_HISTORY, 'utf8').trim().split(/\r?\n/);
  const column = header!.split(',').indexOf('USD');
  const out = new Map<string, number>();
  for (const line of lines) {
    const cells = line.split(',');
    if (cells[column] !== 'N/A') out.set(cells[0]!, Number(cells[column]));
  }
  return out;
}

/** RFC 4180 lines of a body without quoted fields (these bodies have none): header and rows. */
function parseCsv(text: string): { header: string[]; rows: string[][] } {
  const [header, ...rows] = text
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split(','));
  return { header: header!, rows };
}

/** Closes every object schema that lists its properties, as test/e2e/openapi.test.ts does. */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = closeObjects(value);
  if ('properties' in out) out.unevaluatedProperties = false;
  return out;
}

describe('revisions over HTTP on the real data', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  let macroOnly: string;
  let cotOnly: string;
  let validate: (path: string, body: unknown) => boolean;
  let validationErrors: () => unknown;
  const early = readFred(EARLY_VINTAGE);
  const late = readFred(LATE_VINTAGE);

  const get = (path: string, token: string | null = key) =>
    fetch(`${server.url}${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  const getJson = async <T>(path: string, openapiPath: string): Promise<Body<T>> => {
    const response = await get(path);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    expect(text).not.toMatch(/NaN|Infinity/);
    const body = JSON.parse(text) as Body<T>;
    expect(validate(openapiPath, body), `${path}: ${JSON.stringify(validationErrors())}`).toBe(true);
    return body;
  };
  const getCsv = async (path: string) => {
    const response = await get(path);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    return parseCsv(text);
  };
  const expectError = async (path: string, status: number, code: string, token: string | null = key) => {
    const response = await get(path, token);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
    expect(body.error.code).toBe(code);
    return body.error.message;
  };

  /** The revision records of a month in the two files: the later one only when it differs. */
  const chainOf = (month: string) => {
    const chain: Array<{ value: number; at: string }> = [];
    if (early.has(month)) chain.push({ value: early.get(month)!, at: EARLY_AT });
    if (late.has(month) && late.get(month) !== chain.at(-1)?.value)
      chain.push({ value: late.get(month)!, at: LATE_AT });
    return chain;
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    const issue = async (scopes: string) => {
      const run = await runMmds(
        ['--json', 'keys', 'issue', '--org', 'Revisions Org', '--scopes', scopes, '--rate-limit', '100000'],
        fixture.env,
        REAL_CLOCK,
      );
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { key: string }).key;
    };
    key = await issue('macro:history,observations:read');
    macroOnly = await issue('macro:history');
    cotOnly = await issue('cot:history');
    // The 200 bodies of the OpenAPI document, objects closed: a field the document lacks fails as
    // surely as a documented one the payload lacks.
    // biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the test checks
    const doc = createOpenApiDocument() as Record<string, any>;
    const id = 'urn:mmds:revisions-components';
    const rebase = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
    ajv.addSchema({ $id: id, $defs: rebase(closeObjects(doc.components.schemas)) }, id);
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    let last: ReturnType<typeof ajv.compile> | undefined;
    validate = (path, body) => {
      let check = compiled.get(path);
      if (!check) {
        const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
        check = ajv.compile(rebase(closeObjects(schema)));
        compiled.set(path, check);
      }
      last = check;
      return check(body) as boolean;
    };
    validationErrors = () => last?.errors;
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('lists first release, revision, latest and total per period as the two FRED files give them', async () => {
    const body = await getJson<Period>(
      `/api/v1/macro/${SLUG}/revisions?from=2023-01&to=2026-09`,
      '/api/v1/macro/{slug}/revisions',
    );
    const months = [...new Set([...early.keys(), ...late.keys()])]
      .filter((m) => m >= '2023-01' && m <= '2026-09')
      .sort();
    expect(body.data.map((row) => row.period)).toEqual(months);
    let revised = 0;
    for (const row of body.data) {
      const chain = chainOf(row.period);
      const first = chain[0]!;
      const last = chain.at(-1)!;
      expect(row.first_release).toEqual({
        revision_number: 1,
        value: first.value,
        observed_at: first.at,
        observed_at_method: 'vintage',
      });
      expect(row.latest).toMatchObject({
        revision_number: chain.length,
        value: last.value,
        observed_at: last.at,
      });
      expect(row.revision_count).toBe(chain.length - 1);
      expect(row.total_revision).toBe(last.value - first.value);
      expect(row.total_revision_percent).toBeCloseTo(((last.value - first.value) / first.value) * 100, 10);
      expect(row.revisions.map((r) => [r.value, r.observed_at, r.change])).toEqual(
        chain.slice(1).map((r, i) => [r.value, r.at, r.value - chain[i]!.value]),
      );
      for (const [i, r] of row.revisions.entries())
        expect(r.change_percent).toBeCloseTo(((r.value - chain[i]!.value) / chain[i]!.value) * 100, 10);
      if (chain.length > 1) revised += 1;
    }
    // 2023-07 to 2025-07 are in both files with other values: each revised once.
    expect(revised).toBe(25);
    expect(body.meta).toMatchObject({ shape: 'list', as_of: null, next_cursor: null });
    expect(body.data.every((row) => row.shape === 'list')).toBe(true);
  });

  it('as_of between the vintages: only the first releases count, the triangle has one vintage', async () => {
    const list = await getJson<Period>(
      `/api/v1/observations/revisions?series=${PAYROLLS}&as_of=${BETWEEN}&from=2025-01`,
      '/api/v1/observations/revisions',
    );
    expect(list.data.map((row) => row.period)).toEqual(
      [...early.keys()].filter((m) => m >= '2025-01').sort(),
    );
    for (const row of list.data) {
      expect(row.revision_count).toBe(0);
      expect(row.revisions).toEqual([]);
      expect(row.latest).toEqual(row.first_release);
      expect(row.first_release.value).toBe(early.get(row.period));
      expect(row.total_revision).toBe(0);
    }
    const triangle = await getJson<TriangleRow>(
      `/api/v1/observations/revisions?series=${PAYROLLS}&as_of=${BETWEEN}&from=2025-01&shape=triangle`,
      '/api/v1/observations/revisions',
    );
    expect(triangle.meta.vintages).toEqual([EARLY_AT]);
    expect(triangle.data).toEqual(
      list.data.map((row) => ({ shape: 'triangle', period: row.period, values: [row.first_release.value] })),
    );
  });

  it('the triangle: one column per vintage, the value in force then, null before the first release', async () => {
    const body = await getJson<TriangleRow>(
      `/api/v1/macro/${SLUG}/revisions?shape=triangle&from=2025-01&to=2026-09`,
      '/api/v1/macro/{slug}/revisions',
    );
    expect(body.meta.vintages).toEqual([EARLY_AT, LATE_AT]);
    expect(body.meta.max_vintages).toBe(REVISIONS_MAX_VINTAGES);
    const months = [...late.keys()].filter((m) => m >= '2025-01').sort();
    expect(body.data).toEqual(
      months.map((m) => ({ shape: 'triangle', period: m, values: [early.get(m) ?? null, late.get(m)!] })),
    );
    // Its CSV: header period,<vintage>,..., empty where no value was in force yet.
    const csv = await getCsv(`/api/v1/macro/${SLUG}/revisions.csv?shape=triangle&from=2025-01&to=2026-09`);
    expect(csv.header).toEqual(['period', EARLY_AT, LATE_AT]);
    expect(csv.rows).toEqual(
      months.map((m) => [m, early.has(m) ? String(early.get(m)) : '', String(late.get(m))]),
    );
    const same = await get(
      `/api/v1/macro/${SLUG}/revisions?shape=triangle&from=2025-01&to=2026-09&format=csv`,
    );
    expect(parseCsv(await same.text())).toEqual(csv);
  });

  it('the CSV of the list: one line per revision record, with change and the period summary', async () => {
    const csv = await getCsv(`/api/v1/observations/revisions.csv?series=${PAYROLLS}&from=2025-06&to=2025-09`);
    expect(csv.header).toEqual([
      'period',
      'revision_number',
      'value',
      'observed_at',
      'observed_at_method',
      'change',
      'change_percent',
      'note',
      'first_value',
      'latest_value',
      'total_revision',
      'revision_count',
    ]);
    const expected: string[][] = [];
    for (const m of ['2025-06', '2025-07', '2025-08', '2025-09']) {
      const chain = chainOf(m);
      const total = String(chain.at(-1)!.value - chain[0]!.value);
      chain.forEach((r, i) => {
        const change = i === 0 ? '' : String(r.value - chain[i - 1]!.value);
        expected.push([
          m,
          String(i + 1),
          String(r.value),
          r.at,
          'vintage',
          change,
          i === 0 ? '' : String(((r.value - chain[i - 1]!.value) / chain[i - 1]!.value) * 100),
          '',
          String(chain[0]!.value),
          String(chain.at(-1)!.value),
          total,
          String(chain.length - 1),
        ]);
      });
    }
    expect(csv.rows).toEqual(expected);
  });

  it('pages by period: the pages joined are the whole answer, in both shapes', async () => {
    for (const shape of ['list', 'triangle']) {
      const path = `/api/v1/macro/${SLUG}/revisions?shape=${shape}&from=2024-10&to=2025-12`;
      const whole = await getJson<{ period: string }>(path, '/api/v1/macro/{slug}/revisions');
      const pages: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: Body<{ period: string }> = await getJson<{ period: string }>(
          `${path}&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
          '/api/v1/macro/{slug}/revisions',
        );
        expect(page.data.length).toBeLessThanOrEqual(4);
        if (shape === 'triangle') expect(page.meta.vintages).toEqual(whole.meta.vintages);
        pages.push(...page.data);
        cursor = page.meta.next_cursor;
      } while (cursor);
      expect(pages).toEqual(whole.data);
      expect(whole.data).toHaveLength(15);
    }
  });

  it('the BLS release vintages of the monthly change: list and triangle as the publisher file gives them', async () => {
    const file = JSON.parse(readFileSync(CES_VINTAGES, 'utf8')) as {
      coverage: { release_dates: string[] };
      records: Array<{ observation_month: string; release_date: string; value_thousands: number }>;
    };
    const chains = new Map<string, Array<{ day: string; value: number }>>();
    for (const r of [...file.records].sort((a, b) => (a.release_date < b.release_date ? -1 : 1))) {
      const chain = chains.get(r.observation_month) ?? [];
      chain.push({ day: r.release_date, value: r.value_thousands });
      chains.set(r.observation_month, chain);
    }
    const months = [...chains.keys()].sort();
    const list = await getJson<Period>(
      `/api/v1/observations/revisions?series=${PAYROLLS_CHANGE}`,
      '/api/v1/observations/revisions',
    );
    expect(list.data.map((row) => row.period)).toEqual(months);
    for (const row of list.data) {
      const chain = chains.get(row.period)!;
      expect([row.first_release, ...row.revisions].map((r) => [r.observed_at.slice(0, 10), r.value])).toEqual(
        chain.map((r) => [r.day, r.value]),
      );
      expect(row.revisions.map((r) => r.change)).toEqual(
        chain.slice(1).map((r, i) => r.value - chain[i]!.value),
      );
      expect(row.total_revision).toBe(chain.at(-1)!.value - chain[0]!.value);
    }
    const triangle = await getJson<TriangleRow>(
      `/api/v1/observations/revisions?series=${PAYROLLS_CHANGE}&shape=triangle`,
      '/api/v1/observations/revisions',
    );
    const days = file.coverage.release_dates;
    expect(triangle.meta.vintages!.map((v) => v.slice(0, 10))).toEqual(days);
    expect(triangle.data).toEqual(
      months.map((m) => ({
        shape: 'triangle',
        period: m,
        values: days.map(
          (d) =>
            chains
              .get(m)!
              .filter((r) => r.day <= d)
              .at(-1)?.value ?? null,
        ),
      })),
    );
    // as_of just before the 2026-04-03 release: three vintages, and that release's values unknown.
    const before = days.indexOf('2026-04-03');
    const asOf = `${days[before]}T00:00:00Z`;
    const early = await getJson<TriangleRow>(
      `/api/v1/observations/revisions?series=${PAYROLLS_CHANGE}&shape=triangle&as_of=${asOf}`,
      '/api/v1/observations/revisions',
    );
    expect(early.meta.vintages!.map((v) => v.slice(0, 10))).toEqual(days.slice(0, before));
    expect(early.data).toEqual(
      months
        .filter((m) => chains.get(m)![0]!.day < days[before]!)
        .map((m) => ({
          shape: 'triangle',
          period: m,
          values: days.slice(0, before).map(
            (d) =>
              chains
                .get(m)!
                .filter((r) => r.day <= d)
                .at(-1)?.value ?? null,
          ),
        })),
    );
  });

  it('a triangle over more than the bound of vintages is a 400; a narrower range answers', async () => {
    const message = await expectError(
      '/api/v1/observations/revisions?series=ecb.USD&shape=triangle',
      400,
      'invalid_parameter',
    );
    expect(message).toContain('"shape"');
    expect(message).toContain(String(REVISIONS_MAX_VINTAGES));
    expect(message).toContain('from/to');
    const ecb = readEcbUsd();
    const body = await getJson<TriangleRow>(
      '/api/v1/observations/revisions?series=ecb.USD&shape=triangle&from=2025-03&to=2025-03',
      '/api/v1/observations/revisions',
    );
    const days = [...ecb.keys()].filter((d) => d.startsWith('2025-03')).sort();
    expect(body.data.map((row) => row.period)).toEqual(days);
    expect(body.meta.vintages).toHaveLength(days.length);
    // Each day is a first release at its own vintage: null before, the ECB's rate from then on.
    for (const [i, row] of body.data.entries()) {
      expect(row.values.slice(0, i).every((v) => v === null)).toBe(true);
      expect(row.values.slice(i)).toEqual(Array(days.length - i).fill(ecb.get(row.period)));
    }
  });

  it('bad input: an unknown shape is a 400 naming it and what is accepted; unknown series 404', async () => {
    const message = await expectError(`/api/v1/macro/${SLUG}/revisions?shape=cube`, 400, 'invalid_parameter');
    expect(message).toContain('"shape"');
    expect(message).toContain('list or triangle');
    await expectError('/api/v1/macro/no-such-series/revisions', 404, 'not_found');
    await expectError('/api/v1/observations/revisions?series=zz.UNKNOWN', 404, 'not_found');
    await expectError('/api/v1/observations/revisions', 400, 'invalid_parameter');
    await expectError(`/api/v1/macro/${SLUG}/revisions?as_of=2099-01-01T00:00:00Z`, 400, 'invalid_parameter');
  });

  it('needs a key with the scope of each endpoint: 401 without, 403 with another scope', async () => {
    const macro = `/api/v1/macro/${SLUG}/revisions`;
    const observations = `/api/v1/observations/revisions?series=${PAYROLLS}`;
    for (const path of [macro, observations, `${macro}.csv`]) {
      await expectError(path, 401, 'unauthorized', null);
      await expectError(path, 403, 'insufficient_scope', cotOnly);
    }
    await expectError(observations, 403, 'insufficient_scope', macroOnly);
    expect((await get(macro, macroOnly)).status).toBe(200);
  });
});

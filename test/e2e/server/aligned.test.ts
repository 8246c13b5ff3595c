import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * /api/v1/observations/aligned (docs/api/aligned.md) over HTTP on the real data: PAYEMS (two
 * FRED vintages), the ECB USD history and the gold COT reports on one weekly or monthly calendar,
 * each value checked against an independent reading of the publishers' files; as_of, fill, CSV,
 * paging, the 400s, 401/403 and the OpenAPI schema of the body.
 */

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const USD = 'ecb.USD';
const GOLD = 'cftc.088691.legacy';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const ECB_HISTORY = join(SHARED_DATA, 'ecb/eurofxref-hist.csv');
const COT_LEGACY = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt');
/** Between the two PAYEMS vintages (known 2025-08-01 and 2026-10-02), and after both. */
const BETWEEN = '2026-01-01T00:00:00Z';
const AFTER_BOTH = '2026-10-03T00:00:00Z';

interface Row {
  period: string;
  values: Array<number | null>;
  filled: boolean[];
}
interface Body {
  data: Row[];
  meta: Record<string, unknown> & {
    series: Array<Record<string, unknown>>;
    next_cursor: string | null;
  };
}

/** A FRED download as month → value. */
function readFred(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/).slice(1)) {
    const [date, value] = line.split(',');
    if (date && value) out.set(date.slice(0, 7), Number(value));
  }
  return out;
}

/** The ECB history's USD column as day → rate, oldest first (N/A dropped). */
function readEcbUsd(): Map<string, number> {
  const [header, ...lines] = readFileSync(ECB_HISTORY, 'utf8').trim().split(/\r?\n/);
  const column = header!.split(',').indexOf('USD');
  const out: Array<[string, number]> = [];
  for (const line of lines) {
    const cells = line.split(',');
    if (cells[column] !== 'N/A') out.push([cells[0]!, Number(cells[column])]);
  }
  return new Map(out.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Gold's legacy reports as date → open interest and noncommercial long - short, from the CFTC file. */
function readGoldLegacy(): Map<string, { oi: number; net: number }> {
  const [header, ...lines] = readFileSync(COT_LEGACY, 'utf8').trim().split(/\r?\n/);
  const names = header!.split('","').map((n) => n.replaceAll('"', '').trim());
  const at = (name: string) => names.indexOf(name);
  const out = new Map<string, { oi: number; net: number }>();
  for (const line of lines) {
    if (!line.startsWith('"GOLD - COMMODITY EXCHANGE INC."')) continue;
    // The market name is quoted and holds no comma: the rest splits on commas.
    const cells = line.slice(line.indexOf('",') + 2).split(',');
    const cell = (name: string) => Number(cells[at(name) - 1]!.trim());
    out.set(cells[1]!, {
      oi: cell('Open Interest (All)'),
      net: cell('Noncommercial Positions-Long (All)') - cell('Noncommercial Positions-Short (All)'),
    });
  }
  return out;
}

const DAY = 86_400_000;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

/** The Fridays from the one on or after `from` to the one on or before `to`. */
function fridays(from: string, to: string): string[] {
  const out: string[] = [];
  let day = from;
  while (new Date(`${day}T00:00:00Z`).getUTCDay() !== 5) day = addDays(day, 1);
  for (; day <= to; day = addDays(day, 7)) out.push(day);
  return out;
}

/** The last entry of a day-keyed map in [first, last], or undefined. */
function lastIn<T>(map: Map<string, T>, first: string, last: string): T | undefined {
  let found: T | undefined;
  for (const [day, value] of map) if (day >= first && day <= last) found = value;
  return found;
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

describe('aligned observations over HTTP on the real data', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  let macroOnly: string;
  let observationsOnly: string;
  let validate: (body: unknown) => boolean;
  let validationErrors: () => unknown;
  const early = readFred(EARLY_VINTAGE);
  const late = readFred(LATE_VINTAGE);
  const usd = readEcbUsd();
  const gold = readGoldLegacy();

  const get = (path: string, bearer = key) =>
    fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${bearer}` } });
  const getJson = async (path: string): Promise<Body> => {
    const response = await get(path);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    expect(text).not.toMatch(/NaN|Infinity/);
    const body = JSON.parse(text) as Body;
    expect(validate(body), `${path}: ${JSON.stringify(validationErrors())}`).toBe(true);
    return body;
  };
  const expect400 = async (path: string, parameter: string, accepted: string) => {
    const response = await get(path);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(400);
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.message).toContain(`"${parameter}"`);
    expect(body.error.message).toContain(accepted);
    return body.error.message;
  };
  const issue = async (scopes: string) => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Aligned Org', '--scopes', scopes, '--rate-limit', '100000'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    // COT columns need cot:history besides observations:read (docs/keys.md).
    key = await issue('observations:read,cot:history');
    observationsOnly = await issue('observations:read');
    macroOnly = await issue('macro:history');
    // biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the test checks
    const doc = createOpenApiDocument() as Record<string, any>;
    const id = 'urn:mmds:aligned-components';
    const rebase = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
    ajv.addSchema({ $id: id, $defs: rebase(closeObjects(doc.components.schemas)) }, id);
    const schema =
      doc.paths['/api/v1/observations/aligned'].get.responses['200'].content['application/json'].schema;
    const compiled = ajv.compile(rebase(closeObjects(schema)));
    validate = (body) => compiled(body) as boolean;
    validationErrors = () => compiled.errors;
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('monthly: payrolls of the vintage known at as_of and the last ECB rate of each month', async () => {
    const body = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS},${USD}&frequency=m&as_of=${BETWEEN}&from=2024-08&to=2025-07`,
    );
    const months = body.data.map((row) => row.period);
    expect(months).toEqual([
      '2024-08',
      '2024-09',
      '2024-10',
      '2024-11',
      '2024-12',
      '2025-01',
      '2025-02',
      '2025-03',
      '2025-04',
      '2025-05',
      '2025-06',
      '2025-07',
    ]);
    for (const row of body.data) {
      const [first, lastDay] = [`${row.period}-01`, `${row.period}-31`];
      expect(row.values).toEqual([early.get(row.period)!, lastIn(usd, first, lastDay)!]);
      expect(row.filled).toEqual([false, false]);
    }
    expect(body.meta.series.map((s) => [s.key, s.source_frequency, s.mapping])).toEqual([
      [PAYROLLS, 'monthly', 'end_of_period'],
      [USD, 'daily', 'end_of_period'],
    ]);
    expect(body.meta.series[1]).toMatchObject({ source: 'ecb', field: null });
    expect(typeof body.meta.series[0]!.attribution).toBe('string');
    expect(body.meta).toMatchObject({ frequency: 'm', fill: 'ffill', as_of: BETWEEN, max_series: 50 });

    // After the later vintage, the same months carry its (revised) values: as_of decides.
    const later = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS}&frequency=m&as_of=${AFTER_BOTH}&from=2025-07&to=2025-07`,
    );
    expect(early.get('2025-07')).not.toBe(late.get('2025-07'));
    expect(later.data).toEqual([{ period: '2025-07', values: [late.get('2025-07')!], filled: [false] }]);
  });

  it('weekly: each week ending Friday, the month holding its latest day, the last rate of the week', async () => {
    const body = await getJson(
      `/api/v1/observations/aligned?series=${USD},${PAYROLLS}&frequency=w&as_of=${BETWEEN}&from=2025-03-01&to=2025-05-31`,
    );
    // Weeks overlapping 2025-03-01..2025-05-31: the Friday on or after 1 March to the one after 31 May.
    const weeks = fridays('2025-03-01', '2025-06-06');
    expect(body.data.map((row) => row.period)).toEqual(weeks);
    for (const row of body.data) {
      const saturday = addDays(row.period, -6);
      const rate = lastIn(usd, saturday, row.period) ?? null;
      // The latest month with a day in the week: the Friday's month (known for all of these).
      const payrolls = early.get(row.period.slice(0, 7)) ?? early.get(saturday.slice(0, 7))!;
      expect(row.values, row.period).toEqual([rate, payrolls]);
    }
    expect(body.meta.series.map((s) => s.mapping)).toEqual(['end_of_period', 'containing_period']);
  });

  it('COT open interest and net noncommercial of gold on weeks, as the CFTC file gives them', async () => {
    const body = await getJson(
      `/api/v1/observations/aligned?series=${GOLD},${GOLD}.net.noncommercial&frequency=w&fill=none&from=2025-01&to=2025-03`,
    );
    const reports = [...gold.entries()].filter(([day]) => day >= '2025-01-01' && day <= '2025-03-31');
    expect(reports.length).toBeGreaterThan(0);
    for (const [day, report] of reports) {
      const friday = fridays(day, addDays(day, 6))[0]!;
      const row = body.data.find((r) => r.period === friday);
      expect(row?.values, day).toEqual([report.oi, report.net]);
    }
    expect(body.meta.series.map((s) => [s.key, s.series_key, s.field, s.source_frequency])).toEqual([
      [GOLD, GOLD, 'open_interest', 'weekly'],
      [`${GOLD}.net.noncommercial`, GOLD, 'net.noncommercial', 'weekly'],
    ]);
    await expect400(
      `/api/v1/observations/aligned?series=${GOLD}.net.managed_money&frequency=w`,
      'series',
      'noncommercial',
    );
  });

  it('COT as of an instant: a report counts once published (the Friday after its Tuesday)', async () => {
    // The report of Tuesday 2025-03-04 is published on Friday 2025-03-07; ECB USD keeps the week in the grid.
    const report = gold.get('2025-03-04')!;
    const previous = gold.get('2025-02-25')!;
    const path = (asOf: string, fill: string) =>
      `/api/v1/observations/aligned?series=${GOLD},${USD}&frequency=w&from=2025-03-07&to=2025-03-07&as_of=${asOf}&fill=${fill}`;
    const before = await getJson(path('2025-03-05T00:00:00Z', 'none'));
    expect(before.data.map((row) => [row.period, row.values[0]])).toEqual([['2025-03-07', null]]);
    const carried = await getJson(path('2025-03-05T00:00:00Z', 'ffill'));
    expect(carried.data.map((row) => [row.values[0], row.filled[0]])).toEqual([[previous.oi, true]]);
    const after = await getJson(path('2025-03-08T00:00:00Z', 'none'));
    expect(after.data.map((row) => [row.values[0], row.filled[0]])).toEqual([[report.oi, false]]);
  });

  it('fill: ffill carries the last own value one period only, none leaves null', async () => {
    // The ECB history runs past the last PAYEMS month of the late vintage (2026-09)? Not here: use a gap made
    // by as_of instead. At BETWEEN, payrolls end with 2025-07 (the early vintage); USD goes on.
    const path = `/api/v1/observations/aligned?series=${PAYROLLS},${USD}&frequency=m&as_of=${BETWEEN}&from=2025-06&to=2025-10`;
    const ffill = await getJson(path);
    expect(early.has('2025-08')).toBe(false);
    const lastKnown = early.get('2025-07')!;
    expect(ffill.data.map((row) => [row.period, row.values[0], row.filled[0]])).toEqual([
      ['2025-06', early.get('2025-06')!, false],
      ['2025-07', lastKnown, false],
      ['2025-08', lastKnown, true],
      ['2025-09', null, false],
      ['2025-10', null, false],
    ]);
    const none = await getJson(`${path}&fill=none`);
    expect(none.data.map((row) => row.values[0])).toEqual([
      early.get('2025-06')!,
      lastKnown,
      null,
      null,
      null,
    ]);
    expect(none.data.every((row) => row.filled.every((f) => !f))).toBe(true);
    expect(none.meta.fill).toBe('none');
  });

  it('CSV: period then one column per key, the same values', async () => {
    const path = `/api/v1/observations/aligned?series=${USD},${PAYROLLS}&frequency=m&as_of=${BETWEEN}&from=2025-01&to=2025-03`;
    const json = await getJson(path);
    for (const csvPath of [`${path}&format=csv`, path.replace('/aligned?', '/aligned.csv?')]) {
      const response = await get(csvPath);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = (await response.text()).trimEnd().split('\r\n');
      expect(lines[0]).toBe(`period,${USD},${PAYROLLS}`);
      expect(lines.slice(1)).toEqual(json.data.map((row) => [row.period, ...row.values].join(',')));
    }
  });

  it('pages with limit and cursor, the rows the same as in one page', async () => {
    const path = `/api/v1/observations/aligned?series=${USD}&frequency=w&from=2025-01&to=2025-06`;
    const whole = await getJson(path);
    const rows: Row[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Body = await getJson(`${path}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.data);
      cursor = page.meta.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(whole.data.length / 7));
    expect(rows).toEqual(whole.data);
  });

  it('50 columns at once: every ECB currency of the history, payrolls and gold, by week', async () => {
    const header = readFileSync(ECB_HISTORY, 'utf8').split(/\r?\n/)[0]!.split(',');
    const currencies = header.slice(1).filter((c) => /^[A-Z]{3}$/.test(c));
    const keys = [PAYROLLS, GOLD, ...currencies.map((c) => `ecb.${c}`)].slice(0, 50);
    const started = Date.now();
    const body = await getJson(
      `/api/v1/observations/aligned?series=${keys.join(',')}&frequency=w&from=2025-01&to=2025-03`,
    );
    console.info(`aligned: ${keys.length} series, ${body.data.length} weeks in ${Date.now() - started} ms`);
    expect(body.meta.series.map((s) => s.key)).toEqual(keys);
    expect(body.data.every((row) => row.values.length === keys.length)).toBe(true);
    // A currency the catalog does not list is still a column, its frequency implied by its periods.
    const gbp = keys.indexOf('ecb.GBP');
    expect(body.meta.series[gbp]).toMatchObject({ source_frequency: 'daily', mapping: 'end_of_period' });
    const column = header.indexOf('GBP');
    const rates = new Map(
      readFileSync(ECB_HISTORY, 'utf8')
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((line) => line.split(','))
        .filter((cells) => cells[column] !== 'N/A')
        .map((cells) => [cells[0]!, Number(cells[column])] as const)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    for (const row of body.data)
      expect(row.values[gbp], row.period).toBe(lastIn(rates, addDays(row.period, -6), row.period) ?? null);
  });

  it('bad input: 400 naming the parameter and what is accepted', async () => {
    const base = '/api/v1/observations/aligned';
    const many = Array.from({ length: 51 }, (_, i) => `bls.X${i}`).join(',');
    await expect400(`${base}?series=${many}&frequency=m`, 'series', '1 to 50 series keys');
    await expect400(`${base}?series=${USD},${USD}&frequency=m`, 'series', 'without repeats');
    await expect400(`${base}?series=${USD},bls.NOPE&frequency=m`, 'series', 'unknown: bls.NOPE');
    await expect400(`${base}?series=${USD}&frequency=q`, 'frequency', 'w or m');
    // Said once: the spec's words, then "(required)" added by parseRequest.
    expect(await expect400(`${base}?series=${USD}`, 'frequency', 'w or m (required)')).toBe(
      'invalid parameter "frequency": expected w or m (required)',
    );
    await expect400(`${base}?series=${USD}&frequency=m&fill=bfill`, 'fill', 'ffill or none');
    await expect400(`${base}?frequency=m`, 'series', 'required');
    await expect400(`${base}?series=${USD}&frequency=m&units=pch`, 'units', 'one of:');
  });

  it('401 without a key, 403 with a key lacking observations:read', async () => {
    const path = `/api/v1/observations/aligned?series=${USD}&frequency=m`;
    const anonymous = await fetch(`${server.url}${path}`);
    expect(anonymous.status).toBe(401);
    const wrongScope = await get(path, macroOnly);
    expect(wrongScope.status).toBe(403);
    expect(((await wrongScope.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
  });

  it('403 naming cot:history for a COT column with a key holding observations:read alone', async () => {
    for (const series of [GOLD, `${GOLD}.net.commercial`, `${USD},${GOLD}.net.commercial`]) {
      const path = `/api/v1/observations/aligned?series=${series}&frequency=w`;
      const refused = await get(path, observationsOnly);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(refused.status, path).toBe(403);
      expect(body.error.code).toBe('insufficient_scope');
      expect(body.error.message).toContain('cot:history');
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_scope", scope="cot:history"',
      );
    }
    // Observation columns alone need observations:read only.
    const allowed = await get(`/api/v1/observations/aligned?series=${USD}&frequency=w`, observationsOnly);
    expect(allowed.status).toBe(200);
    await allowed.arrayBuffer();
  });
});

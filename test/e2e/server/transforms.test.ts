import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../src/contract/openapi.ts';
import { AVERAGE_EXTRA_DECIMALS, TRANSFORM_ROUNDING } from '../../../src/model/transforms.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * The transforms of docs/api/transforms.md over HTTP on the real data: values checked against an
 * independent computation from the publishers' files (the two FRED vintages of PAYEMS, the ECB
 * history), the 400s, null with a note, CSV, meta, and the OpenAPI schema of both views.
 */

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const ECB_HISTORY = join(SHARED_DATA, 'ecb/eurofxref-hist.csv');
/** Between the two vintages (known 2025-08-01 and 2026-10-02), and after both. */
const BETWEEN = '2026-01-01T00:00:00Z';
const AFTER_BOTH = '2026-10-03T00:00:00Z';

interface Row {
  period: string;
  value: number | null;
  level: number | null;
  source_values: number;
  complete: boolean;
  observed_at: string;
  note: string | null;
}
interface Body {
  data: Row[];
  meta: Record<string, unknown> & {
    view: string;
    next_cursor: string | null;
    transform: Record<string, unknown>;
  };
}

/**
 * The mean of published values in exact decimal arithmetic (BigInt over their texts), rounded
 * half up to `extra` decimals more than the most the values have: the rule of
 * meta.transform.rounding, computed independently of the server's scaled doubles.
 */
function decimalMean(values: readonly number[], extra = AVERAGE_EXTRA_DECIMALS): number {
  const texts = values.map((value) => String(value));
  expect(texts.every((text) => /^\d+(\.\d+)?$/.test(text))).toBe(true);
  const decimals = Math.max(...texts.map((text) => text.split('.')[1]?.length ?? 0));
  const scaled = texts.map((text) => {
    const [whole, fraction = ''] = text.split('.');
    return BigInt(whole! + fraction.padEnd(decimals, '0'));
  });
  const sum = scaled.reduce((a, b) => a + b, 0n);
  const n = BigInt(values.length);
  // sum / n at decimals + extra places, half up.
  const q = (sum * 10n ** BigInt(extra) * 2n + n) / (2n * n);
  const digits = q.toString().padStart(decimals + extra + 1, '0');
  const cut = digits.length - (decimals + extra);
  return Number(`${digits.slice(0, cut)}.${digits.slice(cut)}`);
}

/** A FRED download as month → value (`DATE,PAYEMS`, the month's first day). */
function readFred(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/).slice(1)) {
    const [date, value] = line.split(',');
    if (date && value) out.set(date.slice(0, 7), Number(value));
  }
  return out;
}

/** The ECB history's USD column as day → rate (the file is newest first; N/A where none). */
function readEcbUsd(): Map<string, number> {
  const [header, ...lines] = readFileSync(ECB_HISTORY, 'utf8').trim().split(/\r?\n/);
  const column = header!.split(',').indexOf('USD');
  const out = new Map<string, number>();
  for (const line of lines) {
    const cells = line.split(',');
    if (cells[column] !== 'N/A') out.set(cells[0]!, Number(cells[column]));
  }
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const monthBefore = (month: string, k: number) => {
  const date = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 - k, 1));
  return date.toISOString().slice(0, 7);
};

/** The months from..to inclusive (YYYY-MM). */
function months(from: string, to: string): string[] {
  const out: string[] = [];
  for (let m = from; m <= to; m = monthBefore(m, -1)) out.push(m);
  return out;
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

describe('transforms over HTTP on the real data', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  let validate: (body: unknown) => boolean;
  let validationErrors: () => unknown;
  const early = readFred(EARLY_VINTAGE);
  const late = readFred(LATE_VINTAGE);

  const get = (path: string) =>
    fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
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
    expect(response.status, path).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.message).toContain(`"${parameter}"`);
    expect(body.error.message).toContain(accepted);
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'Transforms Org',
        '--scopes',
        'macro:history,observations:read',
        '--rate-limit',
        '100000',
      ],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    key = (JSON.parse(run.stdout) as { key: string }).key;
    // The 200 body of /observations in the OpenAPI document, objects closed: a field the document
    // lacks fails as surely as a documented one the payload lacks.
    // biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the test checks
    const doc = createOpenApiDocument() as Record<string, any>;
    const id = 'urn:mmds:transforms-components';
    const rebase = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
    // The body is a oneOf of the two views, tagged by meta.view (an annotation, as discriminator).
    ajv.addKeyword({ keyword: 'x-tagged-by', schemaType: 'string' });
    ajv.addSchema({ $id: id, $defs: rebase(closeObjects(doc.components.schemas)) }, id);
    const schema = doc.paths['/api/v1/observations'].get.responses['200'].content['application/json'].schema;
    const compiled = ajv.compile(rebase(closeObjects(schema)));
    validate = (body) => compiled(body) as boolean;
    validationErrors = () => compiled.errors;
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('pc1 of payrolls as of a time between the vintages: the 2025-08-01 vintage only', async () => {
    const body = await getJson(
      `/api/v1/observations?series=${PAYROLLS}&as_of=${BETWEEN}&units=pc1&from=2024-08&to=2025-07`,
    );
    const expected = months('2024-08', '2025-07').map((m) => ({
      period: m,
      level: early.get(m)!,
      value: (early.get(m)! / early.get(monthBefore(m, 12))! - 1) * 100,
    }));
    expect(body.data.map((r) => r.period)).toEqual(expected.map((e) => e.period));
    for (const [i, row] of body.data.entries()) {
      expect(row.level).toBe(expected[i]!.level);
      expect(row.value).toBeCloseTo(expected[i]!.value, 10);
      expect(row).toMatchObject({ source_values: 1, complete: true, note: null });
      expect(row.observed_at <= BETWEEN).toBe(true);
    }
    expect(body.meta.view).toBe('transformed');
    expect(body.meta.transform).toEqual({
      order: ['as_of', 'aggregation', 'units'],
      as_of: BETWEEN,
      source_frequency: 'monthly',
      frequency: null,
      output_frequency: 'monthly',
      aggregation: null,
      units: 'pc1',
      periods_per_year: 12,
      incomplete_periods: null,
      rounding: TRANSFORM_ROUNDING,
      notes: [],
    });
  });

  it('as of a time after both vintages: the later values, quarterly average then pc1 and pca', async () => {
    const quarter = (q: string) => {
      const first = `${q.slice(0, 4)}-${String((Number(q.slice(6)) - 1) * 3 + 1).padStart(2, '0')}`;
      return decimalMean([0, 1, 2].map((k) => late.get(monthBefore(first, -k))!));
    };
    const body = await getJson(
      `/api/v1/macro/nonfarm-payrolls?as_of=${AFTER_BOTH}&frequency=q&units=pc1&from=2024-Q3&to=2026-Q3`,
    );
    const quarters = [
      '2024-Q3',
      '2024-Q4',
      '2025-Q1',
      '2025-Q2',
      '2025-Q3',
      '2025-Q4',
      '2026-Q1',
      '2026-Q2',
      '2026-Q3',
    ];
    expect(body.data.map((r) => r.period)).toEqual(quarters);
    const yearBefore = (q: string) => `${Number(q.slice(0, 4)) - 1}${q.slice(4)}`;
    for (const row of body.data) {
      // Whole thousands of jobs averaged: at most 4 decimals, no binary noise (157245.3333).
      expect(row.level).toBe(quarter(row.period));
      expect(String(row.level)).toMatch(/^\d+(\.\d{1,4})?$/);
      expect(row.value).toBeCloseTo((quarter(row.period) / quarter(yearBefore(row.period)) - 1) * 100, 9);
      expect(row).toMatchObject({ source_values: 3, complete: true, note: null });
    }
    expect(body.meta.transform).toMatchObject({ frequency: 'q', aggregation: 'avg', periods_per_year: 4 });
    // The early vintage's value of 2025-07 is not what the later one says: as_of decides which counts.
    expect(early.get('2025-07')).not.toBe(late.get('2025-07'));
    const pca = await getJson(
      `/api/v1/observations?series=${PAYROLLS}&as_of=${AFTER_BOTH}&units=pca&from=2025-07&to=2025-07`,
    );
    expect(pca.data[0]!.value).toBeCloseTo(
      ((late.get('2025-07')! / late.get('2025-06')!) ** 12 - 1) * 100,
      9,
    );
    const cca = await getJson(
      `/api/v1/observations?series=${PAYROLLS}&as_of=${BETWEEN}&units=cca&from=2025-07&to=2025-07`,
    );
    expect(cca.data[0]!.value).toBeCloseTo(
      12 * 100 * (Math.log(early.get('2025-07')!) - Math.log(early.get('2025-06')!)),
      9,
    );
  });

  it('monthly average, end of period and weekly average of the daily ECB USD rate', async () => {
    const usd = readEcbUsd();
    const byMonth = new Map<string, number[]>();
    for (const [day, rate] of usd) {
      if (day < '2024-01-01' || day > '2024-12-31') continue;
      byMonth.set(day.slice(0, 7), [...(byMonth.get(day.slice(0, 7)) ?? []), rate]);
    }
    const avg = await getJson('/api/v1/observations?series=ecb.USD&frequency=m&from=2024-01&to=2024-12');
    expect(avg.data.map((r) => r.period)).toEqual([...byMonth.keys()]);
    for (const row of avg.data) {
      const rates = byMonth.get(row.period)!;
      expect(row.value).toBe(decimalMean(rates));
      // ECB rates have at most 4 decimals (5 for some currencies): the average at most 4 more.
      expect(String(row.value)).toMatch(/^\d+\.\d{1,8}$/);
      expect(row).toMatchObject({ source_values: rates.length, complete: true });
    }
    const eop = await getJson(
      '/api/v1/observations?series=ecb.USD&frequency=m&aggregation=eop&units=pch&from=2024-02&to=2024-12',
    );
    for (const row of eop.data) {
      const last = byMonth.get(row.period)!.at(-1)!;
      const previous = byMonth.get(monthBefore(row.period, 1))!.at(-1)!;
      expect(row.level).toBe(last);
      expect(row.value).toBeCloseTo((last / previous - 1) * 100, 12);
    }
    // Weeks ending Friday, found here by walking each day forward to its Friday.
    const weeks = new Map<string, number[]>();
    for (const [day, rate] of usd) {
      if (day < '2024-03-02' || day > '2024-03-29') continue;
      const date = new Date(`${day}T00:00:00Z`);
      while (date.getUTCDay() !== 5) date.setUTCDate(date.getUTCDate() + 1);
      const friday = date.toISOString().slice(0, 10);
      weeks.set(friday, [...(weeks.get(friday) ?? []), rate]);
    }
    const weekly = await getJson(
      '/api/v1/observations?series=ecb.USD&frequency=w&from=2024-03-02&to=2024-03-29',
    );
    expect(weekly.data.map((r) => r.period)).toEqual([
      '2024-03-08',
      '2024-03-15',
      '2024-03-22',
      '2024-03-29',
    ]);
    for (const row of weekly.data) {
      const rates = weeks.get(row.period)!;
      expect(row.value).toBe(decimalMean(rates));
      expect(String(row.value)).toMatch(/^\d+\.\d{1,8}$/);
    }
    expect(weekly.meta.transform).toMatchObject({ source_frequency: 'daily', output_frequency: 'weekly' });
  });

  it('keeps a partial period for avg (complete=false) and gives null with a note for sum and eop', async () => {
    const usd = readEcbUsd();
    const firstDay = [...usd.keys()][0]!;
    // The history starts on 1999-01-04: January 1999 is not covered from its first day.
    expect(firstDay).toBe('1999-01-04');
    const avg = await getJson('/api/v1/observations?series=ecb.USD&frequency=m&to=1999-02');
    expect(avg.data[0]).toMatchObject({ period: '1999-01', complete: false, note: null });
    expect(avg.data[0]!.value).toEqual(expect.any(Number));
    expect(avg.data[1]).toMatchObject({ period: '1999-02', complete: true });
    expect(avg.meta.transform.incomplete_periods).toBe('kept');
    const sum = await getJson('/api/v1/observations?series=ecb.USD&frequency=m&aggregation=sum&to=1999-02');
    expect(sum.data[0]).toMatchObject({
      period: '1999-01',
      value: null,
      level: null,
      note: 'incomplete_period',
    });
    expect(sum.meta.transform.notes).toEqual([
      { note: 'incomplete_period', periods: 1, first_period: '1999-01' },
    ]);
  });

  it('a value a transform cannot take is null with a note, in JSON and in CSV, never NaN', async () => {
    // The monthly change of payrolls is negative in some months: it has no logarithm there.
    const body = await getJson('/api/v1/macro/nonfarm-payrolls-change?units=log&limit=10000');
    const negative = body.data.filter((r) => r.level !== null && r.level <= 0);
    expect(negative.length).toBeGreaterThan(0);
    for (const row of body.data) {
      if (row.level! > 0) expect(row.value).toBeCloseTo(Math.log(row.level!), 12);
      else expect(row).toMatchObject({ value: null, note: 'non_positive_value' });
    }
    expect(body.meta.transform.notes).toEqual([
      { note: 'non_positive_value', periods: negative.length, first_period: negative[0]!.period },
    ]);
    const csv = await get('/api/v1/macro/nonfarm-payrolls-change.csv?units=pch&limit=10000');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await csv.text();
    expect(text).not.toMatch(/NaN|Infinity/);
    const [header, ...lines] = text.trim().split('\r\n');
    expect(header).toBe('period,value,level,source_values,complete,observed_at,note');
    const notes = lines.map((line) => line.split(',')).filter((cells) => cells[6] === 'non_positive_base');
    expect(notes.length).toBeGreaterThan(0);
    for (const cells of notes) expect(cells[1]).toBe('');
  });

  it('answers 400 naming the parameter and what it accepts', async () => {
    const base = `/api/v1/observations?series=${PAYROLLS}`;
    await expect400(`${base}&units=pct`, 'units', 'lin, chg, ch1, pch, pc1, pca, cch, cca, log');
    await expect400(`${base}&frequency=d`, 'frequency', 'w, m, q, a');
    await expect400(`${base}&frequency=q&aggregation=mean`, 'aggregation', 'avg, sum, eop');
    // A frequency not coarser than the series' own names the ones this series allows.
    await expect400(`${base}&frequency=m`, 'frequency', 'one of q, a for this monthly series');
    await expect400(`${base}&frequency=w`, 'frequency', 'one of q, a for this monthly series');
    await expect400('/api/v1/macro/nonfarm-payrolls?frequency=m', 'frequency', 'q, a');
    await expect400(`${base}&aggregation=sum`, 'aggregation', 'together with frequency');
    // Daily series go to weeks and months too.
    expect(
      (await getJson('/api/v1/observations?series=ecb.USD&frequency=a&from=2024&to=2024')).data,
    ).toHaveLength(1);
  });

  it('pages the transformed rows with next_cursor; the revision listing stays the default', async () => {
    const path = `/api/v1/observations?series=${PAYROLLS}&as_of=${AFTER_BOTH}&units=chg&from=2024-01&to=2025-12`;
    const whole = await getJson(path);
    expect(whole.data).toHaveLength(24);
    const rows: Row[] = [];
    let cursor: string | null = null;
    do {
      const page: Body = await getJson(`${path}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.data);
      cursor = page.meta.next_cursor;
    } while (cursor !== null);
    expect(rows).toEqual(whole.data);
    const raw = await getJson(`/api/v1/observations?series=${PAYROLLS}&from=2025-07&to=2025-07`);
    expect(raw.meta.view).toBe('revisions');
    expect(raw.data.length).toBe(2);
    expect(raw.meta).not.toHaveProperty('transform');
  });
});

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
 * The point-in-time panel (/api/v1/observations/aligned?as_of=row, docs/api/aligned.md) over HTTP
 * on the real sample: PAYEMS (two FRED vintages, published 2025-08-01 and 2026-10-02), the ECB USD
 * rates and the gold COT reports. The expected values are literals read from the publishers' files
 * (each checked against the file here too): a row shows a vintage only from the row whose last
 * day holds its release, a COT report only from the week it was published in.
 */

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const USD = 'ecb.USD';
const GOLD = 'cftc.088691.legacy';
const EARLY_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATE_VINTAGE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');
const ECB_HISTORY = join(SHARED_DATA, 'ecb/eurofxref-hist.csv');
const COT_LEGACY = join(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt');

interface Row {
  period: string;
  as_of?: string;
  values: Array<number | null>;
  filled: boolean[];
}
interface Body {
  data: Row[];
  meta: Record<string, unknown>;
}

/** One line of a CSV file that starts with `prefix`, split on commas. */
function lineOf(file: string, prefix: string): string[] {
  const line = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`${file}: no line starting ${prefix}`);
  return line.split(',');
}

/** The ECB's USD rate of one day, from the history file. */
function ecbUsd(day: string): number {
  const header = readFileSync(ECB_HISTORY, 'utf8').split(/\r?\n/)[0]!.split(',');
  return Number(lineOf(ECB_HISTORY, day)[header.indexOf('USD')]);
}

/** Gold's legacy report of one date: open interest and noncommercial long - short. */
function goldReport(day: string): { oi: number; net: number } {
  const lines = readFileSync(COT_LEGACY, 'utf8').split(/\r?\n/);
  const names = lines[0]!.split('","').map((n) => n.replaceAll('"', '').trim());
  const line = lines.find((l) => l.startsWith('"GOLD - COMMODITY EXCHANGE INC."') && l.includes(`,${day},`));
  if (!line) throw new Error(`no gold report of ${day}`);
  const cells = line.slice(line.indexOf('",') + 2).split(',');
  const cell = (name: string) => Number(cells[names.indexOf(name) - 1]!.trim());
  return {
    oi: cell('Open Interest (All)'),
    net: cell('Noncommercial Positions-Long (All)') - cell('Noncommercial Positions-Short (All)'),
  };
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

/** A validator of the route's documented 200 body (closed objects: no field it does not list). */
function bodyValidator(): { validate: (body: unknown) => boolean; errors: () => unknown } {
  // biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document whose shape the test checks
  const doc = createOpenApiDocument() as Record<string, any>;
  const id = 'urn:mmds:aligned-panel-components';
  const rebase = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
  ajv.addSchema({ $id: id, $defs: rebase(closeObjects(doc.components.schemas)) }, id);
  const schema =
    doc.paths['/api/v1/observations/aligned'].get.responses['200'].content['application/json'].schema;
  const compiled = ajv.compile(rebase(closeObjects(schema)));
  return { validate: (body) => compiled(body) as boolean, errors: () => compiled.errors };
}

describe('the point-in-time panel (as_of=row) on the real sample', () => {
  const schema = bodyValidator();
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  let observationsOnly: string;

  const get = (path: string, bearer = key) =>
    fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${bearer}` } });
  const getJson = async (path: string): Promise<Body> => {
    const response = await get(path);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(200);
    const body = JSON.parse(text) as Body;
    expect(schema.validate(body), `${path}: ${JSON.stringify(schema.errors())}`).toBe(true);
    return body;
  };
  const issue = async (scopes: string) => {
    const run = await runMmds(
      ['--json', 'keys', 'issue', '--org', 'Panel Org', '--scopes', scopes, '--rate-limit', '100000'],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { key: string }).key;
  };

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    key = await issue('observations:read,cot:history');
    observationsOnly = await issue('observations:read');
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('monthly: payrolls appear in the first row whose month ends after their release, carried as filled', async () => {
    // Read from the files: PAYEMS July 2025 in the vintage of 2025-08-02, the ECB's last USD rates of
    // July, August and September 2025.
    expect(lineOf(EARLY_VINTAGE, '2025-07-01')[1]).toBe('159539');
    expect([ecbUsd('2025-07-31'), ecbUsd('2025-08-29'), ecbUsd('2025-09-30')]).toEqual([
      1.1446, 1.1658, 1.1741,
    ]);
    const body = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS},${USD}&frequency=m&as_of=row&from=2025-07&to=2025-09`,
    );
    expect(body.data).toEqual([
      // At the end of July nothing of PAYEMS was published (the first vintage came on 1 August).
      { period: '2025-07', as_of: '2025-07-31T23:59:59Z', values: [null, 1.1446], filled: [false, false] },
      // At the end of August: July's value, carried into August (August itself is not out yet).
      { period: '2025-08', as_of: '2025-08-31T23:59:59Z', values: [159539, 1.1658], filled: [true, false] },
      // At the end of September: nothing for September or August, and a value is carried one row only.
      { period: '2025-09', as_of: '2025-09-30T23:59:59Z', values: [null, 1.1741], filled: [false, false] },
    ]);
    expect(body.meta).toMatchObject({ as_of: 'row', frequency: 'm', fill: 'ffill' });
    // The same rows as of one instant (the end of August) differ: July's row then shows July.
    const once = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS},${USD}&frequency=m&as_of=2025-08-31&from=2025-07&to=2025-09`,
    );
    expect(once.data[0]).toEqual({ period: '2025-07', values: [159539, 1.1446], filled: [false, false] });
  });

  it('weekly: the later vintage shows from the week of its release (Friday 2026-10-02) on, not before', async () => {
    expect(lineOf(LATE_VINTAGE, '2026-09-01')[1]).toBe('159044');
    const body = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS}&frequency=w&as_of=row&from=2026-09-19&to=2026-10-02`,
    );
    expect(body.data).toEqual([
      { period: '2026-09-25', as_of: '2026-09-25T23:59:59Z', values: [null], filled: [false] },
      { period: '2026-10-02', as_of: '2026-10-02T23:59:59Z', values: [159044], filled: [false] },
    ]);
    // Known today, the week of 2026-09-25 holds September's value: as_of=row does not look ahead.
    const latest = await getJson(
      `/api/v1/observations/aligned?series=${PAYROLLS}&frequency=w&from=2026-09-19&to=2026-09-25`,
    );
    expect(latest.data.map((row) => row.values)).toEqual([[159044]]);
  });

  it('COT: a report published on the Friday after its Tuesday counts in the row of that week', async () => {
    const march = goldReport('2025-03-04');
    const february = goldReport('2025-02-25');
    expect([march.oi, march.net, february.oi]).toEqual([489270, 243261, 512179]);
    const body = await getJson(
      `/api/v1/observations/aligned?series=${GOLD},${GOLD}.net.noncommercial&frequency=w&as_of=row&from=2025-02-28&to=2025-03-07`,
    );
    // The report of Tuesday 4 March was published on Friday 7 March (15:30 New York): in that week's row.
    expect(body.data).toEqual([
      {
        period: '2025-02-28',
        as_of: '2025-02-28T23:59:59Z',
        values: [512179, 261625],
        filled: [false, false],
      },
      {
        period: '2025-03-07',
        as_of: '2025-03-07T23:59:59Z',
        values: [489270, 243261],
        filled: [false, false],
      },
    ]);
  });

  it('COT: a report released late is not in its own week (the first row of gold is empty)', async () => {
    // The report of Tuesday 7 January 2025 came out on Monday 13 January: the CFTC was closed on the
    // 9th (national day of mourning; data/calendars/cftc_cot_release_exceptions.csv, from the CFTC's
    // announcement). The one of 14 January came out on its Friday, the 17th.
    expect([goldReport('2025-01-07').oi, goldReport('2025-01-14').oi]).toEqual([477043, 526467]);
    const body = await getJson(
      `/api/v1/observations/aligned?series=${GOLD}&frequency=w&as_of=row&from=2025-01-04&to=2025-01-17`,
    );
    expect(body.data).toEqual([
      { period: '2025-01-10', as_of: '2025-01-10T23:59:59Z', values: [null], filled: [false] },
      { period: '2025-01-17', as_of: '2025-01-17T23:59:59Z', values: [526467], filled: [false] },
    ]);
    // Known today, the week of 10 January has its report.
    const latest = await getJson(
      `/api/v1/observations/aligned?series=${GOLD}&frequency=w&from=2025-01-04&to=2025-01-10`,
    );
    expect(latest.data.map((row) => row.values)).toEqual([[477043]]);
  });

  it('every ECB currency, payrolls and gold over the whole history by week in one call; sampled rows equal their own as_of call', async () => {
    const header = readFileSync(ECB_HISTORY, 'utf8').split(/\r?\n/)[0]!.split(',');
    const currencies = header.slice(1).filter((c) => /^[A-Z]{3}$/.test(c));
    const keys = [PAYROLLS, GOLD, ...currencies.map((c) => `ecb.${c}`)].slice(0, 50);
    const path = `/api/v1/observations/aligned?series=${keys.join(',')}&frequency=w&limit=10000`;
    /** One request's time to the whole body, as text (the schema check is apart). */
    const timed = async (query: string) => {
      const started = Date.now();
      const response = await get(`${path}${query}`);
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).toBe(200);
      return { ms: Date.now() - started, body: JSON.parse(text) as Body };
    };
    const first = await timed('&as_of=row');
    const again = await timed('&as_of=row');
    const plain = await timed('');
    const body = first.body;
    console.info(
      `aligned panel: ${keys.length} series, ${body.data.length} weeks in ${first.ms} ms (again ${again.ms} ms; without as_of ${plain.ms} ms)`,
    );
    expect(body.data.length).toBeGreaterThan(1000);
    expect(body.data.map((row) => row.period)).toEqual(plain.body.data.map((row) => row.period));
    // Rows from the ECB's first week on (before it, only payrolls, not published yet at those rows).
    const ecbStart = body.data.findIndex((row) => row.period >= '1999-01-08');
    for (const n of [ecbStart, ecbStart + 1, ecbStart + 500, ecbStart + 1000, body.data.length - 1]) {
      const row = body.data[n]!;
      // The row and the one before it, as of the row's instant (a gap is filled from the one before).
      const before = body.data[n - 1]!.period;
      const single = await getJson(`${path}&as_of=${row.as_of}&from=${before}&to=${row.period}`);
      const same = single.data.find((r) => r.period === row.period);
      expect(same, row.period).toBeDefined();
      expect({ ...same, as_of: row.as_of }).toEqual(row);
    }
  });

  it('CSV: period, as_of, then one column per key', async () => {
    const path = `/api/v1/observations/aligned.csv?series=${PAYROLLS},${USD}&frequency=m&as_of=row&from=2025-07&to=2025-08`;
    const response = await get(path);
    expect(response.status).toBe(200);
    expect((await response.text()).trimEnd().split('\r\n')).toEqual([
      `period,as_of,${PAYROLLS},${USD}`,
      '2025-07,2025-07-31T23:59:59Z,,1.1446',
      '2025-08,2025-08-31T23:59:59Z,159539,1.1658',
    ]);
  });

  it('pages like the calendar without as_of, newest first with sort_order=desc', async () => {
    const path = `/api/v1/observations/aligned?series=${USD},${PAYROLLS}&frequency=m&as_of=row&from=2025-01&to=2025-12`;
    const whole = await getJson(path);
    expect(whole.data.map((row) => row.period)).toEqual(
      (await getJson(path.replace('as_of=row&', ''))).data.map((row) => row.period),
    );
    const rows: Row[] = [];
    let cursor: string | null = null;
    do {
      const page: Body = await getJson(`${path}&limit=5&sort_order=desc${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.data);
      cursor = page.meta.next_cursor as string | null;
    } while (cursor);
    expect(rows).toEqual([...whole.data].reverse());
  });

  it('bad input and rights: 400 naming the parameter, 401, and 403 naming cot:history for COT columns', async () => {
    const base = `/api/v1/observations/aligned?series=${USD}&frequency=m`;
    for (const [query, parameter, accepted] of [
      ['as_of=rows', 'as_of', 'or row (each row as known at the end of its own date)'],
      ['as_of=row&as_of=2025-01-01', 'as_of', 'a single value'],
      ['as_of=row&realtime_start=2025-01-01', 'realtime_start', 'as_of'],
    ] as const) {
      const response = await get(`${base}&${query}`);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status, query).toBe(400);
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.message).toContain(`"${parameter}"`);
      expect(body.error.message).toContain(accepted);
    }
    expect((await fetch(`${server.url}${base}&as_of=row`)).status).toBe(401);
    const refused = await get(
      `/api/v1/observations/aligned?series=${GOLD}&frequency=w&as_of=row`,
      observationsOnly,
    );
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('cot:history');
  });
});

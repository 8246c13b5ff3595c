import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * from/to (and observation_start/observation_end) over HTTP on the sample snapshot: ECB daily
 * rates, weekly COT reports (gold, legacy 2025) and monthly payrolls (two FRED vintages). The
 * expected periods are read from the sample files themselves, never typed in.
 */

const REAL_CLOCK = () => new Date();
const PAYROLLS = 'bls.CES0000000001';
const ECB_FILE = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
const COT_FILE = join(SAMPLE_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt');
const PAYROLL_FILES = [
  join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv'),
  join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv'),
];

/** The ECB reference dates of the sample that quote USD. */
function ecbUsdDates(): string[] {
  const [header, ...lines] = readFileSync(ECB_FILE, 'utf8').trim().split(/\r?\n/);
  const column = header!.split(',').indexOf('USD');
  return lines
    .map((line) => line.split(','))
    .filter((cells) => cells[column] !== 'N/A' && cells[column] !== '')
    .map((cells) => cells[0]!)
    .sort();
}

/** The report dates of gold (CFTC code 088691) in the legacy sample. */
function goldReportDates(): string[] {
  return readFileSync(COT_FILE, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.startsWith('"GOLD - COMMODITY EXCHANGE INC."'))
    .map((line) => line.split(',')[2]!)
    .sort();
}

/** The months either payroll vintage holds (FRED dates the month by its first day). */
function payrollMonths(): string[] {
  const months = new Set<string>();
  for (const file of PAYROLL_FILES)
    for (const line of readFileSync(file, 'utf8').trim().split(/\r?\n/).slice(1))
      months.add(line.slice(0, 7));
  return [...months].sort();
}

interface Body {
  data: Array<{ period?: string; report_date?: string; revision_number: number }>;
  meta: { next_cursor: string | null; filters: { from: string | null; to: string | null } };
  error?: { code: string; message: string };
}

describe('period filters understand dates (endpoints 3, 5 and 8 over HTTP)', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let key: string;
  const usd = ecbUsdDates();
  const gold = goldReportDates();
  const months = payrollMonths();

  const call = async (path: string, withKey = true): Promise<{ status: number; body: Body }> => {
    const response = await fetch(`${server.url}${path}`, {
      headers: withKey ? { Authorization: `Bearer ${key}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const ok = async (path: string): Promise<Body> => {
    const { status, body } = await call(path);
    expect(status, `${path}: ${JSON.stringify(body.error)}`).toBe(200);
    return body;
  };
  const periods = (body: Body) => [...new Set(body.data.map((row) => row.period ?? row.report_date!))];
  const refused = async (path: string): Promise<string> => {
    const { status, body } = await call(path);
    expect(status, path).toBe(400);
    expect(body.error?.code).toBe('invalid_parameter');
    return body.error!.message;
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    server = await startTestServer({ dataDir: fixture.dataDir, distDir: join(fixture.dataDir, 'no-dist') });
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'Period Filter Org',
        '--scopes',
        'cot:history,macro:history,observations:read',
        '--rate-limit',
        '100000',
      ],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    key = (JSON.parse(run.stdout) as { key: string }).key;
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  it('the sample holds what the cases below need', () => {
    expect(usd.filter((d) => d.startsWith('2025-06')).length).toBeGreaterThan(15);
    expect(gold.filter((d) => d.startsWith('2025-02')).length).toBe(4);
    expect(months).toEqual(expect.arrayContaining(['2025-01', '2025-06', '2025-12', '2026-03']));
  });

  describe('daily ECB rates (endpoint 8, ecb.USD)', () => {
    const june = () => usd.filter((d) => d.startsWith('2025-06'));

    it('from=2025-06-01&to=2025-06-30 gives every June reference date', async () => {
      const body = await ok('/api/v1/observations?series=ecb.USD&from=2025-06-01&to=2025-06-30');
      expect(periods(body)).toEqual(june());
      expect(body.meta.filters).toEqual({ from: '2025-06-01', to: '2025-06-30' });
    });

    it('a month, a quarter and a year select their days', async () => {
      expect(periods(await ok('/api/v1/observations?series=ecb.USD&from=2025-06&to=2025-06'))).toEqual(
        june(),
      );
      expect(periods(await ok('/api/v1/observations?series=ecb.USD&from=2025-Q2&to=2025-Q2'))).toEqual(
        usd.filter((d) => d >= '2025-04-01' && d <= '2025-06-30'),
      );
      expect(periods(await ok('/api/v1/observations?series=ecb.USD&from=2025&to=2025&limit=10000'))).toEqual(
        usd.filter((d) => d.startsWith('2025')),
      );
      // from=2025-06 no longer drops June: the first row is the first June reference date.
      expect(periods(await ok('/api/v1/observations?series=ecb.USD&from=2025-06&limit=1'))).toEqual([
        june()[0],
      ]);
    });

    it('pages through a filtered range with the cursor, aliases on every page', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body = await ok(
          `/api/v1/observations?series=ecb.USD&observation_start=2025-06&observation_end=2025-06-30&limit=5${cursor ? `&cursor=${cursor}` : ''}`,
        );
        seen.push(...periods(body));
        cursor = body.meta.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(seen).toEqual(june());
      expect(pages).toBe(Math.ceil(june().length / 5));
    });
  });

  describe('weekly COT reports (endpoint 3 with cot:history, gold)', () => {
    it('a month holds the reports dated inside it', async () => {
      const body = await ok('/api/v1/markets/cot/gold?from=2025-02&to=2025-02');
      expect(periods(body)).toEqual(gold.filter((d) => d.startsWith('2025-02')));
      expect(body.meta.filters).toEqual({ from: '2025-02', to: '2025-02' });
    });

    it('a day between two reports starts at the next one; a quarter holds them all', async () => {
      expect(periods(await ok('/api/v1/markets/cot/gold?from=2025-02-05&to=2025-02-18'))).toEqual(
        gold.filter((d) => d >= '2025-02-05' && d <= '2025-02-18'),
      );
      expect(periods(await ok('/api/v1/markets/cot/gold?observation_start=2025-Q1'))).toEqual(gold);
      expect(periods(await ok('/api/v1/markets/cot/gold?observation_end=2025-01-31'))).toEqual(
        gold.filter((d) => d <= '2025-01-31'),
      );
    });
  });

  describe('monthly payrolls (endpoints 8 and 5)', () => {
    it('from=2025-06-01&to=2025-06-30 selects June (the issue: a 200 with no rows, as text)', async () => {
      const body = await ok(`/api/v1/observations?series=${PAYROLLS}&from=2025-06-01&to=2025-06-30`);
      expect(periods(body)).toEqual(['2025-06']);
      expect(periods(await ok(`/api/v1/observations?series=${PAYROLLS}&from=2025-06-01&to=2025-07`))).toEqual(
        ['2025-06', '2025-07'],
      );
    });

    it('a day inside a month selects that month', async () => {
      const body = await ok(`/api/v1/observations?series=${PAYROLLS}&from=2025-06-15&to=2025-06-15`);
      expect(periods(body)).toEqual(['2025-06']);
      // Both vintages know June 2025: two revisions of the one period.
      expect(body.data.map((row) => row.revision_number)).toEqual([1, 2]);
    });

    it('a quarter and a year select their months (to=2025 used to end at 2024-12)', async () => {
      expect(periods(await ok(`/api/v1/observations?series=${PAYROLLS}&from=2025-Q2&to=2025-Q2`))).toEqual([
        '2025-04',
        '2025-05',
        '2025-06',
      ]);
      expect(periods(await ok(`/api/v1/observations?series=${PAYROLLS}&from=2025&to=2025`))).toEqual(
        months.filter((m) => m.startsWith('2025')),
      );
    });

    it('endpoint 5 takes the same filters and aliases', async () => {
      const body = await ok(
        '/api/v1/macro/nonfarm-payrolls?observation_start=2025-06-15&observation_end=2025-Q3',
      );
      expect(periods(body)).toEqual(['2025-06', '2025-07', '2025-08', '2025-09']);
      expect(body.meta.filters).toEqual({ from: '2025-06-15', to: '2025-Q3' });
    });
  });

  describe('refusals', () => {
    const FORMS =
      'expected a real period YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD, such as 2025, 2025-06, 2025-Q2 or 2025-06-15';

    it('from after to is a 400 naming both, on every history endpoint', async () => {
      for (const path of [
        `/api/v1/observations?series=${PAYROLLS}&from=2025-07&to=2025-06-30`,
        '/api/v1/macro/nonfarm-payrolls?from=2025-07&to=2025-06-30',
        '/api/v1/markets/cot/gold?from=2025-07&to=2025-06-30',
      ])
        expect(await refused(path), path).toBe(
          'invalid parameter "from": expected a period that does not start after to ends ' +
            '(from=2025-07 starts on 2025-07-01, to=2025-06-30 ends on 2025-06-30)',
        );
    });

    it('an alias together with its parameter is a 400', async () => {
      expect(await refused(`/api/v1/observations?series=${PAYROLLS}&from=2025&observation_start=2025`)).toBe(
        'invalid parameter "observation_start": expected either from or observation_start (an alias of from), not both',
      );
    });

    it('impossible dates and unknown forms are a 400 naming the accepted forms', async () => {
      for (const [name, value] of [
        ['from', '2025-02-30'],
        ['to', '2025-13'],
        ['observation_end', '2025-Q5'],
        ['from', '2025-W23'],
      ])
        expect(await refused(`/api/v1/markets/cot/gold?${name}=${value}`)).toBe(
          `invalid parameter "${name}": ${FORMS}`,
        );
    });

    it('the aliases are keyed-only like from and to', async () => {
      const plain = await call('/api/v1/markets/cot/gold?from=2025-01', false);
      const alias = await call('/api/v1/markets/cot/gold?observation_start=2025-01', false);
      expect(plain.status).toBeGreaterThanOrEqual(401);
      expect(plain.status).toBeLessThanOrEqual(403);
      expect(alias.status).toBe(plain.status);
      expect(alias.body.error?.message).toBe(plain.body.error?.message.replace('from', 'observation_start'));
    });
  });
});

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/contract/errors.ts';
import { parseRequest } from '../../src/contract/parse-request.ts';
import { ROUTES, type RouteId } from '../../src/contract/routes.ts';
import { openDuckDb, readRows } from '../../src/db/duckdb.ts';
import {
  isEmptyRange,
  isRealPeriod,
  periodDaySpan,
  periodsHoldingDay,
  resolvePeriodRange,
} from '../../src/model/period-range.ts';
import { bindPeriodRange, periodRangeSql } from '../../src/query/history.ts';

const route = (id: RouteId) => ROUTES.find((r) => r.id === id)!;
const parseObservations = (query: string) =>
  parseRequest(route('observations'), null, new URLSearchParams(`series=bls.CES0000000001&${query}`));

/** The 400 a query gets: its message, or a failure when it is accepted. */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_parameter');
    return (error as ApiError).message;
  }
  throw new Error('accepted');
}

/**
 * The reference model, written independently of src/: a period's days from Date arithmetic
 * (day 0 of the next month is the last day of this one).
 */
function modelSpan(period: string): [string, string] {
  const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
  const year = Number(period.slice(0, 4));
  if (period.length === 4) return [`${period}-01-01`, `${period}-12-31`];
  if (period.length === 10) return [period, period];
  if (period[5] === 'Q') {
    const q = Number(period[6]);
    return [iso(year, q * 3 - 2, 1), iso(year, q * 3 + 1, 0)];
  }
  const month = Number(period.slice(5, 7));
  return [iso(year, month, 1), iso(year, month + 1, 0)];
}

/** What a filter selects in the model: the periods that share a day with [from's first, to's last]. */
function modelSelect(periods: readonly string[], from: string | null, to: string | null): string[] {
  const first = from === null ? null : modelSpan(from)[0];
  const last = to === null ? null : modelSpan(to)[1];
  return periods
    .filter((p) => {
      const [start, end] = modelSpan(p);
      return (first === null || end >= first) && (last === null || start <= last);
    })
    .sort();
}

describe('period filter values', () => {
  it('turns each accepted form into its first and last day', () => {
    expect(periodDaySpan('2025')).toEqual({ first: '2025-01-01', last: '2025-12-31' });
    expect(periodDaySpan('2025-06')).toEqual({ first: '2025-06-01', last: '2025-06-30' });
    expect(periodDaySpan('2025-Q1')).toEqual({ first: '2025-01-01', last: '2025-03-31' });
    expect(periodDaySpan('2025-Q2')).toEqual({ first: '2025-04-01', last: '2025-06-30' });
    expect(periodDaySpan('2025-Q3')).toEqual({ first: '2025-07-01', last: '2025-09-30' });
    expect(periodDaySpan('2025-Q4')).toEqual({ first: '2025-10-01', last: '2025-12-31' });
    expect(periodDaySpan('2025-06-15')).toEqual({ first: '2025-06-15', last: '2025-06-15' });
    // Leap years of the Gregorian calendar: 2024 and 2000 are, 2100 and 2025 are not.
    expect(periodDaySpan('2024-02')?.last).toBe('2024-02-29');
    expect(periodDaySpan('2000-02')?.last).toBe('2000-02-29');
    expect(periodDaySpan('2100-02')?.last).toBe('2100-02-28');
    expect(periodDaySpan('2025-02')?.last).toBe('2025-02-28');
    expect(isRealPeriod('2024-02-29')).toBe(true);
  });

  it('refuses what is not a real period of one of the four forms', () => {
    for (const text of [
      '2025-02-30',
      '2025-02-29',
      '2100-02-29',
      '2025-04-31',
      '2025-13',
      '2025-00',
      '2025-06-00',
      '2025-06-32',
      '2025-Q0',
      '2025-Q5',
      '2025-6',
      '2025-W23',
      '25',
      '2025-06-15T00:00:00Z',
      '',
    ])
      expect(isRealPeriod(text), text).toBe(false);
  });

  it('names the period of every form holding a day', () => {
    expect(periodsHoldingDay('2025-08-31')).toEqual({
      day: '2025-08-31',
      month: '2025-08',
      quarter: '2025-Q3',
      year: '2025',
    });
  });

  it('resolves from and to to days; from after to is an empty range', () => {
    expect(resolvePeriodRange('2025', '2025-Q2')).toEqual({ firstDay: '2025-01-01', lastDay: '2025-06-30' });
    expect(resolvePeriodRange(null, '2025-06')).toEqual({ firstDay: null, lastDay: '2025-06-30' });
    expect(isEmptyRange(resolvePeriodRange('2025-06-15', '2025-06'))).toBe(false);
    expect(isEmptyRange(resolvePeriodRange('2025-07', '2025-06-30'))).toBe(true);
    expect(isEmptyRange(resolvePeriodRange('2025-06-30', '2025-06-30'))).toBe(false);
  });
});

describe('period filters in a request (parseRequest, every keyed history route)', () => {
  it('accepts observation_start and observation_end as from and to', () => {
    const { query, keyedParams } = parseObservations(
      'observation_start=2025-06-01&observation_end=2025-06-30',
    );
    expect(query.from).toBe('2025-06-01');
    expect(query.to).toBe('2025-06-30');
    expect(query).not.toHaveProperty('observation_start');
    // The alias is keyed-only like the parameter it stands for.
    expect(keyedParams).toEqual(['observation_start', 'observation_end']);
    for (const id of ['observations', 'macro-series', 'cot-market'] as const)
      expect(route(id).query, id).toEqual(expect.arrayContaining(['observation_start', 'observation_end']));
  });

  it('refuses an alias given together with its parameter, even with the same value', () => {
    expect(refusal(() => parseObservations('from=2025-06&observation_start=2025-06'))).toBe(
      'invalid parameter "observation_start": expected either from or observation_start (an alias of from), not both',
    );
    expect(refusal(() => parseObservations('to=2025&observation_end=2025-12'))).toMatch(
      /"observation_end": expected either to or observation_end/,
    );
  });

  it('refuses a range that starts after it ends, naming both ends as the caller spelled them', () => {
    expect(refusal(() => parseObservations('from=2025-07&to=2025-06-30'))).toBe(
      'invalid parameter "from": expected a period that does not start after to ends ' +
        '(from=2025-07 starts on 2025-07-01, to=2025-06-30 ends on 2025-06-30)',
    );
    expect(refusal(() => parseObservations('observation_start=2026&to=2025-Q4'))).toMatch(
      /"observation_start": expected a period that does not start after to ends \(observation_start=2026 starts on 2026-01-01, to=2025-Q4 ends on 2025-12-31\)/,
    );
    // A day inside the month of `to` is not after it.
    expect(parseObservations('from=2025-06-15&to=2025-06').query.from).toBe('2025-06-15');
  });

  it('refuses impossible dates and other forms, naming the accepted forms', () => {
    for (const [name, value] of [
      ['from', '2025-02-30'],
      ['to', '2025-13'],
      ['observation_start', '2025-Q5'],
      ['observation_end', '2025-6'],
      ['from', '2025-06-15T00:00:00Z'],
    ])
      expect(
        refusal(() => parseObservations(`${name}=${value}`)),
        `${name}=${value}`,
      ).toBe(
        `invalid parameter "${name}": expected a real period YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD, ` +
          'such as 2025, 2025-06, 2025-Q2 or 2025-06-15',
      );
  });
});

describe('the SQL period condition in DuckDB, every form of bound against every form of period', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  const periods: string[] = [];
  for (const year of [2024, 2025, 2026]) {
    periods.push(String(year));
    for (let q = 1; q <= 4; q++) periods.push(`${year}-Q${q}`);
    for (let m = 1; m <= 12; m++) {
      const month = `${year}-${String(m).padStart(2, '0')}`;
      periods.push(month);
      for (const day of ['01', '14', '15', '28']) periods.push(`${month}-${day}`);
    }
  }
  periods.push('2024-02-29', '2025-06-30', '2025-03-31', '2025-12-31', '2024-12-31', '2026-01-01');

  beforeAll(async () => {
    instance = await openDuckDb();
    connection = await instance.connect();
    await connection.run(
      `CREATE TABLE periods AS SELECT unnest(${`[${periods.map((p) => `'${p}'`).join(',')}]`}) AS period`,
    );
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  const select = async (from: string | null, to: string | null) =>
    (
      await readRows<{ period: string }>(
        connection,
        `SELECT period FROM periods WHERE ${periodRangeSql('period')} ORDER BY period`,
        bindPeriodRange(resolvePeriodRange(from, to)),
      )
    ).map((r) => r.period);

  it('matches the model for each pair of bound forms, open ends included', async () => {
    const bounds = [
      null,
      '2025',
      '2025-Q1',
      '2025-Q2',
      '2025-Q4',
      '2025-06',
      '2025-02',
      '2025-06-01',
      '2025-06-15',
      '2025-06-30',
      '2025-03-31',
      '2025-12-31',
      '2024-02-29',
      '2026-01-01',
    ];
    let compared = 0;
    for (const from of bounds)
      for (const to of bounds) {
        if (from && to && isEmptyRange(resolvePeriodRange(from, to))) continue;
        expect(await select(from, to), `from=${from} to=${to}`).toEqual(modelSelect(periods, from, to));
        compared++;
      }
    expect(compared).toBeGreaterThan(100);
  });

  it('selects June for a day of June, and the month, quarter and year holding it (the issue)', async () => {
    const june = await select('2025-06-01', '2025-06-30');
    expect(june).toContain('2025-06');
    expect(june).toContain('2025-Q2');
    expect(june).toContain('2025');
    expect(june).toContain('2025-06-15');
    expect(june).not.toContain('2025-05-28');
    expect(june).not.toContain('2025-07');
    expect(await select('2025-06-15', null)).toContain('2025-06');
    expect(await select(null, '2025-06-15')).not.toContain('2025-06-28');
  });
});

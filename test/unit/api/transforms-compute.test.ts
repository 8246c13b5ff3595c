import { describe, expect, it } from 'vitest';
import type { InForceRow } from '../../../src/query/history-rows.ts';
import { targetPeriod, transformSeries } from '../../../src/query/transforms-compute.ts';

/**
 * The rules of docs/api/transforms.md that the real data and the property test do not reach:
 * gaps, labels of weeks and days a year ago, signs, and the knowledge time of a row.
 */

const row = (period: string, value: number, observed_at = '2025-01-01T00:00:00Z'): InForceRow => ({
  period,
  value,
  revision_number: 1,
  observed_at,
});

describe('transformSeries', () => {
  it('labels a week ending Friday by its Friday, Saturday to Friday', () => {
    // 2024-03-02 is a Saturday, 2024-03-08 a Friday, 2024-03-09 the next Saturday.
    expect(targetPeriod('2024-03-02', 'w')).toBe('2024-03-08');
    expect(targetPeriod('2024-03-08', 'w')).toBe('2024-03-08');
    expect(targetPeriod('2024-03-09', 'w')).toBe('2024-03-15');
    expect(targetPeriod('2024-11-15', 'q')).toBe('2024-Q4');
    expect(targetPeriod('2024-Q3', 'a')).toBe('2024');
  });

  it('gives null for the month after a gap: the previous period is by label, not the previous row', () => {
    const rows = [row('2025-01', 100), row('2025-03', 110)];
    const out = transformSeries(rows, 'monthly', { units: 'chg', frequency: null, aggregation: null });
    expect(out.map((r) => [r.period, r.value, r.note])).toEqual([
      ['2025-01', null, 'no_previous_value'],
      ['2025-03', null, 'no_previous_value'],
    ]);
  });

  it('takes the previous value of a daily series across a weekend, and a year ago by the same date', () => {
    // 2025-03-14 is a Friday and 2025-03-17 a Monday; 2024-03-17 was a Sunday (no value).
    const rows = [row('2024-03-14', 1), row('2024-03-15', 2), row('2025-03-14', 4), row('2025-03-17', 5)];
    const chg = transformSeries(rows, 'daily', { units: 'chg', frequency: null, aggregation: null });
    expect(chg.at(-1)!.value).toBe(1);
    const ch1 = transformSeries(rows, 'daily', { units: 'ch1', frequency: null, aggregation: null });
    expect(ch1.map((r) => [r.period, r.value, r.note])).toEqual([
      ['2024-03-14', null, 'no_year_ago_value'],
      ['2024-03-15', null, 'no_year_ago_value'],
      ['2025-03-14', 3, null],
      ['2025-03-17', null, 'no_year_ago_value'],
    ]);
  });

  it('refuses ratios to a zero or negative base and compounding a sign change', () => {
    const rows = [row('2025-01', 0), row('2025-02', 5), row('2025-03', -5), row('2025-04', 5)];
    const units = (u: 'pch' | 'pca' | 'cch' | 'log') =>
      transformSeries(rows, 'monthly', { units: u, frequency: null, aggregation: null }).map((r) => r.note);
    expect(units('pch')).toEqual(['no_previous_value', 'non_positive_base', null, 'non_positive_base']);
    expect(units('pca')).toEqual([
      'no_previous_value',
      'non_positive_base',
      'negative_ratio',
      'non_positive_base',
    ]);
    expect(units('cch')).toEqual([
      'no_previous_value',
      'non_positive_base',
      'non_positive_value',
      'non_positive_base',
    ]);
    expect(units('log')).toEqual(['non_positive_value', null, 'non_positive_value', null]);
  });

  it('dates a row by the latest knowledge time of the values it was computed from', () => {
    const rows = [row('2025-01', 100, '2025-03-01T00:00:00Z'), row('2025-02', 110, '2025-02-15T00:00:00Z')];
    const out = transformSeries(rows, 'monthly', { units: 'pch', frequency: null, aggregation: null });
    expect(out[1]).toMatchObject({ observed_at: '2025-03-01T00:00:00Z', note: null });
    expect(out[1]!.value).toBeCloseTo(10, 12);
    const lin = transformSeries(rows, 'monthly', { units: 'lin', frequency: null, aggregation: null });
    expect(lin[1]!.observed_at).toBe('2025-02-15T00:00:00Z');
  });

  it('compares a week with the week 52 weeks earlier', () => {
    const rows = [row('2024-03-08', 2), row('2025-03-07', 3)];
    const out = transformSeries(rows, 'weekly', { units: 'pc1', frequency: null, aggregation: null });
    expect(out[1]!.value).toBeCloseTo(50, 12);
  });

  it('aggregates in decimal to the published precision (meta.transform.rounding), raw values untouched', () => {
    // 1.1 + 2.2 is 3.3000000000000003 in doubles; weekly values of 4 decimals, a quarter of integers.
    const terms = [row('2025-01', 1.1), row('2025-02', 2.2), row('2025-03', 1.0001)];
    expect(1.1 + 2.2 + 1.0001).not.toBe(4.3001);
    const sum = transformSeries(terms, 'monthly', { units: 'lin', frequency: 'q', aggregation: 'sum' });
    expect(sum.map((r) => r.level)).toEqual([4.3001]);
    const week = [1.0309, 1.0311, 1.031, 1.0312, 1.0308].map((v, i) => row(`2024-03-0${4 + i}`, v));
    const avg = transformSeries(week, 'daily', { units: 'lin', frequency: 'w', aggregation: 'avg' });
    expect(avg.map((r) => r.value)).toEqual([1.031]);
    const months = [157_245, 157_246, 157_245].map((v, i) => row(`2025-0${i + 1}`, v));
    const quarter = transformSeries(months, 'monthly', { units: 'lin', frequency: 'q', aggregation: 'avg' });
    expect(quarter[0]!.level).toBe(157_245.3333);
    // Differences are exact at the inputs' decimals; eop and untransformed values are as stored.
    const chg = transformSeries([row('2025-01', 1.02), row('2025-02', 1.031)], 'monthly', {
      units: 'chg',
      frequency: null,
      aggregation: null,
    });
    expect(chg[1]!.value).toBe(0.011);
    const raw = [row('2025-01', 0.1 + 0.2), row('2025-02', 1 / 3)];
    const lin = transformSeries(raw, 'monthly', { units: 'lin', frequency: null, aggregation: null });
    expect(lin.map((r) => r.value)).toEqual([0.1 + 0.2, 1 / 3]);
    const eop = transformSeries(raw, 'monthly', { units: 'lin', frequency: 'q', aggregation: 'eop' });
    expect(eop.map((r) => r.level)).toEqual([null]);
  });
});

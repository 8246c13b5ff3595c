import { describe, expect, it } from 'vitest';
import { planCftcFiles } from '../../../src/fetch/cftc-plan.ts';

const MARCH_2026 = new Date('2026-03-20T12:00:00Z');

describe('planCftcFiles', () => {
  it('plans the current year from the clock, never a constant', () => {
    expect(planCftcFiles({ reports: ['legacy'], combined: false }, MARCH_2026)).toEqual([
      {
        path: 'files/dea/history/deacot2026.zip',
        member: 'annual.txt',
        report: 'legacy',
        combined: false,
        years: [2026],
        multiYear: false,
      },
    ]);
    expect(
      planCftcFiles({ reports: ['tff'], combined: false }, new Date('2031-06-01T00:00:00Z'))[0]?.path,
    ).toBe('files/dea/history/fut_fin_txt_2031.zip');
  });

  it('adds the previous year in January, when its file receives the last December reports', () => {
    const plan = planCftcFiles({ reports: ['legacy'], combined: false }, new Date('2027-01-03T10:00:00Z'));
    expect(plan.map((file) => file.path)).toEqual([
      'files/dea/history/deacot2026.zip',
      'files/dea/history/deacot2027.zip',
    ]);
  });

  it('fetches years before 2017 through the multi-year archive, once', () => {
    const plan = planCftcFiles({ reports: ['disaggregated'], combined: false, since: 2014 }, MARCH_2026);
    expect(plan.map((file) => [file.path, file.member, file.years])).toEqual([
      ['files/dea/history/fut_disagg_txt_hist_2006_2016.zip', 'F_Disagg06_16.txt', [2014, 2015, 2016]],
      ...[2017, 2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025, 2026].map((year) => [
        `files/dea/history/fut_disagg_txt_${year}.zip`,
        'f_year.txt',
        [year],
      ]),
    ]);
  });

  it('names every report family, futures only and combined', () => {
    const names = (combined: boolean, year: number) =>
      planCftcFiles({ reports: ['legacy', 'disaggregated', 'tff', 'cit'], combined, year }, MARCH_2026).map(
        (file) => `${file.path.replace('files/dea/history/', '')}>${file.member}`,
      );
    expect(names(false, 2025)).toEqual([
      'deacot2025.zip>annual.txt',
      'fut_disagg_txt_2025.zip>f_year.txt',
      'fut_fin_txt_2025.zip>FinFutYY.txt',
      'dea_cit_txt_2025.zip>annualci.txt',
    ]);
    expect(names(true, 2025)).toEqual([
      'deahistfo2025.zip>annualof.txt',
      'com_disagg_txt_2025.zip>c_year.txt',
      'com_fin_txt_2025.zip>FinComYY.txt',
      'dea_cit_txt_2025.zip>annualci.txt',
    ]);
    expect(names(false, 2010)).toEqual([
      'deacot1986_2016.zip>FUT86_16.txt',
      'fut_disagg_txt_hist_2006_2016.zip>F_Disagg06_16.txt',
      'fin_fut_txt_2006_2016.zip>F_TFF_2006_2016.txt',
      'dea_cit_txt_2006_2016.zip>CIT06_16.txt',
    ]);
    expect(names(true, 2010)).toEqual([
      'deahistfo_1995_2016.zip>Com95_16.txt',
      'com_disagg_txt_hist_2006_2016.zip>C_Disagg06_16.txt',
      'fin_com_txt_2006_2016.zip>C_TFF_2006_2016.txt',
      'dea_cit_txt_2006_2016.zip>CIT06_16.txt',
    ]);
  });

  it('marks the CIT report as combined even when futures only is asked for', () => {
    expect(planCftcFiles({ reports: ['cit'], combined: false, year: 2024 }, MARCH_2026)[0]?.combined).toBe(
      true,
    );
  });

  it('starts each report at its first year and refuses years it does not have', () => {
    const plan = planCftcFiles({ reports: ['legacy', 'tff'], combined: false, since: 1990 }, MARCH_2026);
    expect(
      plan.filter((file) => file.multiYear).map((file) => [file.report, file.years[0], file.years.at(-1)]),
    ).toEqual([
      ['legacy', 1990, 2016],
      ['tff', 2006, 2016],
    ]);
    expect(() => planCftcFiles({ reports: ['tff'], combined: false, year: 2001 }, MARCH_2026)).toThrow(
      /starts in 2006/,
    );
    expect(() => planCftcFiles({ reports: ['legacy'], combined: false, year: 2027 }, MARCH_2026)).toThrow(
      /future/,
    );
    expect(() =>
      planCftcFiles({ reports: ['legacy'], combined: false, year: 2020, since: 2019 }, MARCH_2026),
    ).toThrow(/not both/);
  });
});

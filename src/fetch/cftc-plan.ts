/**
 * The CFTC's historical compressed files (https://www.cftc.gov/MarketReports/CommitmentsofTraders/
 * HistoricalCompressed/index.htm), all under https://www.cftc.gov/files/dea/history/. Names and
 * members as published (checked against two independent downloaders that name every file):
 * each report has one zip per year from 2017 on, updated weekly for the current year, and one
 * multi-year archive that ends in 2016.
 */

/** The COT report families. */
export type CftcReport = 'legacy' | 'disaggregated' | 'tff' | 'cit';

/** What `planCftcFiles` and the CFTC fetcher take. */
export interface CftcPlanOptions {
  reports: CftcReport[];
  /** Futures-and-options combined instead of futures only (the CIT report is always combined). */
  combined: boolean;
  /** One year only. */
  year?: number;
  /** Every year from this one to the current one. */
  since?: number;
}

/** One file to download: a yearly zip, or a multi-year archive fetched once for all its years. */
export interface CftcPlannedFile {
  /** Path under the publisher root, e.g. `files/dea/history/deacot2025.zip`. */
  path: string;
  /** The member the CFTC puts in it. */
  member: string;
  report: CftcReport;
  combined: boolean;
  /** The requested years this file serves. */
  years: number[];
  multiYear: boolean;
}

interface Family {
  yearly: (year: number) => string;
  yearlyMember: string;
  multiYear: string;
  multiYearMember: string;
  firstYear: number;
}

const HISTORY = 'files/dea/history/';
/** The last year the multi-year archives cover; yearly zips start the year after. */
export const LAST_MULTI_YEAR = 2016;

const FAMILIES: Record<string, Family> = {
  'legacy:futures': {
    yearly: (y) => `deacot${y}.zip`,
    yearlyMember: 'annual.txt',
    multiYear: 'deacot1986_2016.zip',
    multiYearMember: 'FUT86_16.txt',
    firstYear: 1986,
  },
  'legacy:combined': {
    yearly: (y) => `deahistfo${y}.zip`,
    yearlyMember: 'annualof.txt',
    multiYear: 'deahistfo_1995_2016.zip',
    multiYearMember: 'Com95_16.txt',
    firstYear: 1995,
  },
  'disaggregated:futures': {
    yearly: (y) => `fut_disagg_txt_${y}.zip`,
    yearlyMember: 'f_year.txt',
    multiYear: 'fut_disagg_txt_hist_2006_2016.zip',
    multiYearMember: 'F_Disagg06_16.txt',
    firstYear: 2006,
  },
  'disaggregated:combined': {
    yearly: (y) => `com_disagg_txt_${y}.zip`,
    yearlyMember: 'c_year.txt',
    multiYear: 'com_disagg_txt_hist_2006_2016.zip',
    multiYearMember: 'C_Disagg06_16.txt',
    firstYear: 2006,
  },
  'tff:futures': {
    yearly: (y) => `fut_fin_txt_${y}.zip`,
    yearlyMember: 'FinFutYY.txt',
    multiYear: 'fin_fut_txt_2006_2016.zip',
    multiYearMember: 'F_TFF_2006_2016.txt',
    firstYear: 2006,
  },
  'tff:combined': {
    yearly: (y) => `com_fin_txt_${y}.zip`,
    yearlyMember: 'FinComYY.txt',
    multiYear: 'fin_com_txt_2006_2016.zip',
    multiYearMember: 'C_TFF_2006_2016.txt',
    firstYear: 2006,
  },
  // The supplemental (commodity index traders) report exists only as futures and options combined.
  'cit:combined': {
    yearly: (y) => `dea_cit_txt_${y}.zip`,
    yearlyMember: 'annualci.txt',
    multiYear: 'dea_cit_txt_2006_2016.zip',
    multiYearMember: 'CIT06_16.txt',
    firstYear: 2006,
  },
};

function familyOf(report: CftcReport, combined: boolean): { family: Family; combined: boolean } {
  const isCombined = report === 'cit' ? true : combined;
  const family = FAMILIES[`${report}:${isCombined ? 'combined' : 'futures'}`];
  if (!family) throw new Error(`unknown CFTC report "${report}"; use legacy, disaggregated, tff or cit`);
  return { family, combined: isCombined };
}

function requestedYears(options: CftcPlanOptions, current: number): number[] {
  if (options.year !== undefined && options.since !== undefined) {
    throw new Error('give either a year or a first year (since), not both');
  }
  if (options.year !== undefined) {
    if (options.year > current)
      throw new Error(`${options.year} is in the future (the current year is ${current})`);
    return [options.year];
  }
  if (options.since !== undefined) {
    if (options.since > current)
      throw new Error(`${options.since} is in the future (the current year is ${current})`);
    return Array.from({ length: current - options.since + 1 }, (_, index) => options.since! + index);
  }
  return [current];
}

/**
 * Lists the files that cover the requested years of each report: yearly zips from 2017 on and
 * the multi-year archive, once, for earlier years. Without a year the current year is planned;
 * in January also the previous one, whose file receives the last December reports then.
 */
export function planCftcFiles(options: CftcPlanOptions, now: Date): CftcPlannedFile[] {
  const current = now.getUTCFullYear();
  const defaultRun = options.year === undefined && options.since === undefined;
  const years = requestedYears(options, current);
  if (defaultRun && now.getUTCMonth() === 0) years.unshift(current - 1);
  const planned: CftcPlannedFile[] = [];
  for (const report of [...new Set(options.reports)]) {
    const { family, combined } = familyOf(report, options.combined);
    const covered = years.filter((year) => year >= family.firstYear);
    if (options.year !== undefined && covered.length === 0) {
      throw new Error(`the CFTC's ${report} report starts in ${family.firstYear}; ${options.year} has none`);
    }
    const early = covered.filter((year) => year <= LAST_MULTI_YEAR);
    if (early.length > 0) {
      planned.push({
        path: `${HISTORY}${family.multiYear}`,
        member: family.multiYearMember,
        report,
        combined,
        years: early,
        multiYear: true,
      });
    }
    for (const year of covered.filter((candidate) => candidate > LAST_MULTI_YEAR)) {
      planned.push({
        path: `${HISTORY}${family.yearly(year)}`,
        member: family.yearlyMember,
        report,
        combined,
        years: [year],
        multiYear: false,
      });
    }
  }
  return planned;
}

import type { BlsRelease } from './types.ts';

/**
 * BLS series-id prefixes and the news release that first publishes each month of them. The
 * prefix is the survey code plus the seasonal-adjustment letter (bls.gov/help/hlpforma.htm).
 */
const PREFIXES: readonly (readonly [prefix: string, release: BlsRelease])[] = [
  // Current Employment Statistics, national payrolls (seasonally adjusted / not).
  ['CES', 'Employment Situation'],
  ['CEU', 'Employment Situation'],
  // Current Population Survey (household data: unemployment rate, labour force).
  ['LNS', 'Employment Situation'],
  ['LNU', 'Employment Situation'],
  // CPI for All Urban Consumers (current and special bases) and for Wage Earners (CPI-W).
  ['CUUR', 'Consumer Price Index'],
  ['CUSR', 'Consumer Price Index'],
  ['CUUS', 'Consumer Price Index'],
  ['CUSS', 'Consumer Price Index'],
  ['CWUR', 'Consumer Price Index'],
  ['CWSR', 'Consumer Price Index'],
  // PPI commodity (WPU/WPS, including final demand WPUFD*) and industry (PCU/PCS) series.
  ['WPU', 'Producer Price Index'],
  ['WPS', 'Producer Price Index'],
  ['PCU', 'Producer Price Index'],
  ['PCS', 'Producer Price Index'],
  // State and metro payrolls (CES State and Area) and state unemployment (LAUS, state level).
  ['SMU', 'State Employment and Unemployment'],
  ['SMS', 'State Employment and Unemployment'],
  ['LASST', 'State Employment and Unemployment'],
  ['LAUST', 'State Employment and Unemployment'],
];

/**
 * The BLS release whose calendar gives the knowledge time of a series' monthly values, from the
 * series id's prefix (`CES0000000001` → Employment Situation), or null for series outside it.
 */
export function blsReleaseForSeries(seriesId: string): BlsRelease | null {
  const id = seriesId.trim().toUpperCase();
  for (const [prefix, release] of PREFIXES) {
    if (id.startsWith(prefix)) return release;
  }
  return null;
}

/**
 * Series the BLS never revises after their first release: the CPI-U and CPI-W indexes not
 * seasonally adjusted ("not subject to revision", BLS CPI handbook; errors aside, which arrive as
 * corrections). Every other series may be revised by a later release (payrolls in the next two
 * releases and the annual benchmark, seasonal factors each year, PPI after four months).
 */
const NEVER_REVISED_PREFIXES = ['CUUR', 'CUUS', 'CWUR', 'CWUS'] as const;

/** Whether a later release of its program can change a series' published values. */
export function blsSeriesMayBeRevised(seriesId: string): boolean {
  const id = seriesId.trim().toUpperCase();
  return !NEVER_REVISED_PREFIXES.some((prefix) => id.startsWith(prefix));
}

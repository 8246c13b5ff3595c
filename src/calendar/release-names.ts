import { blsReleaseForSeries } from './bls-release-for-series.ts';

/**
 * The names of publishers' releases and their stable keys, shared by /api/v1/releases (ids),
 * the release events (`data.release`, `data.release_name`: docs/api/events.md) and the delay
 * check, so one release has one identifier wherever it appears.
 */

/** The one release of the publishers whose calendar has a single release (BLS: per survey). */
export const SINGLE_RELEASE_NAMES = {
  cftc: 'Commitments of Traders',
  ecb: 'Euro foreign exchange reference rates',
} as const;

/** The name of BLS data outside the news releases the calendar knows. */
export const BLS_OTHER_RELEASE = 'BLS data';

/**
 * A release's stable key: the source id and the slug of the release name
 * (`ecb-euro-foreign-exchange-reference-rates`, `bls-employment-situation`); a release id of
 * /api/v1/releases is this key and the UTC time.
 */
export function releaseKey(source: string, name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${source}-${slug}`;
}

/** A release as events name it: its key and its human name. */
export interface ReleaseName {
  release: string;
  release_name: string;
}

/**
 * The release that carries a series' data: the BLS news release of its survey, the Commitments of
 * Traders for COT reports, the ECB reference rates; for a source without a release calendar the
 * source id as key and the catalog's name of the source (`sourceName`).
 */
export function releaseOfSeries(
  source: string,
  seriesKey: string,
  cot: boolean,
  sourceName: string | null,
): ReleaseName {
  const name = (release: string) => ({ release: releaseKey(source, release), release_name: release });
  if (cot) return name(SINGLE_RELEASE_NAMES.cftc);
  if (source === 'ecb') return name(SINGLE_RELEASE_NAMES.ecb);
  if (source === 'bls')
    return name(blsReleaseForSeries(seriesKey.slice(seriesKey.indexOf('.') + 1)) ?? BLS_OTHER_RELEASE);
  return { release: source, release_name: sourceName ?? source };
}

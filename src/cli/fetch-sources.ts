import type { Calendars } from '../calendar/types.ts';
import type { Config } from '../config/load-config.ts';
import { blsApiFetcher } from '../fetch/bls-api.ts';
import { type CftcReport, cftcFetcher } from '../fetch/cftc-files.ts';
import { ecbFetcher } from '../fetch/ecb-files.ts';
import { fredApiFetcher } from '../fetch/fred-api.ts';
import { REFERENCE_FETCHERS } from '../fetch/reference-files.ts';
import type { Fetcher } from '../fetch/types.ts';
import { ConfigError } from '../lib/config-error.ts';
import type { StoreSummary } from '../store/read-store-summary.ts';
import { ReportedFailure } from './reported-failure.ts';
import { UsageError } from './usage-error.ts';

/** Flags of `mmds fetch` that shape what is fetched. */
export interface FetchFlags {
  report?: string;
  combined?: boolean;
  year?: string;
  since?: string;
  /** BLS series ids, or FRED `ID=series.key` pairs. */
  series?: string[];
}

/** Everything option builders may look at. */
export interface FetchInputs {
  flags: FetchFlags;
  config: Readonly<Config>;
  summary: StoreSummary;
  calendars: Calendars;
  now: Date;
}

/** One source `mmds fetch` and `mmds update` know: its fetcher and how its options are chosen. */
export interface FetchableSource {
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: each entry pairs a fetcher with its own options.
  fetcher: Fetcher<any>;
  /** What is fetched, for `--help`. */
  summary: string;
  options(inputs: FetchInputs): unknown;
}

/** Every COT report family (`--report all`, the default). */
const DEFAULT_CFTC_REPORTS: CftcReport[] = ['legacy', 'disaggregated', 'tff', 'cit'];
const CFTC_REPORTS: readonly string[] = ['legacy', 'disaggregated', 'tff', 'cit'];
/** Years a first BLS fetch asks for (the API's limit per query with a key). */
const BLS_BACKFILL_YEARS = 20;
/** Years a later BLS fetch asks for: enough to see the revisions of the last releases. */
const BLS_REFRESH_YEARS = 2;

/** Every fetchable source, in the order `mmds update` runs them (reference lists first). */
export const FETCHABLE_SOURCES: readonly FetchableSource[] = [
  ...Object.entries(REFERENCE_FETCHERS).map(([id, fetcher]) => ({
    id,
    fetcher,
    summary: `the publisher's current list (${fetcher.defaultBaseUrl})`,
    options: () => ({}),
  })),
  {
    id: 'ecb',
    fetcher: ecbFetcher,
    summary: 'eurofxref-hist.zip when the store has no history, then eurofxref-daily.xml',
    options: ({ summary }) => ({ hasHistory: (summary.sources.ecb?.periods ?? 0) > 1 }),
  },
  {
    id: 'cftc',
    fetcher: cftcFetcher,
    summary: 'the COT zips of files/dea/history/, every family (--report, --combined, --year, --since)',
    options: ({ flags, config, calendars, now }) => ({
      ...readCftcPlan(flags, config.cftcReports, now),
      calendar: calendars.cftc,
    }),
  },
  {
    id: 'bls',
    fetcher: blsApiFetcher,
    summary: 'the BLS API v2 for every catalogued bls series (MMDS_BLS_API_KEY, optional)',
    options: ({ flags, config, summary, now }) => {
      const seriesIds = flags.series ?? summary.blsSeries;
      if (seriesIds.length === 0)
        throw new ReportedFailure(
          'no BLS series to fetch: ingest the catalog first, or pass --series <id>...',
        );
      const endYear = now.getUTCFullYear();
      const since = readYear(flags.since, '--since');
      const years = summary.sources.bls ? BLS_REFRESH_YEARS : BLS_BACKFILL_YEARS;
      return { seriesIds, startYear: since ?? endYear - years + 1, endYear, apiKey: config.blsApiKey };
    },
  },
  {
    id: 'fred',
    fetcher: fredApiFetcher,
    summary: 'ALFRED vintages of catalogued series with a fred_id (MMDS_FRED_API_KEY)',
    options: ({ flags, config, summary }) => {
      if (config.fredApiKey === null)
        throw new ConfigError('fetching FRED/ALFRED needs an API key: set MMDS_FRED_API_KEY');
      const series = flags.series ? flags.series.map(readFredPair) : summary.fredSeries;
      if (series.length === 0)
        throw new ReportedFailure(
          'no FRED series to fetch: give catalog series a fred_id, or pass --series ID=series.key',
        );
      return { series, apiKey: config.fredApiKey };
    },
  },
];

/** Finds a fetchable source by id, or null. */
export function findFetchableSource(id: string): FetchableSource | null {
  return FETCHABLE_SOURCES.find((source) => source.id === id) ?? null;
}

function readCftcPlan(flags: FetchFlags, configured: readonly string[] | null, now: Date) {
  const report = flags.report ?? 'all';
  if (report !== 'all' && !CFTC_REPORTS.includes(report))
    throw new UsageError(`--report must be one of ${CFTC_REPORTS.join(', ')} or all, got "${report}"`);
  for (const name of configured ?? []) {
    if (!CFTC_REPORTS.includes(name))
      throw new ConfigError(`MMDS_CFTC_REPORTS: "${name}" is not one of ${CFTC_REPORTS.join(', ')}`);
  }
  const all = (configured as CftcReport[] | null) ?? DEFAULT_CFTC_REPORTS;
  const year = readYear(flags.year, '--year');
  const since = readYear(flags.since, '--since');
  if (year !== undefined && since !== undefined) throw new UsageError('give --year or --since, not both');
  const current = now.getUTCFullYear();
  for (const [flag, value] of [
    ['--year', year],
    ['--since', since],
  ] as const) {
    if (value !== undefined && (value < 1986 || value > current))
      throw new UsageError(
        `${flag} must be a year from 1986 (the first COT file) to ${current}, got ${value}`,
      );
  }
  return {
    reports: report === 'all' ? all : [report as CftcReport],
    combined: flags.combined === true,
    ...(year !== undefined ? { year } : {}),
    ...(since !== undefined ? { since } : {}),
  };
}

function readYear(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{4}$/.test(raw)) throw new UsageError(`${flag} must be a year YYYY, got "${raw}"`);
  return Number(raw);
}

function readFredPair(raw: string): { fredId: string; seriesKey: string } {
  const match = /^([A-Za-z0-9_]+)=([a-z0-9]+\.[A-Za-z0-9_.-]+)$/.exec(raw);
  if (!match)
    throw new UsageError(
      `--series for fred takes FREDID=series.key (PAYEMS=bls.CES0000000001), got "${raw}"`,
    );
  return { fredId: match[1]!, seriesKey: match[2]! };
}

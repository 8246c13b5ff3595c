import { COT_MARKET_PARAM } from './cot-params.ts';
import { COT_REPORTS_ROUTE } from './cot-routes.ts';
import { invalidParameter } from './errors.ts';
import { FX_ROUTES } from './fx-routes.ts';
import { PARAMS, type ParamName, type ParamSpec } from './params.ts';
import { RELEASES_RANGE_PARAMS, RELEASES_SERIES_PARAM } from './releases-params.ts';
import type { RouteDefinition } from './route-definition.ts';
import { ALIGNED_AS_OF_PARAM, ALIGNED_FREQUENCY_PARAM, ALIGNED_SERIES_PARAM } from './schemas/aligned.ts';
import { EVENTS_PARAMS } from './schemas/events.ts';
import { SERIES_SEARCH_ROUTE } from './search-routes.ts';
import { VINTAGE_PARAM_NAMES } from './vintage-params.ts';
import { VINTAGE_DATES_ROUTE } from './vintage-routes.ts';

export type { Access, Prerender, RouteDefinition, RouteId, Scope } from './route-definition.ts';
export { COT_HISTORY_SCOPE, SCOPES } from './route-definition.ts';

const HISTORY: readonly ParamName[] = [
  'as_of',
  'from',
  'to',
  'observation_start',
  'observation_end',
  'limit',
  'cursor',
  'sort_order',
  'format',
  'fields',
];
/** The transforms of endpoints 5 and 8 (docs/api/transforms.md). */
const TRANSFORMS: readonly ParamName[] = ['units', 'frequency', 'aggregation'];
/** The filters of the release calendar (JSON and iCalendar alike). */
const RELEASE_FILTERS: readonly ParamName[] = ['source', 'series', 'from', 'to'];
const RELEASE_PARAMS: Partial<Record<ParamName, ParamSpec>> = {
  series: RELEASES_SERIES_PARAM,
  ...RELEASES_RANGE_PARAMS,
};
/** The parameters of the revisions endpoints (docs/api/revisions.md). */
const REVISIONS: readonly ParamName[] = [...HISTORY, 'shape'];
const REVISIONS_DESCRIPTION =
  'Per period: the first release (value, knowledge time, revision number), every later revision with its ' +
  'knowledge time and its change from the previous one (absolute, and percent: null with a note when the ' +
  'previous value is 0), the latest, and the total revision (latest - first). as_of counts only the revisions ' +
  'known at it; from/to filter periods; limit counts periods. shape=triangle: one row per period, one value per ' +
  'vintage (meta.vintages, the knowledge times at which a period of the range changed), the value in force ' +
  'then (null before its first release); at most 500 vintages. CSV: list is one line per revision record, ' +
  'triangle has the header period,<vintage>,... The store keeps no withdrawn or deleted values: a value ' +
  'missing from a later vintage keeps its last revision. Details: docs/api/revisions.md.';
/** The ALFRED real-time view of endpoints 5 and 8 (docs/api/vintages.md). */
const VINTAGES_DESCRIPTION =
  'With realtime_start/realtime_end, output_type or vintage_dates (ALFRED, docs/api/vintages.md): meta.view = ' +
  'vintages, rows of period, value, realtime_start, realtime_end (days in St. Louis time); one page, from/to ' +
  'and sort_order apply; format=csv gives the same rows as period,value,realtime_start,realtime_end; as_of, units/frequency/aggregation, limit and cursor do not combine with them (400 naming both).';
const LATEST_MAX_AGE = 300;

/** Keyed-only history parameters made public on a route (endpoint 15's range, order and paging). */
function publicHistoryParams(names: readonly ParamName[]): Partial<Record<ParamName, ParamSpec>> {
  return Object.fromEntries(names.map((name) => [name, { ...PARAMS[name], keyedOnly: false }]));
}
const REFERENCE_MAX_AGE = 3600;

/**
 * The fourteen endpoints of SPEC section 4 and the service's additions: 15 public series
 * history, 16-18 bulk files (public listings, keyed full store), 19 the release calendar (JSON
 * and iCalendar), 20-21 revisions (by macro slug, by series key), 22 the change feed, 23 aligned
 * observations.
 */
export const ROUTES: readonly RouteDefinition[] = [
  {
    id: 'status',
    number: 1,
    path: '/api/v1/status',
    summary: 'Service and data freshness status',
    description:
      'Snapshot in service, and per source its last period, last observation time, cadence, next release due and staleness; on an instance following a bucket, how far behind its commit log it is (replica).',
    access: { kind: 'public' },
    query: [],
    maxAge: 60,
    prerender: 'filters',
  },
  {
    id: 'cot-summary',
    number: 2,
    path: '/api/v1/markets/cot',
    summary: 'Latest positioning summary for all tracked futures markets',
    description:
      'Every market the CFTC ever reported in the snapshot, with its first and last report date, `active`, its contract lineage (`replaces`, `replaced_by`) and its latest Commitments of Traders report: open interest, long, short and net by trader category, week-on-week changes and percent of open interest.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'cot-market',
    number: 3,
    path: '/api/v1/markets/cot/:slug',
    summary: 'Positioning history of one market',
    description:
      'The market by its slug or by its CFTC contract market code (/api/v1/markets/cot/088691: the same body as the slug, meta.market.slug naming it). ' +
      'Without a key: the 12 most recent weekly reports. With a key holding cot:history: the full history, with as_of, from, to, limit, cursor and format=csv.',
    access: { kind: 'public-or-scope', scope: 'cot:history' },
    query: ['report_type', ...HISTORY],
    maxAge: LATEST_MAX_AGE,
    prerender: 'per-slug',
    params: { slug: COT_MARKET_PARAM },
  },
  COT_REPORTS_ROUTE,
  {
    id: 'macro-latest',
    number: 4,
    path: '/api/v1/macro',
    summary: 'Latest value of each tracked BLS series',
    description:
      'Per tracked series the latest period and value, when it was published, and its revision number.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'macro-series',
    number: 5,
    path: '/api/v1/macro/:slug',
    summary: 'History of one macro series, with every revision record',
    description:
      'Every revision of every period, oldest period first; as_of reconstructs what was known at an instant. ' +
      'With units, frequency or aggregation (FRED-style transforms, docs/api/transforms.md): one row per ' +
      'period of the values in force at as_of, aggregated, then transformed (meta.view = transformed). ' +
      VINTAGES_DESCRIPTION,
    access: { kind: 'scope', scope: 'macro:history' },
    query: [...HISTORY, ...TRANSFORMS, ...VINTAGE_PARAM_NAMES],
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'macro-revisions',
    number: 20,
    path: '/api/v1/macro/:slug/revisions',
    summary: 'Revisions of one macro series: first release, each revision, latest; or the triangle',
    description: REVISIONS_DESCRIPTION,
    access: { kind: 'scope', scope: 'macro:history' },
    query: REVISIONS,
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'research',
    number: 6,
    path: '/api/v1/research',
    summary: 'Published research findings',
    description: 'Findings, newest first, with the series they are about.',
    access: { kind: 'public' },
    query: [],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'sources',
    number: 7,
    path: '/api/v1/sources',
    summary: 'Source catalog with licences and rights classification',
    description:
      'Every source with its licence, rights class, whether it is redistributable, and the attribution to show.',
    access: { kind: 'public' },
    query: [],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'observations',
    number: 8,
    path: '/api/v1/observations',
    summary: 'Raw observations with full provenance and all revisions',
    description:
      'Every revision of every period of one series with its provenance; with as_of, only what had been observed by then, the revision in force marked in_force. ' +
      'With units, frequency or aggregation (FRED-style transforms, docs/api/transforms.md): one row per ' +
      'period of the values in force at as_of, aggregated, then transformed (meta.view = transformed). ' +
      VINTAGES_DESCRIPTION,
    access: { kind: 'scope', scope: 'observations:read' },
    query: ['series', ...HISTORY, ...TRANSFORMS, ...VINTAGE_PARAM_NAMES],
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'observations-revisions',
    number: 21,
    path: '/api/v1/observations/revisions',
    summary: 'Revisions of one series by key: first release, each revision, latest; or the triangle',
    description: REVISIONS_DESCRIPTION,
    access: { kind: 'scope', scope: 'observations:read' },
    query: ['series', ...REVISIONS],
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'observations-aligned',
    number: 23,
    path: '/api/v1/observations/aligned',
    summary: 'Several series on one weekly or monthly calendar, as known at as_of or at each row (as_of=row)',
    description:
      'One row per week ending Friday (frequency=w, labelled by the Friday) or month (m), one value per series ' +
      '(up to 50 keys, columns in the order given, meta.series), each the value in force at as_of. A series as ' +
      'fine as the calendar or finer gives its last value in the period (daily ECB rates: the last rate of the ' +
      'week); a coarser one the value of the latest of its periods holding a day of the row (monthly BLS on ' +
      'weeks: the month). Alignment is by period, not by release date. fill=ffill (default) carries a ' +
      "series' own value of the previous row into a row without one, at most one period (filled flags it); " +
      'fill=none leaves null. COT keys give open interest, or <key>.net.<category> the net position; a COT ' +
      'column needs cot:history besides observations:read (403 insufficient_scope naming it). Rows ' +
      'run from the first to the last period holding any value, within from/to; limit and cursor page them. ' +
      'as_of=row: a point-in-time panel, each row as known at the end of its own last day (23:59:59Z of the ' +
      "Friday or of the month's last day; the request time for a row still ahead), stated in the row's as_of: " +
      'the row a request with that as_of gives, for every series whatever its frequency; the rows are those ' +
      'without as_of. CSV: period,<key1>,<key2>,... (as_of=row: period,as_of,<key1>,...). Details: docs/api/aligned.md.',
    access: { kind: 'scope', scope: 'observations:read' },
    query: ['series', 'frequency', 'fill', ...HISTORY],
    maxAge: 0,
    prerender: 'none',
    params: { series: ALIGNED_SERIES_PARAM, frequency: ALIGNED_FREQUENCY_PARAM, as_of: ALIGNED_AS_OF_PARAM },
  },
  {
    id: 'series',
    number: 9,
    path: '/api/v1/series',
    summary: 'Series catalogue with latest values (redistributable data only)',
    description:
      'Series of redistributable sources with their latest value; filter by country, region or currency.',
    access: { kind: 'public' },
    query: ['country', 'region', 'currency'],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  SERIES_SEARCH_ROUTE,
  VINTAGE_DATES_ROUTE,
  {
    id: 'series-history',
    number: 15,
    path: '/api/v1/series/:slug',
    summary: 'Public history of one redistributable series (values in force)',
    description:
      'For a catalogued series of a public-domain or open-licence source that holds data: per period the value in force in the snapshot (its latest revision), oldest period first, with its revision_number and observed_at, and the licence and attribution in meta. The same rows as RFC 4180 CSV, without a key: /api/v1/series/{slug}.csv (a plain file on static hosts) or format=csv. ' +
      'Without a key too: from/to (FRED: observation_start/observation_end), sort_order=desc (newest first) and limit with cursor (limit=1&sort_order=desc: the latest value); the plain path is a pre-rendered file, a request with parameters is answered by the server. ' +
      'The slug is the series slug of /api/v1/series (history_url). Licensed or proprietary series, and series without data, are 404. Every revision, as_of and units (transforms) stay keyed: /api/v1/macro/{slug} and /api/v1/observations.',
    access: { kind: 'public' },
    query: [
      'from',
      'to',
      'observation_start',
      'observation_end',
      'sort_order',
      'limit',
      'cursor',
      'format',
      'fields',
    ],
    maxAge: LATEST_MAX_AGE,
    prerender: 'per-slug',
    // The public history is public with its range, order and paging, and in CSV too: no key here.
    params: {
      format: {
        ...PARAMS.format,
        description:
          'Response format: json (default) or csv (RFC 4180 with a header row, the rows of data only); no key needed.',
        keyedOnly: false,
      },
      ...publicHistoryParams(['from', 'to', 'observation_start', 'observation_end', 'sort_order', 'cursor']),
      limit: {
        ...PARAMS.limit,
        description: 'Rows per page, 1 to 10000 (default: every period, one page); no key needed.',
        keyedOnly: false,
      },
    },
  },
  {
    id: 'sectors',
    number: 10,
    path: '/api/v1/sectors',
    summary: 'Sectors with measured coverage status and live counts',
    description:
      'Per sector the number of series and markets, how many are fresh, and a coverage status measured from the data.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
  },
  ...FX_ROUTES,
  {
    id: 'countries',
    number: 12,
    path: '/api/v1/reference/countries',
    summary: 'Countries with UN M49 region, ISO 4217 currency, IANA time zones and coverage',
    description:
      'ISO 3166-1 countries with their M49 classification, currencies, time zones and how much data covers them; filter by region.',
    access: { kind: 'public' },
    query: ['region'],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'currencies',
    number: 13,
    path: '/api/v1/reference/currencies',
    summary: 'ISO 4217 currencies with minor units',
    description: 'Current and withdrawn ISO 4217 currencies and funds with numeric code and minor units.',
    access: { kind: 'public' },
    query: [],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'venues',
    number: 14,
    path: '/api/v1/reference/venues',
    summary: 'Trading venues with city, time zone and currencies',
    description:
      'ISO 10383 market identifier codes with city, time zone and the currencies of their country; filter by country.',
    access: { kind: 'public' },
    query: ['country'],
    maxAge: REFERENCE_MAX_AGE,
    prerender: 'filters',
  },
  {
    id: 'releases',
    number: 19,
    path: '/api/v1/releases',
    summary: 'Release calendar: past releases (from the data) and scheduled ones (from the calendars)',
    description:
      'Per release of BLS, CFTC and ECB data: status `past` (from the snapshot: released_at is the knowledge ' +
      'time of the values it carried, with their series, count, first releases and revisions) or `scheduled` ' +
      '(from the shipped calendars after the request time: scheduled_at, with basis calendar_file, exception or ' +
      'rule and the source_url of the calendar row). Times in UTC, and local_time in the publisher zone ' +
      '(America/New_York for BLS and CFTC, Europe/Berlin for the ECB). Scheduled: BLS as far as ' +
      'data/calendars/bls_release_dates.csv goes, CFTC 91 days ahead, ECB 31 days ahead (meta.horizon). ' +
      'Filter by source, series (key or slug) and from/to (UTC days; default from: 92 days ago, at most ' +
      '1096 days). The same releases as iCalendar: /api/v1/releases.ics. Details: docs/api/releases.md.',
    access: { kind: 'public' },
    query: RELEASE_FILTERS,
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
    params: RELEASE_PARAMS,
  },
  {
    id: 'releases-ics',
    number: 19,
    path: '/api/v1/releases.ics',
    summary: 'Release calendar as iCalendar (RFC 5545)',
    description:
      'The releases of /api/v1/releases, with the same parameters, as an RFC 5545 calendar ' +
      '(`text/calendar; charset=utf-8`): one VEVENT per release, its UID stable (the release id, the same ' +
      'once a scheduled release is past), DTSTART in UTC, SUMMARY, DESCRIPTION with what it carries and ' +
      'the basis, URL of the calendar source where there is one. Errors are JSON envelopes.',
    access: { kind: 'public' },
    query: RELEASE_FILTERS,
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
    params: RELEASE_PARAMS,
    mediaType: 'text/calendar',
  },
  {
    id: 'changes',
    number: 22,
    path: '/api/v1/changes',
    summary: 'Change feed: the series and markets whose data changed since a snapshot',
    description:
      'Per series (observations) and COT market report series whose data changed from snapshot `since` to the ' +
      'one in service: new_observations (periods `since` had no value for), revisions (periods whose value in ' +
      'force is a newer revision), backfilled (periods that only gained older revisions: as_of answers ' +
      'change) and the periods touched; meta.reference_tables lists the reference and catalog lists that ' +
      'changed. Without a key: redistributable sources only (public domain, open licence); with a key ' +
      'holding observations:read: every source. A COT entry counts only the reports of the public window ' +
      '(the 12 most recent per market and report type) unless the key holds cot:history. One entry per changed series or market, never more than ' +
      'the catalog holds, so no paging. since = the current id answers no changes. Not pre-rendered: the ' +
      'server answers it (static hosts proxy it). Incremental sync: docs/api/changes.md.',
    access: { kind: 'public-or-scope', scope: 'observations:read' },
    query: ['since', 'format', 'fields'],
    maxAge: 60,
    prerender: 'none',
    // The feed is public in CSV too: no key for format here.
    params: {
      format: {
        ...PARAMS.format,
        description:
          'Response format: json (default) or csv (RFC 4180 with a header row, the rows of data only); no key needed.',
        keyedOnly: false,
      },
    },
  },
  {
    id: 'events',
    number: 24,
    path: '/api/v1/events',
    summary: 'Release events: what each publish released and revised, as a stream or JSON pages',
    description:
      "The event log (docs/api/events.md): per snapshot, `release.published` (a source's release landed), " +
      '`series.released` (new periods of a series) and `series.revised` (changed values: period, old and new ' +
      'value, knowledge times; links pinned by as_of when many), and between snapshots `release.delayed` (an ' +
      'expected release that has not landed), ids `<snapshot id>:<seq>`, kept as long as ' +
      'the snapshot. With `Accept: text/event-stream`: Server-Sent Events (`id:` the event id, `event:` the ' +
      'type, `data:` the event as JSON), a comment every 15 s, new events as the server switches snapshot; ' +
      'resume with the `Last-Event-ID` header or `after` on any instance. Without it: JSON pages of `limit` ' +
      'events, continued with after = meta.next_after. An id older than the log or unknown is 410 (catch up ' +
      'with /api/v1/changes). Without a key: public events only (redistributable sources; COT reports in ' +
      'the public window); a key with observations:read also gets licensed sources, with cot:history older ' +
      'COT reports. Open streams are limited per key, per client address and per instance (429 past it); a ' +
      'stream ends at once when its key is revoked or expires, and one whose client stops reading is cut.',
    access: { kind: 'public-or-scope', scope: 'observations:read' },
    query: ['after', 'limit', 'source', 'series', 'type'],
    maxAge: 5,
    prerender: 'none',
    params: EVENTS_PARAMS,
  },
  {
    // The keyed full store. Its files, /api/v1/bulk/full/{snapshot}/{file}, are not a route of
    // this table (a file path has several segments and the body is Parquet): served by
    // src/server/serve-bulk-full.ts, described in OpenAPI by src/contract/schemas/bulk-full.ts.
    id: 'bulk-full',
    number: 18,
    path: '/api/v1/bulk/full',
    summary: 'The full store: every Parquet file of the current snapshot (keyed)',
    description:
      "Every Parquet file of the current snapshot's tables, as the store holds it: every revision of every series with its provenance and knowledge time (observed_at), the COT reports (for a key also holding cot:history; without it the cot_reports files are left out and 403) and the reference lists, licensed and proprietary sources included (the key's organisation is trusted to hold the rights to those: the public bulk files at /api/v1/bulk leave them out). Per file its table, path, rows, bytes, sha256, source (fact partitions) and url, /api/v1/bulk/full/{snapshot}/{file}, which streams the file byte for byte (application/vnd.apache.parquet, ETag the quoted sha256, Cache-Control private, max-age=31536000, immutable: the files are immutable). A file of an older snapshot stays downloadable while the store keeps that snapshot (MMDS_KEEP_SNAPSHOTS); a pruned or unknown snapshot is 404, naming the current one.",
    access: { kind: 'scope', scope: 'bulk:read' },
    query: [],
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'bulk',
    number: 16,
    path: '/api/v1/bulk',
    summary: 'Public bulk files: whole redistributable datasets as Parquet and gzipped CSV',
    description:
      'Every snapshot with bulk files, newest first, each with its files: per dataset (observations, cot_reports: the public window, the 12 most recent reports per market and report type; and the reference and catalog lists) one Parquet file (zstd) and one gzipped RFC 4180 CSV (header row, RFC 3339 times, the same columns), with bytes, rows, sha256, licence, attribution and media_type. Rows in force only (per series and period its latest revision); only rows of public_domain or open_licence sources: licensed and proprietary data is never in a bulk file (every revision and as_of stay keyed). A file path, /api/v1/bulk/{snapshot}/{dataset}.parquet or .csv.gz, never changes content: Cache-Control immutable (cot_reports: public, max-age=300), strong ETag the quoted sha256. /api/v1/bulk/latest and /api/v1/bulk/latest/{file} redirect (302) to the newest snapshot. Files of earlier snapshots stay while the store keeps the snapshot (MMDS_KEEP_SNAPSHOTS), except their cot_reports files: the public window is that of the newest snapshot (meta.cot_window), so the cot_reports files of an earlier snapshot stay only while they are the same bytes as those of the newest snapshot; once they hold a report the window has left they are withheld (listed under withheld in the entry of their snapshot, 404 with or without a key, removed from the build) and those reports are for a key with cot:history at /api/v1/markets/cot/{slug}. The keyed full store is /api/v1/bulk/full.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'build',
  },
  {
    id: 'bulk-snapshot',
    number: 17,
    path: '/api/v1/bulk/:slug',
    pathParam: 'snapshot',
    summary: 'The public bulk files of one snapshot',
    description:
      'The files of one snapshot as /api/v1/bulk lists them; `snapshot` is a snapshot id (`20261124T084307Z-9da82ee8`). A snapshot without bulk files (unknown, or pruned from the store) is 404. `withheld` lists its files that are no longer public (cot_reports files outside the public window of the newest snapshot, meta.cot_window). `latest` in its place answers 302 (Cache-Control: public, max-age=300) with `Location: /api/v1/bulk/{snapshot}` of the newest snapshot.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'build',
  },
];

/**
 * Appended to the path of a route with `format` (the keyed history endpoints), it asks for CSV:
 * `/api/v1/observations.csv?series=...` is the request `/api/v1/observations?series=...&format=csv`.
 * OpenAPI describes it as an operation of its own whose only success is `text/csv`.
 */
export const CSV_PATH_SUFFIX = '.csv';

/**
 * Finds the route whose path matches, with its slug; `csv` when the path is the route's CSV path
 * (CSV_PATH_SUFFIX appended; then pass the query through csvQuery).
 */
export function matchRoute(
  pathname: string,
): { route: RouteDefinition; slug: string | null; csv: boolean } | null {
  if (pathname.endsWith(CSV_PATH_SUFFIX)) {
    const matched = matchPath(pathname.slice(0, -CSV_PATH_SUFFIX.length));
    if (matched?.route.query.includes('format')) return { ...matched, csv: true };
  }
  const matched = matchPath(pathname);
  return matched && { ...matched, csv: false };
}

/** The query of a CSV path as the route's own request: `format=csv` added, a `format` of the caller's refused. */
export function csvQuery(search: URLSearchParams): URLSearchParams {
  if (search.has('format'))
    throw invalidParameter(
      'format',
      `no format parameter on a ${CSV_PATH_SUFFIX} path, which always answers CSV (for JSON, drop ${CSV_PATH_SUFFIX} from the path)`,
    );
  const query = new URLSearchParams(search);
  query.append('format', 'csv');
  return query;
}

function matchPath(pathname: string): { route: RouteDefinition; slug: string | null } | null {
  // An exact path wins over a slug route it would also match (/api/v1/bulk/full, /api/v1/bulk/:slug).
  const exact = ROUTES.find((route) => !route.path.includes(':slug') && route.path === pathname);
  if (exact) return { route: exact, slug: null };
  for (const route of ROUTES) {
    if (!route.path.includes(':slug')) continue;
    const prefix = route.path.slice(0, route.path.indexOf(':slug'));
    // What follows the slug (`/revisions`), if anything: the slug itself never holds a `/`.
    const suffix = route.path.slice(route.path.indexOf(':slug') + ':slug'.length);
    if (pathname.startsWith(prefix) && pathname.endsWith(suffix)) {
      const rest = pathname.slice(prefix.length, pathname.length - suffix.length);
      if (rest !== '' && !rest.includes('/')) return { route, slug: rest };
    }
  }
  return null;
}

/** A route's path as OpenAPI and the docs write it: `:slug` as `{slug}`, or as its pathParam. */
export function documentedPath(route: RouteDefinition): string {
  return route.path.replace(':slug', `{${route.pathParam ?? 'slug'}}`);
}

/** The parameter specs of a route's query parameters. */
export function routeParams(route: RouteDefinition) {
  return route.query.map((name) => ({ name, spec: paramSpec(route, name) }));
}

/** How a route validates and documents one query parameter: its own override, else PARAMS. */
export function paramSpec(route: RouteDefinition, name: ParamName): ParamSpec {
  return route.params?.[name] ?? PARAMS[name];
}

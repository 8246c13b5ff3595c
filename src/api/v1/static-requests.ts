import { RELEASE_SOURCE_IDS } from '../../calendar/release-schedule.ts';
import type { ParamName } from '../../contract/params.ts';
import { PARAMS } from '../../contract/params.ts';
import { CSV_PATH_SUFFIX, ROUTES, type RouteDefinition } from '../../contract/routes.ts';
import { readMarkets } from '../../query/cot.ts';
import { readLatestEcbRates } from '../../query/fx.ts';
import { listReferenceCodes, listRegionAliases } from '../../query/reference-codes.ts';
import { listPublicHistorySeries } from '../../query/series-history.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

/** One public request the static build pre-renders, and the file it is written to. */
export interface StaticRequest {
  route: RouteDefinition;
  slug: string | null;
  query: Partial<Record<ParamName, string>>;
  /** Path of the file under dist/, without a leading slash. */
  file: string;
  /** Other spellings of the same request (a region's name for its code, a code in lower case). */
  aliases: Array<Partial<Record<ParamName, string>>>;
  /** What the body is computed from (a build on top of an earlier one reuses it when that is unchanged). */
  inputs: RequestInputs;
}

/**
 * What a pre-rendered body is computed from besides the snapshot's reference tables (a change of
 * those renders everything again), so that a build on top of an earlier one (src/build/reuse.ts)
 * renders again only the bodies whose data changed:
 * - `{ partitions }`: the facts of these key prefixes (the sources fact partitions are split by);
 * - `'listed'`: the facts of the prefixes of the series `key`s its earlier body lists (a catalogue
 *   filter: its members are the catalog's, a reference table, and each member's row is its facts');
 * - `'snapshot'`: anything, or the clock (status, freshness, next releases): rendered every time.
 */
export type RequestInputs = { partitions: readonly string[] } | 'listed' | 'snapshot';

/** The inputs of a route's files when the route alone decides them. */
function routeInputs(route: RouteDefinition): RequestInputs {
  switch (route.id) {
    case 'countries':
    case 'currencies':
    case 'venues':
    case 'research':
      return { partitions: [] };
    case 'series':
      return 'listed';
    case 'fx-ecb':
      return { partitions: ['ecb'] };
    case 'cot-market':
      return { partitions: ['cftc'] };
    default:
      return 'snapshot';
  }
}

/** The fact partitions' source of a series key (src/store/partitions.ts SOURCE_OF_KEY). */
export function keyPrefix(key: string): string {
  const dot = key.indexOf('.');
  return dot < 0 ? key : key.slice(0, dot);
}

/**
 * Where the static build puts a public request: `<path>/index.json`, or
 * `<path>/_by/<param>/<value>.json` for one filter. Every endpoint path becomes a directory,
 * because some paths (markets/cot) also have children.
 */
export function staticFilePath(path: string, query: Partial<Record<string, string>> = {}): string {
  const base = path.replace(/^\//, '');
  const entries = Object.entries(query).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return `${base}/index.json`;
  if (entries.length > 1) throw new Error('static files exist for at most one filter');
  const [name, value] = entries[0]!;
  return `${base}/_by/${name}/${value}.json`;
}

/** Lists every public request of the snapshot that the static build writes a file for. */
export async function listStaticRequests(db: SnapshotDb): Promise<StaticRequest[]> {
  const requests: StaticRequest[] = [];
  for (const route of ROUTES) {
    if (route.id === 'fx-ecb') requests.push(...(await listFxRequests(db, route)));
    else if (route.id === 'releases' || route.id === 'releases-ics')
      requests.push(...listReleaseRequests(route));
    else if (route.prerender === 'filters') requests.push(...(await listFilterRequests(db, route)));
    if (route.prerender === 'per-slug')
      requests.push(
        ...(route.id === 'series-history'
          ? await listSeriesHistoryRequests(db, route)
          : await listMarketRequests(db, route)),
      );
  }
  return requests;
}

async function listFilterRequests(db: SnapshotDb, route: RouteDefinition): Promise<StaticRequest[]> {
  const inputs = routeInputs(route);
  const requests: StaticRequest[] = [
    { route, slug: null, query: {}, file: staticFilePath(route.path), aliases: [], inputs },
  ];
  for (const name of route.query) {
    const spec = PARAMS[name];
    if (!('reference' in spec)) continue;
    const slugs =
      spec.reference === 'regions'
        ? new Map((await listRegionAliases(db)).map((r) => [r.code, r.slug]))
        : null;
    // Venues take the country codes the MIC list itself uses (ZZ: no country) besides ISO 3166.
    const list = route.id === 'venues' && name === 'country' ? 'venue-countries' : spec.reference;
    for (const code of await listReferenceCodes(db, list)) {
      // A region's name for its code; a country or currency code also in lower case (PARAMS).
      const alias = slugs ? slugs.get(code) : code.toLowerCase();
      requests.push({
        route,
        slug: null,
        query: { [name]: code },
        file: staticFilePath(route.path, { [name]: code }),
        aliases: alias && alias !== code ? [{ [name]: alias }] : [],
        inputs,
      });
    }
  }
  return requests;
}

async function listMarketRequests(db: SnapshotDb, route: RouteDefinition): Promise<StaticRequest[]> {
  const requests: StaticRequest[] = [];
  const inputs = routeInputs(route);
  for (const market of await readMarkets(db)) {
    const path = route.path.replace(':slug', market.slug);
    requests.push({ route, slug: market.slug, query: {}, file: staticFilePath(path), aliases: [], inputs });
    for (const reportType of market.report_types) {
      const query = { report_type: reportType };
      requests.push({
        route,
        slug: market.slug,
        query,
        file: staticFilePath(path, query),
        aliases: [],
        inputs,
      });
    }
  }
  return requests;
}

/**
 * Endpoint 15: per series with a public history its JSON file (also answering `format=json`)
 * and its CSV file, answering `format=csv`. The CSV file lies at the request's CSV path
 * (`api/v1/series/<slug>.csv`), so a static host serves that path without any rule.
 */
async function listSeriesHistoryRequests(db: SnapshotDb, route: RouteDefinition): Promise<StaticRequest[]> {
  return (await listPublicHistorySeries(db)).flatMap((series) => {
    const path = route.path.replace(':slug', series.slug);
    const inputs = { partitions: [keyPrefix(series.key)] };
    return [
      {
        route,
        slug: series.slug,
        query: {},
        file: staticFilePath(path),
        aliases: [{ format: 'json' }],
        inputs,
      },
      {
        route,
        slug: series.slug,
        query: { format: 'csv' },
        file: `${path.replace(/^\//, '')}${CSV_PATH_SUFFIX}`,
        aliases: [],
        inputs,
      },
    ];
  });
}

/**
 * /fx/ecb: the latest rates (also the file of base=EUR), one file per ISO 4217 currency and one
 * per base the ECB quotes on the latest date, each also under its lower-case spelling. Lists and
 * `date` are not a finite set: the server renders them.
 */
async function listFxRequests(db: SnapshotDb, route: RouteDefinition): Promise<StaticRequest[]> {
  const single = (name: 'currency' | 'base', code: string): StaticRequest => ({
    route,
    slug: null,
    query: { [name]: code },
    file: staticFilePath(route.path, { [name]: code }),
    aliases: [{ [name]: code.toLowerCase() }],
    inputs: routeInputs(route),
  });
  const bases = (await readLatestEcbRates(db, '')).map((row) => row.currency);
  return [
    {
      route,
      slug: null,
      query: {},
      file: staticFilePath(route.path),
      aliases: [{ base: 'EUR' }, { base: 'eur' }],
      inputs: routeInputs(route),
    },
    ...(await listReferenceCodes(db, 'currencies')).map((code) => single('currency', code)),
    ...bases.map((code) => single('base', code)),
  ];
}

/**
 * The release calendar: the unfiltered list and one file per source, as JSON and as iCalendar
 * (`api/v1/releases/index.ics`, `api/v1/releases/_by/source/<source>.ics`). Series and from/to are not
 * pre-rendered: the server renders them.
 */
function listReleaseRequests(route: RouteDefinition): StaticRequest[] {
  const ics = route.mediaType === 'text/calendar';
  const file = (source: string | null) => {
    if (!ics) return source === null ? staticFilePath(route.path) : staticFilePath(route.path, { source });
    // Not at `api/v1/releases.ics` itself: a static host serves a file at a request's path before
    // any rewrite by query, so `?source=` would get the unfiltered file.
    return source === null ? 'api/v1/releases/index.ics' : `api/v1/releases/_by/source/${source}.ics`;
  };
  return [null, ...RELEASE_SOURCE_IDS].map((source) => ({
    route,
    slug: null,
    query: source === null ? {} : { source },
    file: file(source),
    aliases: [],
    // The calendar's next releases move with the clock.
    inputs: 'snapshot' as const,
  }));
}

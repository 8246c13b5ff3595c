/**
 * The history routes of the route table: the macro series by slug (endpoints 4, 5 and 20: the
 * public latest values, the keyed history and revisions) and the observations by series key (8, 21
 * and 23, keyed: history, revisions, aligned panels). docs/api/transforms.md, revisions.md,
 * vintages.md and aligned.md are the long forms of their descriptions.
 */
import { HISTORY, REVISIONS, TRANSFORMS } from './history-params.ts';
import { LATEST_MAX_AGE, type RouteDefinition } from './route-definition.ts';
import { ALIGNED_AS_OF_PARAM, ALIGNED_FREQUENCY_PARAM, ALIGNED_SERIES_PARAM } from './schemas/aligned.ts';
import { VINTAGE_PARAM_NAMES } from './vintage-params.ts';

/** The revisions endpoints 20 and 21 (docs/api/revisions.md). */
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

/** Endpoints 4, 5 and 20, in the order of the route table. */
export const MACRO_ROUTES: readonly RouteDefinition[] = [
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
];

/** Endpoints 8, 21 and 23, in the order of the route table. */
export const OBSERVATIONS_ROUTES: readonly RouteDefinition[] = [
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
];

import { resolvePeriodRange } from '../model/period-range.ts';
import {
  COT_EXTRA_COLUMNS,
  type CotAnalyticsWindows,
  type CotHistoryRow,
  type CotReportRow,
  cotAnalyticsSql,
  SERVED_WINDOWS,
} from './cot.ts';
import {
  type HistoryPage,
  type HistoryQuery,
  OBSERVATION_COLUMNS,
  type ObservationRow,
  type SeriesInfo,
} from './history-rows.ts';
import { bindPeriodRange, periodRangeSql } from './period-sql.ts';
import { readCachedObservationHistory } from './revision-cache.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

export type { HistoryPage, HistoryQuery, ObservationRow, SeriesInfo } from './history-rows.ts';
export { OBSERVATION_COLUMNS } from './history-rows.ts';
export { bindPeriodRange, periodRangeSql } from './period-sql.ts';

const SERIES_INFO = `SELECT r.key, s.slug, s.name, s.unit, s.frequency, s.source, src.licence, src.attribution
  FROM series_rights r
  LEFT JOIN series s ON s.key = r.key
  LEFT JOIN sources src ON src.id = r.source`;

/** Series descriptions already read, per snapshot: a snapshot never changes, so they never go stale. */
const seriesInfoCache = new WeakMap<SnapshotDb, Map<string, Promise<SeriesInfo | null>>>();
/** Keys remembered per snapshot (unknown keys included); the oldest is dropped beyond it. */
const SERIES_INFO_CACHE_SIZE = 10_000;

/**
 * Reads a series key known to the snapshot (catalogued or holding observations), whatever its
 * rights: the keyed endpoints serve licensed data too. Null for an unknown key. Remembered per
 * snapshot, so a repeated key costs no query (the history query beside it has the DuckDB
 * threads to itself).
 */
export function readSeriesInfo(db: SnapshotDb, key: string): Promise<SeriesInfo | null> {
  let cache = seriesInfoCache.get(db);
  if (!cache) {
    cache = new Map();
    seriesInfoCache.set(db, cache);
  }
  let info = cache.get(key);
  if (!info) {
    if (cache.size >= SERIES_INFO_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    const entries = cache;
    info = lookUpSeriesInfo(db, key);
    entries.set(key, info);
    info.catch(() => entries.delete(key));
  }
  return info;
}

/**
 * A catalogued key is answered from the small in-memory tables alone; only an uncatalogued one
 * looks into the observations file (as a subquery DuckDB ran it for every key: about 3 ms).
 */
async function lookUpSeriesInfo(db: SnapshotDb, key: string): Promise<SeriesInfo | null> {
  const [row] = await db.query<SeriesInfo & { catalogued: boolean }>(
    `SELECT r.key, s.slug, s.name, s.unit, s.frequency, s.source, src.licence, src.attribution,
            s.key IS NOT NULL AS catalogued
       FROM series_rights r
       LEFT JOIN series s ON s.key = r.key
       LEFT JOIN sources src ON src.id = r.source
      WHERE r.key = $key`,
    { key },
  );
  if (!row) return null;
  const { catalogued, ...info } = row;
  if (catalogued) return info;
  const [observed] = await db.query<{ n: number }>(
    `SELECT 1 AS n FROM ${db.factRelation('observations', key)} WHERE series_key = $key LIMIT 1`,
    { key },
  );
  return observed ? info : null;
}

/** Reads the catalog series tracked on /macro with this slug, or null. */
export async function readMacroSeries(db: SnapshotDb, slug: string): Promise<SeriesInfo | null> {
  const [row] = await db.query<SeriesInfo>(`${SERIES_INFO} WHERE s.slug = $slug AND s.macro`, { slug });
  return row ?? null;
}

/** Binds the shared filters; '' stands for "no filter" because DuckDB cannot compare with a bound NULL. */
function bindHistory(query: HistoryQuery) {
  return {
    as_of: query.asOf ?? '',
    ...bindPeriodRange(resolvePeriodRange(query.from, query.to)),
    after_period: query.after?.period ?? '',
    // One row more than asked tells whether another page follows.
    limit: query.limit + 1,
  };
}

function toPage<T>(rows: T[], limit: number): HistoryPage<T> {
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * One page of a series' observation revisions, as SQL: with an as_of, only revisions observed
 * at or before it count, and `in_force` marks the highest of them per period: in (period,
 * revision) order, the last row of its period. The period range and the cursor's period drop
 * whole periods, so they may filter before the window without changing any mark (and let DuckDB
 * skip row groups of the Parquet file, sorted by series, period and revision); the exact keyset
 * comes after it. One ordered window over the series' rows reads the file once (a max() per
 * period made DuckDB scan it twice and join).
 */
const observationPage = (relation: string, desc = false) => `WITH known AS (
       SELECT *, lead(period) OVER (ORDER BY period, revision_number) IS DISTINCT FROM period AS in_force
         FROM ${relation} AS observations
        WHERE series_key = $series
          AND ($as_of = '' OR observed_at <= TRY_CAST($as_of AS TIMESTAMP))
          AND ${periodRangeSql('period')}
          AND ($after_period = '' OR period ${desc ? '<=' : '>='} $after_period))
     SELECT id, series_key, period, value, source_ref, ${rfc3339('observed_at')} AS observed_at,
            observed_at_method, footnotes, collector_version, verification_status, confidence, data_class, revision_number,
            supersedes_id, in_force
       FROM known
      WHERE $after_period = '' OR (period, revision_number) ${desc ? '<' : '>'} ($after_period, $after_revision::INTEGER)
      ORDER BY ${desc ? 'period DESC, revision_number DESC' : 'period, revision_number'}
      LIMIT $limit`;

/**
 * The same page as one JSON array built by DuckDB: a single string to hand over and parse
 * instead of a JavaScript value per cell (about a third of the time of a 1,000-row page).
 */
const observationPageJson = (
  relation: string,
  desc = false,
) => `SELECT to_json(list({${OBSERVATION_COLUMNS.map((c) => `'${c}': ${c}`).join(', ')}}
         ORDER BY ${desc ? 'period DESC, revision_number DESC' : 'period, revision_number'}))::VARCHAR AS rows
  FROM (${observationPage(relation, desc)})`;

/** The statements of one relation, built once (the pool prepares each text once per connection). */
function memoize(build: (relation: string) => string): (relation: string) => string {
  const built = new Map<string, string>();
  return (relation) => {
    let sql = built.get(relation);
    if (sql === undefined) {
      sql = build(relation);
      built.set(relation, sql);
    }
    return sql;
  };
}

const OBSERVATION_PAGE = memoize((relation) => observationPage(relation));
const OBSERVATION_PAGE_JSON = memoize((relation) => observationPageJson(relation));
const OBSERVATION_PAGE_DESC = memoize((relation) => observationPage(relation, true));
const OBSERVATION_PAGE_JSON_DESC = memoize((relation) => observationPageJson(relation, true));

/**
 * Reads one page of a series' observation revisions ordered by period and revision: from the
 * series' revisions held in memory (revision-cache.ts) when the snapshot keeps them, else, or
 * when that path cannot answer exactly, by OBSERVATION_PAGE in DuckDB.
 */
export async function readObservationHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<ObservationRow>> {
  // The revisions held in memory are read oldest first only: a desc page is DuckDB's.
  if (query.order === 'desc') return readObservationHistoryInDuckDb(db, seriesKey, query);
  return (
    (await readCachedObservationHistory(db, seriesKey, query)) ??
    readObservationHistoryInDuckDb(db, seriesKey, query)
  );
}

/** The same page computed by DuckDB over the series' Parquet partition (see OBSERVATION_PAGE). */
export async function readObservationHistoryInDuckDb(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<ObservationRow>> {
  const params = {
    series: seriesKey,
    ...bindHistory(query),
    after_revision: query.after?.revision_number ?? 0,
  };
  const relation = db.factRelation('observations', seriesKey);
  const desc = query.order === 'desc';
  const json = desc ? OBSERVATION_PAGE_JSON_DESC : OBSERVATION_PAGE_JSON;
  const [page] = await db.query<{ rows: string | null }>(json(relation), params);
  let rows: ObservationRow[];
  try {
    rows = page?.rows ? (JSON.parse(page.rows) as ObservationRow[]) : [];
  } catch {
    // A NaN or infinite value has no JSON form (DuckDB writes it bare): read the rows as values.
    rows = await db.query<ObservationRow>(
      (desc ? OBSERVATION_PAGE_DESC : OBSERVATION_PAGE)(relation),
      params,
    );
  }
  return toPage(rows, query.limit);
}

/**
 * Reads one page of a COT series' reports, one per report date: the revision in force at
 * as_of (the latest revision when as_of is null), oldest report first, with analytics whose
 * windows see every report known at as_of (the period filters and paging apply afterwards), and
 * the columns stored beside each report (cot_report_columns) in force at as_of.
 */
export async function readCotHistory(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
  windows: CotAnalyticsWindows = SERVED_WINDOWS,
): Promise<HistoryPage<CotHistoryRow>> {
  const relation = db.factRelation('cot_reports', seriesKey);
  const desc = query.order === 'desc';
  const sql =
    windows === SERVED_WINDOWS
      ? (desc ? COT_PAGE_DESC : COT_PAGE)(relation)
      : cotPage(relation, windows, desc);
  const rows = await db.query<CotReportRow>(sql, {
    series: seriesKey,
    ...bindHistory(query),
  });
  const page = toPage(rows, query.limit);
  return { ...page, rows: await joinCotColumns(db, seriesKey, query.asOf, page.rows) };
}

// The analytics windows run over the whole as_of-filtered history; periods and paging filter after.
const cotPage = (relation: string, windows: CotAnalyticsWindows, desc = false) =>
  `SELECT * FROM (${cotAnalyticsSql(
    relation,
    `series_key = $series AND ($as_of = '' OR cot_reports.observed_at <= TRY_CAST($as_of AS TIMESTAMP))`,
    windows,
  )})
    WHERE ${periodRangeSql('period')}
      AND ($after_period = '' OR period ${desc ? '<' : '>'} $after_period)
    ORDER BY period${desc ? ' DESC' : ''}
    LIMIT $limit`;

const COT_PAGE = memoize((relation) => cotPage(relation, SERVED_WINDOWS));
const COT_PAGE_DESC = memoize((relation) => cotPage(relation, SERVED_WINDOWS, true));

/**
 * The columns of cot_report_columns in force at as_of of each report of the page, by a second
 * small query over the page's periods: joined into the analytics query they made every keyed
 * page slower to plan, and a second row_number() window there made DuckDB 1.5.5 fail to rebind
 * the prepared statement (INTERNAL "Failed to bind column reference revision_number"). A report
 * without a row (CIT, or stored before the columns were read) has them null.
 */
async function joinCotColumns(
  db: SnapshotDb,
  seriesKey: string,
  asOf: string | null,
  rows: readonly CotReportRow[],
): Promise<CotHistoryRow[]> {
  // The page's oldest and newest periods, whichever order it is in (sort_order).
  const [first, last] = [rows[0]?.period, rows.at(-1)?.period].sort();
  const found =
    first === undefined || last === undefined
      ? []
      : await db.query<{ period: string; latest: Record<(typeof COT_EXTRA_COLUMNS)[number], unknown> }>(
          COT_COLUMNS(db.factRelation('cot_report_columns', seriesKey)),
          { series: seriesKey, as_of: asOf ?? '', first, last },
        );
  const byPeriod = new Map(found.map((row) => [row.period, row.latest]));
  return rows.map((row) => {
    const latest = byPeriod.get(row.period);
    const columns = Object.fromEntries(COT_EXTRA_COLUMNS.map((column) => [column, latest?.[column] ?? null]));
    return { ...row, ...columns } as CotHistoryRow;
  });
}

const COT_COLUMNS = memoize(
  (columns) =>
    `SELECT period,
            arg_max({${COT_EXTRA_COLUMNS.map((column) => `${column}: ${column}`).join(', ')}}, revision_number) AS latest
       FROM ${columns} AS cot_report_columns
      WHERE series_key = $series AND period >= $first AND period <= $last
        AND ($as_of = '' OR cot_report_columns.observed_at <= TRY_CAST($as_of AS TIMESTAMP))
      GROUP BY period`,
);

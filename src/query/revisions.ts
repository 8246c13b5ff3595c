import { resolvePeriodRange } from '../model/period-range.ts';
import { bindPeriodRange, type HistoryPage, type HistoryQuery, periodRangeSql } from './history.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** One stored revision of one period, as the revisions endpoints read it. */
export interface RevisionRecord {
  period: string;
  revision_number: number;
  value: number;
  observed_at: string;
  observed_at_method: string | null;
}

/**
 * The filters of history.ts, with its as_of rule (only revisions observed at or before as_of
 * count) and its period range; '' stands for "no filter" because DuckDB cannot compare with a
 * bound NULL. The cursor is a period: a page ends after a whole period.
 */
function bindRevisions(seriesKey: string, query: HistoryQuery) {
  return {
    series: seriesKey,
    as_of: query.asOf ?? '',
    ...bindPeriodRange(resolvePeriodRange(query.from, query.to)),
  };
}

const KNOWN = `series_key = $series
          AND ($as_of = '' OR observed_at <= TRY_CAST($as_of AS TIMESTAMP))
          AND ${periodRangeSql('period')}`;

/**
 * The revision records of one page of periods: every revision known at as_of of the first
 * `limit` + 1 periods after the cursor (the extra one tells whether another page follows), in
 * (period, revision) order; `desc`: periods newest first (and before the cursor).
 */
const revisionPage = (relation: string, desc: boolean) => `WITH known AS (
       SELECT period, revision_number, value, observed_at, observed_at_method
         FROM ${relation} AS observations
        WHERE ${KNOWN}
          AND ($after_period = '' OR period ${desc ? '<' : '>'} $after_period)),
     page AS (SELECT DISTINCT period FROM known ORDER BY period${desc ? ' DESC' : ''} LIMIT $limit)
     SELECT period, revision_number, value, ${rfc3339('observed_at')} AS observed_at, observed_at_method
       FROM known JOIN page USING (period)
      ORDER BY period${desc ? ' DESC' : ''}, revision_number`;

/**
 * The vintages of a range: the distinct knowledge times at which a period of it got a record,
 * known at as_of, oldest first; at most `$max` + 1 (enough to tell that there are too many).
 */
const vintageList = (relation: string) => `SELECT ${rfc3339('observed_at')} AS vintage
       FROM (SELECT DISTINCT observed_at FROM ${relation} AS observations WHERE ${KNOWN}
              ORDER BY observed_at LIMIT $max)
      ORDER BY observed_at`;

/** Reads one page of periods with every revision of each known at as_of (see revisionPage). */
export async function readRevisionPage(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
): Promise<HistoryPage<RevisionRecord[]>> {
  const relation = db.factRelation('observations', seriesKey);
  // sort_order=desc: periods newest first, the revisions of each still in revision order.
  const rows = await db.query<RevisionRecord>(revisionPage(relation, query.order === 'desc'), {
    ...bindRevisions(seriesKey, query),
    after_period: query.after?.period ?? '',
    limit: query.limit + 1,
  });
  const periods: RevisionRecord[][] = [];
  for (const row of rows) {
    const current = periods.at(-1);
    if (current && current[0]!.period === row.period) current.push(row);
    else periods.push([row]);
  }
  return { rows: periods.slice(0, query.limit), more: periods.length > query.limit };
}

/**
 * Reads the vintages of the series' from/to range known at as_of, oldest first, at most
 * `max` + 1 of them (more than `max` means too many for one triangle).
 */
export async function readVintages(
  db: SnapshotDb,
  seriesKey: string,
  query: HistoryQuery,
  max: number,
): Promise<string[]> {
  const relation = db.factRelation('observations', seriesKey);
  const rows = await db.query<{ vintage: string }>(vintageList(relation), {
    ...bindRevisions(seriesKey, query),
    max: max + 1,
  });
  return rows.map((row) => row.vintage);
}

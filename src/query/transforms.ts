import type { InForceRow } from './history-rows.ts';
import { readCachedValuesInForce } from './revision-cache.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/**
 * The first step of every transform (docs/api/transforms.md): per period the highest revision
 * observed at or before as_of (every revision without as_of), oldest period first. The whole
 * series is read: aggregation and the lags of `units` need periods outside the requested range,
 * which is applied to the transformed periods afterwards. Bound parameters only; '' stands for
 * "no as_of" as in history.ts.
 */
const inForceRows = (
  relation: string,
) => `SELECT period, value, revision_number, ${rfc3339('observed_at')} AS observed_at
       FROM ${relation} AS observations
      WHERE series_key = $series
        AND ($as_of = '' OR observed_at <= TRY_CAST($as_of AS TIMESTAMP))
    QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1`;

/** The same rows as one JSON array built by DuckDB (a daily series holds thousands of periods). */
const inForceJson = (relation: string) => `SELECT to_json(list({'period': period, 'value': value,
          'revision_number': revision_number, 'observed_at': observed_at} ORDER BY period))::VARCHAR AS rows
     FROM (${inForceRows(relation)})`;

/**
 * Reads the values in force at as_of (null: the latest) of every period of one series, oldest
 * first: from the series' revisions held in memory (revision-cache.ts) when the snapshot keeps
 * them, else by DuckDB.
 */
export async function readValuesInForceAsOf(
  db: SnapshotDb,
  seriesKey: string,
  asOf: string | null,
): Promise<InForceRow[]> {
  return (
    (await readCachedValuesInForce(db, seriesKey, asOf)) ?? readValuesInForceInDuckDb(db, seriesKey, asOf)
  );
}

/** The same rows computed by DuckDB over the series' Parquet partition. */
export async function readValuesInForceInDuckDb(
  db: SnapshotDb,
  seriesKey: string,
  asOf: string | null,
): Promise<InForceRow[]> {
  const relation = db.factRelation('observations', seriesKey);
  const params = { series: seriesKey, as_of: asOf ?? '' };
  const [page] = await db.query<{ rows: string | null }>(inForceJson(relation), params);
  try {
    return page?.rows ? (JSON.parse(page.rows) as InForceRow[]) : [];
  } catch {
    // A NaN or infinite value has no JSON form (DuckDB writes it bare): read the rows as values.
    return db.query<InForceRow>(`${inForceRows(relation)} ORDER BY period`, params);
  }
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../db/duckdb.ts';

/** The fields of a fact that its revision chain is made of. */
export interface ChainRow {
  id: string;
  series_key: string;
  period: string;
  revision_number: number;
  supersedes_id: string | null;
  observed_at: string;
}

/** One broken rule of a revision chain. */
export interface ChainProblem {
  series_key: string;
  period: string;
  message: string;
}

/**
 * Checks every revision chain of `relation` (a table, view or `read_parquet(...)` with the
 * ChainRow columns; observed_at a TIMESTAMP or ISO text) in SQL: ids unique, revision 1
 * supersedes nothing, each later revision supersedes the immediately previous revision of the
 * same series and period, numbers run 1, 2, 3 without gaps or repeats (a repeat is a fork), and
 * `observed_at` never decreases. DuckDB does the work, spilling if it must, so memory stays
 * bounded whatever the size; at most `limit` problems of each kind come back.
 */
export async function findChainProblems(
  connection: DuckDBConnection,
  relation: string,
  limit = 100,
): Promise<ChainProblem[]> {
  const duplicates = await readRows<ChainProblem>(
    connection,
    `SELECT any_value(series_key) AS series_key, any_value(period) AS period, 'duplicate id ' || id AS message
       FROM ${relation} GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT ${limit}`,
  );
  const broken = await readRows<ChainProblem>(
    connection,
    `WITH chain AS (
       SELECT id, series_key, period, revision_number, supersedes_id,
              strftime(observed_at::TIMESTAMP, '%Y-%m-%dT%H:%M:%SZ') AS observed_at,
              row_number() OVER w AS expected,
              lag(id) OVER w AS previous_id,
              strftime(lag(observed_at::TIMESTAMP) OVER w, '%Y-%m-%dT%H:%M:%SZ') AS previous_observed_at
         FROM ${relation}
       WINDOW w AS (PARTITION BY series_key, period ORDER BY revision_number, id))
     SELECT series_key, period,
            CASE
              WHEN revision_number IS DISTINCT FROM expected
                THEN 'revision ' || coalesce(revision_number::VARCHAR, 'null') || ' where ' || expected ||
                     ' was expected (gap, repeat or fork)'
              WHEN expected = 1
                THEN 'revision 1 (' || id || ') supersedes ' || supersedes_id
              WHEN supersedes_id IS DISTINCT FROM previous_id
                THEN 'revision ' || expected || ' (' || id || ') supersedes ' || coalesce(supersedes_id, 'nothing') ||
                     ', not ' || previous_id
              ELSE 'revision ' || expected || ' observed at ' || observed_at || ', before revision ' ||
                   (expected - 1) || ' (' || previous_observed_at || ')'
            END AS message
       FROM chain
      WHERE revision_number IS DISTINCT FROM expected
         OR (expected = 1 AND supersedes_id IS NOT NULL)
         OR (expected > 1 AND supersedes_id IS DISTINCT FROM previous_id)
         OR observed_at < previous_observed_at
      ORDER BY series_key, period, expected
      LIMIT ${limit}`,
  );
  return [...duplicates, ...broken];
}

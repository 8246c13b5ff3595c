import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, readRows } from '../db/duckdb.ts';
import { methodRankSql, type PlanTables, statedSql } from './fact-candidates.ts';

/** The ordering of a timeline's entries: knowledge time, method rank, stored first, batch, step. */
const ENTRY_ORDER = `{'at': t.observed_at, 'rank': t.method_rank, 'source': t.source, 'batch': t.batch_id, 'step': t.step}`;

/**
 * Decides the candidates planInOneStep left as `sequential` (keys where candidates share an
 * instant, or one is restamped as a correction) exactly as planRevisions does: in rounds, where
 * round k decides the k-th candidate of every such key (in the order of knowledge time, method
 * rank and input index) against its timeline, the stored records plus the candidates accepted in
 * earlier rounds. Each round is one set-based statement over all those keys; the number of rounds
 * is the largest number of candidates one such key has in the ingest (identical repeats are
 * planned once), a handful in practice, though about 10 ms each.
 */
export async function planSequentially(connection: DuckDBConnection, tables: PlanTables): Promise<void> {
  const decisions = quotedIdentifier(tables.decisions);
  const names = {
    pending: quotedIdentifier(`${tables.decisions}_pending`),
    timeline: quotedIdentifier(`${tables.decisions}_timeline`),
    round: quotedIdentifier(`${tables.decisions}_round`),
    decided: quotedIdentifier(`${tables.decisions}_decided`),
  };
  const [count] = await readRows<{ candidates: number }>(
    connection,
    `SELECT count(*)::INTEGER AS candidates FROM ${decisions} WHERE kind = 'sequential'`,
  );
  if ((count?.candidates ?? 0) === 0) return;
  try {
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${names.pending} AS
         SELECT c.*, row_number() OVER (
                  PARTITION BY c.series_key, c.period ORDER BY c.observed_at, c.method_rank, c.candidate_index) AS step
           FROM ${quotedIdentifier(tables.candidates)} AS c
           SEMI JOIN ${decisions} AS d ON d.candidate_index = c.candidate_index AND d.kind = 'sequential'`,
    );
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${names.timeline} AS
         SELECT s.series_key, s.period, s.fp, s.observed_at, s.method_rank, 0 AS source, s.batch_id, 0::BIGINT AS step
           FROM ${quotedIdentifier(tables.stored)} AS s
           SEMI JOIN ${names.pending} AS p ON p.series_key = s.series_key AND p.period = s.period`,
    );
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${names.decided} AS SELECT * FROM ${decisions} WHERE false`,
    );
    const [steps] = await readRows<{ last: number }>(
      connection,
      `SELECT max(step)::INTEGER AS last FROM ${names.pending}`,
    );
    for (let step = 1; step <= (steps?.last ?? 0); step += 1) {
      await planRound(connection, names, step);
    }
    await execute(
      connection,
      `UPDATE ${decisions} AS d
          SET kind = x.kind, observed_at = x.observed_at, method = x.method, method_rank = x.method_rank,
              backfill = x.backfill, corrected = x.corrected, refusal = x.refusal
         FROM ${names.decided} AS x
        WHERE d.candidate_index = x.candidate_index`,
    );
  } finally {
    for (const name of Object.values(names)) await execute(connection, `DROP TABLE IF EXISTS ${name}`);
  }
}

/** Decides one round of candidates (decide() in revisions.ts) and adds the accepted to the timeline. */
async function planRound(
  connection: DuckDBConnection,
  names: { pending: string; timeline: string; round: string; decided: string },
  step: number,
): Promise<void> {
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${names.round} AS
     WITH candidate AS (SELECT * FROM ${names.pending} WHERE step = $step),
     found AS (
       SELECT c.candidate_index,
              count(t.fp) AS entries,
              arg_max(t.fp, ${ENTRY_ORDER}) AS last_fp,
              arg_max(t.observed_at, ${ENTRY_ORDER}) AS last_at,
              arg_max(t.method_rank, ${ENTRY_ORDER}) AS last_rank,
              arg_max(t.fp, ${ENTRY_ORDER}) FILTER (WHERE t.observed_at < c.observed_at
                OR (t.observed_at = c.observed_at AND t.method_rank <= c.method_rank)) AS release_fp,
              arg_max(t.observed_at, ${ENTRY_ORDER}) FILTER (WHERE t.observed_at < c.observed_at
                OR (t.observed_at = c.observed_at AND t.method_rank <= c.method_rank)) AS release_at
         FROM candidate AS c
         LEFT JOIN ${names.timeline} AS t ON t.series_key = c.series_key AND t.period = c.period
        GROUP BY c.candidate_index
     ),
     timed AS (
       -- A calendar time dates a first release: a value the store does not know yet is a correction.
       SELECT c.*, f.entries, f.last_at, f.last_rank, f.release_at,
              CASE WHEN NOT c.first_release OR f.entries = 0 THEN 'own'
                   WHEN f.release_fp = c.fp OR f.last_fp = c.fp THEN 'unchanged'
                   -- A correction comes after the value it corrects, or that value would supersede it.
                   WHEN c.correction_at IS NOT NULL AND c.correction_at <= f.release_at THEN 'early'
                   WHEN c.correction_at IS NOT NULL THEN 'restamp'
                   ELSE 'refused' END AS timing
         FROM candidate AS c JOIN found AS f USING (candidate_index)
     ),
     placed AS (
       SELECT x.*,
              CASE WHEN x.timing = 'restamp' THEN x.correction_at ELSE x.observed_at END AS at,
              CASE WHEN x.timing = 'restamp' THEN x.correction_method ELSE x.method END AS placed_method,
              CASE WHEN x.timing = 'restamp' THEN ${methodRankSql('x.correction_method')} ELSE x.method_rank END
                AS placed_rank
         FROM timed AS x
     ),
     neighbours AS (
       SELECT x.candidate_index,
              coalesce(bool_or(t.observed_at = x.at AND t.fp = x.fp), false) AS same_value_at_instant,
              arg_max(t.fp, ${ENTRY_ORDER}) FILTER (WHERE t.observed_at < x.at
                OR (t.observed_at = x.at AND t.method_rank <= x.placed_rank)) AS previous_fp,
              arg_max(t.observed_at, ${ENTRY_ORDER}) FILTER (WHERE t.observed_at < x.at
                OR (t.observed_at = x.at AND t.method_rank <= x.placed_rank)) AS previous_at,
              arg_max(t.method_rank, ${ENTRY_ORDER}) FILTER (WHERE t.observed_at < x.at
                OR (t.observed_at = x.at AND t.method_rank <= x.placed_rank)) AS previous_rank
         FROM placed AS x
         LEFT JOIN ${names.timeline} AS t ON t.series_key = x.series_key AND t.period = x.period
        GROUP BY x.candidate_index
     )
     SELECT x.candidate_index, x.series_key, x.period, x.fp,
            CASE
              WHEN x.timing IN ('unchanged', 'refused') THEN x.timing
              WHEN x.timing = 'early' THEN 'refused'
              WHEN n.same_value_at_instant THEN 'unchanged'
              WHEN n.previous_fp = x.fp AND NOT ${statedSql('x.placed_method')} THEN 'unchanged'
              WHEN n.previous_at = x.at AND n.previous_rank = x.placed_rank THEN 'refused'
              ELSE 'append'
            END AS kind,
            x.at AS observed_at, x.placed_method AS method, x.placed_rank AS method_rank,
            x.entries > 0 AND (x.at < x.last_at OR (x.at = x.last_at AND x.placed_rank < x.last_rank)) AS backfill,
            x.timing = 'restamp' AS corrected,
            CASE WHEN x.timing = 'refused' THEN 'differs'
                 WHEN x.timing = 'early' THEN 'early_correction ' || strftime(x.correction_at, '%Y-%m-%dT%H:%M:%SZ') ||
                   ' ' || x.correction_method || ' ' || strftime(x.release_at, '%Y-%m-%dT%H:%M:%SZ')
                 ELSE 'same_instant' END AS refusal
       FROM placed AS x JOIN neighbours AS n USING (candidate_index)`,
    { step },
  );
  await execute(
    connection,
    `INSERT INTO ${names.timeline}
       SELECT series_key, period, fp, observed_at, method_rank, 1, '', $step FROM ${names.round} WHERE kind = 'append'`,
    { step },
  );
  await execute(
    connection,
    `INSERT INTO ${names.decided}
       SELECT candidate_index, kind, observed_at, method, method_rank, backfill AND kind = 'append',
              corrected AND kind = 'append', CASE WHEN kind = 'refused' THEN refusal END
         FROM ${names.round}`,
  );
}

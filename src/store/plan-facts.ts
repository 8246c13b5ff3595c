import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { defineNumberText } from '../db/number-text.ts';
import type { FactRelation, KnowledgeMethod } from '../model/records.ts';
import {
  definePlanTables,
  loadFactCandidates,
  loadStoredFacts,
  type PlanTables,
  statedSql,
} from './fact-candidates.ts';
import { planSequentially } from './plan-facts-sequential.ts';
import { earlyCorrectionReason } from './revisions.ts';
import type { TableDefinition } from './tables.ts';

/** Per-table counts of one ingest. */
export interface TableCounts {
  added: number;
  unchanged: number;
  /** Of `added`: facts placed before knowledge the store already had (late vintages, backfills). */
  backfilled: number;
  /** Of `added`: calendar-stamped values that changed a stored value, restamped as corrections. */
  corrected: number;
}

/** A fact table's plan: its counts, and the first refusals with how many there are in all. */
export interface FactPlan {
  table: TableDefinition;
  tables: PlanTables;
  counts: TableCounts;
  refusals: { reasons: string[]; total: number };
}

/** Options of planFacts. */
export interface PlanFactsOptions {
  /** Batch files of the table, oldest first. */
  files: readonly string[];
  /** Scratch file JavaScript candidates pass through on their way into DuckDB. */
  ndjsonFile: string;
}

const SHOWN_REFUSALS = 5;
const TIME_FORMAT = '%Y-%m-%dT%H:%M:%SZ';

/**
 * Plans a fact table's candidates in SQL against the stored records of their keys, with the
 * semantics of planRevisions (revisions.ts, the reference model): each candidate is unchanged,
 * appended (with its knowledge time, backfill and corrected flags) or refused. The decisions stay
 * in DuckDB (plan tables); JavaScript gets the counts and the first few refusals.
 */
export async function planFacts(
  connection: DuckDBConnection,
  table: TableDefinition,
  rows: readonly object[] | FactRelation,
  options: PlanFactsOptions,
): Promise<FactPlan> {
  const tables = definePlanTables(table);
  try {
    await defineNumberText(connection);
    await loadFactCandidates(connection, table, tables, rows, options.ndjsonFile);
    await loadStoredFacts(connection, table, tables, options.files);
    await planInOneStep(connection, tables);
    await planSequentially(connection, tables);
    await decideDuplicates(connection, tables);
    return {
      table,
      tables,
      counts: await readCounts(connection, tables),
      refusals: await readRefusals(connection, tables),
    };
  } catch (error) {
    await dropFactPlan(connection, tables);
    throw error;
  }
}

/**
 * Decides every candidate with window functions over the stored records and the candidates of
 * its key, in knowledge-time order (observed_at, method rank; stored before new, then batch,
 * then input index). Candidates of one key interact: each sees the value in force before it,
 * which an earlier accepted candidate may have set. Where no two candidates of a key share an
 * instant and none is restamped, that value is the last fingerprint before it of a stored record
 * or of a candidate that is not "transparent". A transparent candidate leaves the value in force
 * as it was (its value is already stored at its instant, it is refused, or it is calendar-dated
 * where the key already has a record), and whether it is follows from its own row and the
 * stored records alone; a candidate left unchanged because it repeats the value in force sets
 * that same value. Keys where the premise fails are left as `sequential` for planSequentially.
 */
async function planInOneStep(connection: DuckDBConnection, tables: PlanTables): Promise<void> {
  const stored = quotedIdentifier(tables.stored);
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.decisions)} AS
     WITH instants AS (
       SELECT series_key, period, observed_at, list(DISTINCT fp) AS fps, list(DISTINCT method_rank) AS ranks
         FROM ${stored} GROUP BY series_key, period, observed_at
     ),
     latest AS (
       SELECT series_key, period,
              arg_max(fp, {'at': observed_at, 'rank': method_rank, 'batch': batch_id}) AS fp,
              max(observed_at) AS observed_at,
              arg_max(method_rank, {'at': observed_at, 'rank': method_rank}) AS method_rank
         FROM ${stored} GROUP BY series_key, period
     ),
     ordered AS (
       -- In processing order: the first candidate of a key, and candidates sharing an instant.
       SELECT *, row_number() OVER key_order = 1 AS first_in_key,
              coalesce(lag(observed_at) OVER key_order = observed_at
                OR lead(observed_at) OVER key_order = observed_at, false) AS shares_instant
         FROM ${quotedIdentifier(tables.candidates)}
        WHERE duplicate_of IS NULL
       WINDOW key_order AS (PARTITION BY series_key, period ORDER BY observed_at, method_rank, candidate_index)
     ),
     flagged AS (
       SELECT c.*,
              coalesce(list_contains(i.fps, c.fp), false) AS same_value_at_instant,
              coalesce(list_contains(i.ranks, c.method_rank), false) AS same_rank_at_instant,
              coalesce(l.observed_at > c.observed_at
                OR (l.observed_at = c.observed_at AND l.method_rank > c.method_rank), false) AS stored_after,
              l.fp AS latest_fp,
              -- The store or an earlier candidate of the key (the first is always appended) has a record.
              l.series_key IS NOT NULL OR NOT c.first_in_key AS timeline_known
         FROM ordered AS c
         LEFT JOIN instants AS i
           ON i.series_key = c.series_key AND i.period = c.period AND i.observed_at = c.observed_at
         LEFT JOIN latest AS l ON l.series_key = c.series_key AND l.period = c.period
     ),
     merged AS (
       SELECT series_key, period, observed_at, method_rank, 0 AS source, batch_id, NULL::BIGINT AS candidate_index,
              fp AS sets_fp
         FROM ${stored}
       UNION ALL
       SELECT series_key, period, observed_at, method_rank, 1, NULL, candidate_index,
              CASE WHEN (first_release AND timeline_known)
                     OR (NOT first_release AND (same_value_at_instant OR same_rank_at_instant))
                   THEN NULL ELSE fp END
         FROM flagged
     ),
     in_force AS (
       SELECT candidate_index,
              last_value(sets_fp IGNORE NULLS) OVER (
                PARTITION BY series_key, period ORDER BY observed_at, method_rank, source, batch_id, candidate_index
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_fp
         FROM merged
       QUALIFY source = 1
     ),
     decided AS (
       SELECT f.*,
              CASE
                WHEN f.first_release AND f.timeline_known THEN CASE
                  -- What was in force at its release, or what the store knows last, says this already.
                  WHEN p.before_fp = f.fp OR (f.stored_after AND f.latest_fp = f.fp) THEN 'unchanged'
                  WHEN f.correction_at IS NOT NULL THEN 'restamp'
                  ELSE 'refused' END
                WHEN f.same_value_at_instant THEN 'unchanged'
                WHEN p.before_fp = f.fp AND NOT ${statedSql('f.method')} THEN 'unchanged'
                WHEN f.same_rank_at_instant THEN 'refused'
                ELSE 'append'
              END AS kind
         FROM flagged AS f JOIN in_force AS p USING (candidate_index)
     )
     SELECT candidate_index,
            CASE WHEN bool_or(shares_instant OR kind = 'restamp') OVER (PARTITION BY series_key, period)
                 THEN 'sequential' ELSE kind END AS kind,
            observed_at, method, method_rank,
            kind = 'append' AND stored_after AS backfill,
            false AS corrected,
            CASE WHEN kind = 'refused' THEN CASE WHEN first_release THEN 'differs' ELSE 'same_instant' END END
              AS refusal
       FROM decided`,
  );
}

/** A repeat of the candidate before it takes its decision; after an append it is unchanged. */
async function decideDuplicates(connection: DuckDBConnection, tables: PlanTables): Promise<void> {
  await execute(
    connection,
    `INSERT INTO ${quotedIdentifier(tables.decisions)}
       SELECT c.candidate_index, CASE WHEN d.kind = 'append' THEN 'unchanged' ELSE d.kind END,
              d.observed_at, d.method, d.method_rank, false, false, d.refusal
         FROM ${quotedIdentifier(tables.candidates)} AS c
         JOIN ${quotedIdentifier(tables.decisions)} AS d ON d.candidate_index = c.duplicate_of`,
  );
}

async function readCounts(connection: DuckDBConnection, tables: PlanTables): Promise<TableCounts> {
  const [row] = await readRows<Record<keyof TableCounts, number>>(
    connection,
    `SELECT count(*) FILTER (WHERE kind = 'append')::INTEGER AS added,
            count(*) FILTER (WHERE kind = 'unchanged')::INTEGER AS unchanged,
            count(*) FILTER (WHERE kind = 'append' AND backfill)::INTEGER AS backfilled,
            count(*) FILTER (WHERE kind = 'append' AND corrected)::INTEGER AS corrected
       FROM ${quotedIdentifier(tables.decisions)}`,
  );
  return {
    added: row?.added ?? 0,
    unchanged: row?.unchanged ?? 0,
    backfilled: row?.backfilled ?? 0,
    corrected: row?.corrected ?? 0,
  };
}

/** The first refusals in input order, worded as planRevisions words them, and their number. */
async function readRefusals(
  connection: DuckDBConnection,
  tables: PlanTables,
): Promise<{ reasons: string[]; total: number }> {
  const rows = await readRows<{
    series_key: string;
    period: string;
    /** `differs`, `same_instant`, or `early_correction <correction time> <method> <corrected time>`. */
    refusal: string;
    observed_at: string;
    method: string;
    total: number;
  }>(
    connection,
    `SELECT c.series_key, c.period, d.refusal, strftime(d.observed_at, ${quotedString(TIME_FORMAT)}) AS observed_at,
            d.method, (count(*) OVER ())::INTEGER AS total
       FROM ${quotedIdentifier(tables.decisions)} AS d
       JOIN ${quotedIdentifier(tables.candidates)} AS c USING (candidate_index)
      WHERE d.kind = 'refused'
      ORDER BY d.candidate_index
      LIMIT ${SHOWN_REFUSALS}`,
  );
  const reasons = rows.map((row) => {
    if (row.refusal.startsWith('early_correction ')) {
      const [, at, method, correctedAt] = row.refusal.split(' ') as [string, string, KnowledgeMethod, string];
      return earlyCorrectionReason(row.series_key, row.period, { observed_at: at, method }, correctedAt);
    }
    return row.refusal === 'differs'
      ? `${row.series_key} ${row.period}: the value differs from the one stored, so it is a ` +
          'correction or revision, and the file carries no time it was published or collected; ' +
          'pass --collected-at (when the file was retrieved) or --observed-at'
      : `${row.series_key} ${row.period}: two different values known at the same instant ` +
          `${row.observed_at} (${row.method}); the store keeps one value per knowledge time`;
  });
  return { reasons, total: rows[0]?.total ?? 0 };
}

/**
 * Fills `scratch` (a table shaped like the stored table) with the accepted candidates as stored
 * records: id from content and knowledge time (createFactId's hash), the planned knowledge time,
 * and no chain fields, which publish derives from every record of the key (publish.ts).
 */
export async function fillPlannedFacts(
  connection: DuckDBConnection,
  plan: FactPlan,
  scratch: string,
  batch: { id: string; collectorVersion: string; idPrefix: string },
): Promise<void> {
  const id = `$prefix || '_' || left(sha256(c.series_key || chr(0) || c.period || chr(0) ||
      strftime(d.observed_at, ${quotedString(TIME_FORMAT)}) || chr(0) || c.fp), 20)`;
  const special: Record<string, string> = {
    id,
    observed_at: 'd.observed_at',
    observed_at_method: 'd.method',
    revision_number: 'NULL',
    supersedes_id: 'NULL',
    collector_version: '$collector_version',
    batch_id: '$batch_id',
  };
  const columns = Object.keys(plan.table.columns)
    .map((column) => special[column] ?? `i.${quotedIdentifier(column)}`)
    .join(', ');
  await execute(
    connection,
    `INSERT INTO ${quotedIdentifier(scratch)}
       SELECT ${columns}
         FROM ${quotedIdentifier(plan.tables.decisions)} AS d
         JOIN ${quotedIdentifier(plan.tables.candidates)} AS c USING (candidate_index)
         JOIN ${quotedIdentifier(plan.tables.input)} AS i USING (candidate_index)
        WHERE d.kind = 'append'`,
    { prefix: batch.idPrefix, collector_version: batch.collectorVersion, batch_id: batch.id },
  );
}

/** Drops a plan's temporary tables. */
export async function dropFactPlan(connection: DuckDBConnection, tables: PlanTables): Promise<void> {
  for (const name of Object.values(tables)) {
    await execute(connection, `DROP TABLE IF EXISTS ${quotedIdentifier(name)}`);
  }
}

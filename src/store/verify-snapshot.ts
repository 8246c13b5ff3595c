import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { provenRelease, releaseGroupSql } from '../calendar/fact-release.ts';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../calendar/load-calendars.ts';
import type { Calendars } from '../calendar/types.ts';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import type { SnapshotManifest } from './manifest.ts';
import { rangeOf, rangePredicate, relationOf } from './partitions.ts';
import type { Problem } from './problem.ts';
import { TABLES } from './tables.ts';
import { findChainProblems } from './validate-chains.ts';
import { checkReferences, checkRights } from './verify-references.ts';

export type { Problem } from './problem.ts';

/** Options of verifySnapshotContent. */
export interface VerifyContentOptions {
  /** Check the chains of these fact files only (what a publish wrote); default every file. */
  partitions?: ReadonlySet<string>;
}

/**
 * Opens the snapshot's tables as views on `connection` and checks their content in SQL: every
 * partition's keys inside its range, revision chains (one partition at a time, so memory
 * follows the partition size), rights of every series, and that catalog references resolve in
 * the reference lists. Call it only after verifySnapshotFiles found no problem.
 */
export async function verifySnapshotContent(
  connection: DuckDBConnection,
  dir: string,
  manifest: SnapshotManifest,
  options: VerifyContentOptions = {},
): Promise<Problem[]> {
  for (const table of TABLES) {
    // A snapshot of an older schema may lack a table (schema 3: cot_report_columns): read as empty.
    const files = (manifest.tables[table.name]?.files ?? []).map((entry) => join(dir, entry.file));
    await execute(
      connection,
      `CREATE OR REPLACE TEMP VIEW ${quotedIdentifier(`v_${table.name}`)} AS SELECT * FROM ${relationOf(table, files)}`,
    );
  }
  const latest = manifest.derived?.series_latest && manifest.derived.cot_latest;
  await execute(
    connection,
    latest
      ? `CREATE OR REPLACE TEMP VIEW v_fact_keys AS
           SELECT series_key FROM read_parquet(${quotedString(join(dir, manifest.derived.series_latest!.file))})
           UNION SELECT series_key FROM read_parquet(${quotedString(join(dir, manifest.derived.cot_latest!.file))})`
      : `CREATE OR REPLACE TEMP VIEW v_fact_keys AS
           SELECT DISTINCT series_key FROM v_observations UNION SELECT DISTINCT series_key FROM v_cot_reports`,
  );
  const calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
  return [
    ...(await checkPartitions(connection, dir, manifest, options, calendars)),
    ...(await checkRights(connection)),
    ...(await checkReferences(connection)),
  ];
}

const REVERSIONS_LISTED = 20;

async function checkPartitions(
  connection: DuckDBConnection,
  dir: string,
  manifest: SnapshotManifest,
  options: VerifyContentOptions,
  calendars: Calendars,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const reversions: Problem[] = [];
  let reversionCount = 0;
  const knowledge = { shown: 0, total: 0 };
  for (const table of TABLES.filter((t) => t.kind === 'fact')) {
    for (const entry of manifest.tables[table.name]?.files ?? []) {
      if (options.partitions && !options.partitions.has(entry.file)) continue;
      const relation = `read_parquet(${quotedString(join(dir, entry.file))})`;
      const range = rangeOf(entry);
      if (range) {
        const [outside] = await readRows<{ n: number }>(
          connection,
          `SELECT count(*)::INTEGER AS n FROM ${relation} WHERE NOT ${rangePredicate(range)}`,
        );
        if (Number(outside?.n ?? 0) > 0) {
          problems.push({
            severity: 'error',
            check: 'chain',
            message: `${manifest.id}/${entry.file}: ${outside!.n} row(s) outside the partition's key range`,
          });
        }
      }
      for (const problem of await findChainProblems(connection, relation)) {
        problems.push({
          severity: 'error',
          check: 'chain',
          message: `${problem.series_key} ${problem.period}: ${problem.message}`,
        });
      }
      const misdated = await findKnowledgeTimeProblems(connection, relation, calendars, manifest.created_at);
      knowledge.total += misdated.total;
      for (const message of misdated.messages.slice(0, KNOWLEDGE_LISTED - knowledge.shown)) {
        problems.push({ severity: 'error', check: 'knowledge', message });
        knowledge.shown += 1;
      }
      if (table.name === 'observations') {
        const found = await findReversions(connection, relation);
        reversionCount += found.length;
        reversions.push(...found.slice(0, REVERSIONS_LISTED - reversions.length));
      }
    }
  }
  if (knowledge.total > knowledge.shown) {
    problems.push({
      severity: 'error',
      check: 'knowledge',
      message: `${knowledge.total - knowledge.shown} more records known before their release or after the snapshot`,
    });
  }
  if (reversionCount > reversions.length) {
    reversions.push({
      severity: 'warning',
      check: 'chain',
      message: `${reversionCount - reversions.length} more chains return to an older value`,
    });
  }
  return [...problems, ...reversions];
}

const KNOWLEDGE_LISTED = 20;

/**
 * Records whose knowledge time is impossible: before the proven release of their (series,
 * period) by the release calendars (src/calendar/fact-release.ts), or after the snapshot was
 * created: a publish dates its snapshot at or after every knowledge time it holds
 * (src/store/knowledge-ahead.ts), so the skew allowance an ingest grants is no excuse here. Such
 * a record makes `as_of` show a value before it existed, or one stamped in the future. The
 * releases are worked out once per release group and period, then joined in SQL.
 */
async function findKnowledgeTimeProblems(
  connection: DuckDBConnection,
  relation: string,
  calendars: Calendars,
  createdAt: string,
): Promise<{ messages: string[]; total: number }> {
  const groups = await readRows<{ release_group: string; period: string }>(
    connection,
    `SELECT DISTINCT ${releaseGroupSql('series_key')} AS release_group, period FROM ${relation}`,
  );
  const releases = groups.flatMap(({ release_group, period }) => {
    const release = provenRelease(release_group, period, calendars);
    return release === null ? [] : [{ release_group, period, released_at: release.observed_at }];
  });
  const rows = await readRows<{
    series_key: string;
    period: string;
    revision_number: number;
    observed_at: string;
    method: string | null;
    released_at: string | null;
    total: number;
  }>(
    connection,
    `WITH releases AS (
       SELECT r.release_group, r.period, r.released_at::TIMESTAMP AS released_at
         FROM (SELECT unnest(from_json($releases::JSON,
           '[{"release_group":"VARCHAR","period":"VARCHAR","released_at":"VARCHAR"}]')) AS r))
     SELECT f.series_key, f.period, f.revision_number, strftime(f.observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at,
            f.observed_at_method AS method, strftime(r.released_at, '%Y-%m-%dT%H:%M:%SZ') AS released_at,
            (count(*) OVER ())::INTEGER AS total
       FROM ${relation} AS f
       LEFT JOIN releases AS r ON r.release_group = ${releaseGroupSql('f.series_key')} AND r.period = f.period
      WHERE f.observed_at < r.released_at OR f.observed_at > $created::TIMESTAMP
      ORDER BY f.series_key, f.period, f.revision_number
      LIMIT ${KNOWLEDGE_LISTED}`,
    { releases: JSON.stringify(releases), created: createdAt.replace('Z', '') },
  );
  const messages = rows.map((row) => {
    const what = `${row.series_key} ${row.period} revision ${row.revision_number}`;
    const time = `knowledge time ${row.observed_at} (${row.method ?? 'unknown'})`;
    return row.released_at !== null && row.observed_at < row.released_at
      ? `${what}: ${time} is before its release at ${row.released_at}`
      : `${what}: ${time} is after the snapshot was created (${createdAt}); a snapshot must be dated ` +
          'at or after every knowledge time it holds: once the clock has passed it, mmds publish makes one that is';
  });
  return { messages, total: rows[0]?.total ?? 0 };
}

/**
 * A chain whose newest revision returns to the value of an older one, stamped later, is what an
 * old file ingested late with the wrong knowledge time looks like (it can also be a real revision
 * that went back): a warning for the operator to look at, naming how the stamp was set.
 */
async function findReversions(connection: DuckDBConnection, relation: string): Promise<Problem[]> {
  const rows = await readRows<{
    series_key: string;
    period: string;
    newest: number;
    older: number;
    method: string;
  }>(
    connection,
    `WITH chain AS (
       SELECT series_key, period, value, revision_number, observed_at_method,
              max(revision_number) OVER (PARTITION BY series_key, period) AS newest
         FROM ${relation})
     SELECT n.series_key, n.period, n.revision_number AS newest,
            max(o.revision_number) AS older, coalesce(n.observed_at_method, 'unknown') AS method
       FROM chain n JOIN chain o ON o.series_key = n.series_key AND o.period = n.period
      WHERE n.revision_number = n.newest AND o.revision_number < n.revision_number - 1 AND o.value = n.value
      GROUP BY ALL ORDER BY n.series_key, n.period`,
  );
  return rows.map((row) => ({
    severity: 'warning',
    check: 'chain',
    message:
      `${row.series_key} ${row.period}: the newest revision (${row.newest}, stamped by ${row.method}) ` +
      `returns to the value of revision ${row.older}; if an older file was ingested late, its knowledge time is wrong`,
  }));
}

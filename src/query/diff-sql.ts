import { quotedString } from '../db/duckdb.ts';
import type { SnapshotFile } from '../store/manifest.ts';
import { rangeOf } from '../store/partitions.ts';
import { publicCotWindowSql } from './cot.ts';

/**
 * The SQL of a snapshot diff (changes.ts): the fact files compared a group of key ranges at a
 * time, and the query that classifies each period of the newer side as new, revised or backfilled.
 */

/** The fact tables a diff compares. */
export const FACT_TABLES = ['observations', 'cot_reports'] as const;
export type FactTableName = (typeof FACT_TABLES)[number];

/** A fact file of one side of a diff: where it is read, and its manifest entry (rows, key range). */
export interface DiffFile {
  path: string;
  file: SnapshotFile;
}

/**
 * Records compared in one query at most (a few partitions): the diff runs range by range, so its
 * memory stays bounded whatever the size of the store (a first publish of 100M records compares
 * all of them). A file without a key range (written before partitions) puts all in one query.
 */
export const DIFF_GROUP_ROWS = 1_000_000;

export function diffGroups(groupRows: number, entries: readonly DiffFile[]): DiffFile[][] {
  if (entries.some((entry) => rangeOf(entry.file) === null)) return entries.length > 0 ? [[...entries]] : [];
  const groups: DiffFile[][] = [];
  let rows = Infinity;
  for (const entry of entries) {
    if (rows + entry.file.rows > groupRows) {
      groups.push([]);
      rows = 0;
    }
    groups.at(-1)!.push(entry);
    rows += entry.file.rows;
  }
  return groups;
}

/** Whether two fact files may hold a common series (unknown ranges: yes). */
export function mayOverlap(a: SnapshotFile, b: SnapshotFile): boolean {
  const [x, y] = [rangeOf(a), rangeOf(b)];
  if (x === null || y === null) return true;
  if (x.source !== y.source) return false;
  const below = (lower: string | null, upper: string | null) =>
    lower === null || upper === null || compareKeys(lower, upper) < 0;
  return below(x.lower, y.upper) && below(y.lower, x.upper);
}

/** Series keys in DuckDB's VARCHAR order (bytes; keys are ASCII). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The query of runDiff over one group of files: `select` over `classified` (the periods of `now`
 * that may differ, with their kind and values in force on both sides).
 */
export function classifiedSql(
  name: FactTableName,
  now: string,
  before: string,
  newBatches: readonly string[],
  prefix: boolean,
  select: string,
): string {
  const cot = name === 'cot_reports';
  // Keys only `before` has are never reported (a replaced store may drop series): `now`'s keys only.
  const candidates = prefix
    ? `SELECT DISTINCT series_key, period FROM ${now}
        WHERE batch_id IN (${newBatches.map(quotedString).join(', ')})`
    : `SELECT DISTINCT series_key, period FROM ${now}`;
  const servedType = cot
    ? `any_value(CASE WHEN report_type = 'cit' THEN 'cit'
                      WHEN scope = 'combined' THEN report_type || '_combined' ELSE report_type END)`
    : 'NULL::VARCHAR';
  const market = cot ? 'any_value(market_code)' : 'NULL::VARCHAR';
  // What a revision is compared on (tables.ts fingerprint): the value, or the report's content hash.
  const fingerprint = cot ? 'content_hash' : 'value';
  const latestValue = cot ? 'NULL::DOUBLE' : 'arg_max(value, revision_number)';
  const chains = (relation: string) =>
    `SELECT series_key, period, arg_max({'v': ${fingerprint}}, revision_number) AS latest, count(*) AS records,
            bit_xor(hash(id)) AS ids, ${market} AS market_code, ${servedType} AS report_type,
            ${latestValue} AS latest_value, arg_max(observed_at, revision_number) AS latest_at
       FROM ${relation} SEMI JOIN candidates USING (series_key, period)
      GROUP BY series_key, period`;
  // A COT report date outside the public window of `current` is for cot:history alone.
  const windowJoin = cot
    ? `LEFT JOIN (${publicCotWindowSql(now)}) w ON w.series_key = n.series_key AND w.period = n.period`
    : '';
  return `WITH candidates AS (${candidates}),
              now_chains AS (${chains(now)}),
              before_chains AS (${chains(before)}),
              classified AS (
                SELECT n.series_key, n.period, n.market_code, n.report_type,
                       ${cot ? 'w.series_key IS NOT NULL' : 'true'} AS in_window,
                       n.latest_value, n.latest_at, b.latest_value AS old_value, b.latest_at AS old_at,
                       CASE WHEN b.series_key IS NULL THEN 'new'
                            WHEN b.latest IS DISTINCT FROM n.latest THEN 'revised'
                            WHEN b.records <> n.records OR b.ids <> n.ids THEN 'backfilled' END AS kind
                  FROM now_chains n LEFT JOIN before_chains b USING (series_key, period) ${windowJoin})
         ${select}`;
}

import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { execute, openDuckDb, quotedString, readRows } from '../db/duckdb.ts';
import { BATCH_ID_PATTERN, type StoreLayout, snapshotDir } from '../store/layout.ts';
import type { SnapshotManifest } from '../store/manifest.ts';
import { relationOf } from '../store/partitions.ts';
import { holdSnapshotFiles } from '../store/snapshot-hold.ts';
import { TABLES } from '../store/tables.ts';
import {
  classifiedSql,
  compareKeys,
  DIFF_GROUP_ROWS,
  type DiffFile,
  diffGroups,
  FACT_TABLES,
  type FactTableName,
  mayOverlap,
} from './diff-sql.ts';

/** What changed in one series (observations) or one report series (cot_reports). */
export interface ChangedKey {
  table: 'observations' | 'cot_reports';
  series_key: string;
  /** cot_reports only: the market's CFTC code and the report type it is served under. */
  market_code: string | null;
  report_type: string | null;
  new_observations: number;
  revisions: number;
  backfilled: number;
  period_start: string;
  period_end: string;
  /**
   * The same counts over the public COT window of `current` only (cot.ts publicCotWindowSql),
   * what a caller without cot:history is told; for observations equal to the counts above.
   */
  public: {
    new_observations: number;
    revisions: number;
    backfilled: number;
    period_start: string | null;
    period_end: string | null;
  };
}

/** A row of the diff query as a ChangedKey: its `public_*` columns become `public`. */
function withPublicCounts(table: ChangedKey['table'], row: Record<string, unknown>): ChangedKey {
  const own: Record<string, unknown> = {};
  const publicView: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith('public_')) publicView[name.slice('public_'.length)] = value;
    else own[name] = value;
  }
  return { table, ...own, public: publicView } as unknown as ChangedKey;
}

/** How the keys to compare were found (docs/api/changes.md). */
export type DiffMethod = 'batches' | 'full';

/** The data changes between two snapshots, and the reference tables whose content differs. */
export interface SnapshotChanges {
  method: DiffMethod;
  /** Batches the current snapshot holds that `since` did not (method `batches`). */
  new_batches: number;
  keys: ChangedKey[];
  reference_tables: string[];
}

/**
 * Compares snapshot `since` with `current` (docs/api/changes.md). Batches are append-only and
 * a snapshot lists the batches it was made from, so when `since`'s batches are the first of
 * `current`'s, only the (series, period) keys with a record of a newer batch (`batch_id`) can
 * differ: a key none of whose records came from a newer batch has the same revision chain in
 * both snapshots. Those keys alone are compared, in both snapshots' Parquet: a key `since` lacks
 * is a new observation; one whose value in force (the value, or a COT report's content hash, of
 * its highest revision_number) differs is a revision; one whose value in force is the same but
 * whose chain of records differs (an older vintage arriving late) is backfilled. Otherwise (the store was replaced) every key is compared.
 * Reference tables are compared by the sha256 their manifests give.
 */
export function diffSnapshots(
  layout: StoreLayout,
  since: SnapshotManifest,
  current: SnapshotManifest,
): Promise<SnapshotChanges> {
  // Snapshots are immutable: the diff of a pair never changes. Concurrent and repeated requests
  // (public and keyed views, JSON and CSV) share one computation.
  const key = `${layout.snapshotsDir}\u0000${since.id}\u0000${current.id}`;
  const cached = DIFFS.get(key);
  if (cached) return cached;
  const computed = computeDiff(layout, since, current);
  DIFFS.set(key, computed);
  computed.catch(() => DIFFS.delete(key));
  while (DIFFS.size > MAX_CACHED_DIFFS) DIFFS.delete(DIFFS.keys().next().value!);
  return computed;
}

/** Diffs computed or being computed, oldest first (a few snapshots are known at a time). */
const DIFFS = new Map<string, Promise<SnapshotChanges>>();
const MAX_CACHED_DIFFS = 32;

async function computeDiff(
  layout: StoreLayout,
  since: SnapshotManifest,
  current: SnapshotManifest,
): Promise<SnapshotChanges> {
  const referenceTables = TABLES.filter((table) => table.kind === 'reference')
    .map((table) => table.name)
    .filter((name) => since.tables[name]?.sha256 !== current.tables[name]?.sha256)
    .sort();
  const keys: ChangedKey[] = [];
  const outcome = await runDiff(layout, since, current, null, false, DIFF_GROUP_ROWS, async (query) => {
    for (const name of FACT_TABLES) {
      const rows = await query(
        name,
        `SELECT series_key, any_value(market_code) AS market_code, any_value(report_type) AS report_type,
                count_if(kind = 'new')::INTEGER AS new_observations,
                count_if(kind = 'revised')::INTEGER AS revisions,
                count_if(kind = 'backfilled')::INTEGER AS backfilled,
                min(period) AS period_start, max(period) AS period_end,
                count_if(kind = 'new' AND in_window)::INTEGER AS public_new_observations,
                count_if(kind = 'revised' AND in_window)::INTEGER AS public_revisions,
                count_if(kind = 'backfilled' AND in_window)::INTEGER AS public_backfilled,
                min(period) FILTER (WHERE in_window) AS public_period_start,
                max(period) FILTER (WHERE in_window) AS public_period_end
           FROM classified WHERE kind IS NOT NULL
          GROUP BY series_key ORDER BY series_key`,
      );
      for (const row of rows) keys.push(withPublicCounts(name, row));
    }
  });
  if (outcome.identical) return { method: 'batches', new_batches: 0, keys: [], reference_tables: [] };
  return {
    method: outcome.method,
    new_batches: outcome.newBatches,
    keys,
    reference_tables: referenceTables,
  };
}

/** Runs a query over the `classified` periods of one fact table (the WITH clause is prepended). */
type ClassifiedQuery = (table: FactTableName, select: string) => Promise<Record<string, unknown>[]>;

/**
 * The one diff of two snapshots that both the change feed and the event log read: opens a DuckDB
 * instance allowed to read the two snapshots' fact files and hands `body` a function that runs a
 * SELECT over `classified` (series_key, period, market_code, report_type, in_window, kind: new,
 * revised or backfilled, and the values in force with their knowledge times). Not called when the
 * snapshots are the same or nothing new was ingested (`identical`, or no new batches). The
 * files of `current` are compared a group of key ranges at a time (diffGroups), each against the
 * files of `since` its ranges overlap, so memory is bounded by the group, not the store.
 */
export async function runDiff(
  layout: StoreLayout,
  since: SnapshotManifest,
  current: SnapshotManifest,
  currentDir: string | null,
  /** Read `since`'s files where they are, without a hold (it cannot be pruned meanwhile, or has none). */
  sinceInPlace: boolean,
  groupRows: number,
  body: (query: ClassifiedQuery) => Promise<void>,
): Promise<{ identical: boolean; method: DiffMethod; newBatches: number }> {
  if (since.id === current.id && since.batches.length === current.batches.length)
    return { identical: true, method: 'batches', newBatches: 0 };
  const prefix =
    since.batches.length <= current.batches.length &&
    since.batches.every((id, index) => current.batches[index] === id);
  const newBatches = prefix ? current.batches.slice(since.batches.length) : [];
  if (newBatches.some((id) => !BATCH_ID_PATTERN.test(id)))
    throw new Error('manifest lists a malformed batch id');
  const method: DiffMethod = prefix ? 'batches' : 'full';
  if (prefix && newBatches.length === 0) return { identical: false, method, newBatches: 0 };
  // Unlike the snapshot in service, `since` may be pruned meanwhile: its files are held (linked)
  // for the diff, so a prune removes their names, not what the diff reads. Throws SnapshotGoneError.
  const held = sinceInPlace
    ? {
        files: (name: string) =>
          (since.tables[name]?.files ?? []).map((file) => join(snapshotDir(layout, since.id), file.file)),
        release: () => {},
      }
    : holdSnapshotFiles(layout, since, FACT_TABLES);
  const dirOfCurrent = currentDir ?? snapshotDir(layout, current.id);
  const entriesOf = (manifest: SnapshotManifest, name: string): DiffFile[] => {
    const files = manifest.tables[name]?.files ?? [];
    const paths = manifest === since ? held.files(name) : files.map((file) => join(dirOfCurrent, file.file));
    return files.map((file, index) => ({ path: paths[index]!, file }));
  };
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  try {
    instance = await openDuckDb({ threads: 2, memoryLimit: '512MB' });
    connection = await instance.connect();
    // As the snapshot views (snapshot-db.ts): this instance reads the two snapshots' fact files only.
    const allowed = FACT_TABLES.flatMap((name) =>
      [...entriesOf(since, name), ...entriesOf(current, name)].map((entry) => entry.path),
    );
    await execute(connection, `SET allowed_paths = [${allowed.map(quotedString).join(', ')}]`);
    await execute(connection, 'SET enable_external_access = false');
    await execute(connection, 'SET lock_configuration = true');
    const open = connection;
    await body(async (name, select) => {
      const table = TABLES.find((t) => t.name === name)!;
      const before = entriesOf(since, name);
      // A file of `current` that `since` holds too (linked by the publish) has no record of a new batch.
      const unchanged = new Set(prefix ? before.map((entry) => entry.file.sha256) : []);
      const rows: Record<string, unknown>[] = [];
      for (const group of diffGroups(
        groupRows,
        entriesOf(current, name).filter((e) => !unchanged.has(e.file.sha256)),
      )) {
        const now = relationOf(
          table,
          group.map((entry) => entry.path),
        );
        const then = relationOf(
          table,
          before
            .filter((entry) => group.some((g) => mayOverlap(g.file, entry.file)))
            .map((entry) => entry.path),
        );
        rows.push(
          ...(await readRows<Record<string, unknown>>(
            open,
            classifiedSql(name, now, then, newBatches, prefix, select),
          )),
        );
      }
      // Groups are key ranges; the selects group by series, which a range never splits.
      return rows.sort((a, b) => compareKeys(a.series_key as string, b.series_key as string));
    });
    return { identical: false, method, newBatches: newBatches.length };
  } finally {
    connection?.closeSync();
    instance?.closeSync();
    held.release();
  }
}

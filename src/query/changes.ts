import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { execute, openDuckDb, quotedString, readRows } from '../db/duckdb.ts';
import { BATCH_ID_PATTERN, SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest, type SnapshotFile, type SnapshotManifest } from '../store/manifest.ts';
import { rangeOf, relationOf } from '../store/partitions.ts';
import { holdSnapshotFiles } from '../store/snapshot-hold.ts';
import { TABLES } from '../store/tables.ts';
import { publicCotWindowSql } from './cot.ts';

/** A snapshot the store still holds. */
export interface KnownSnapshot {
  id: string;
  created_at: string;
}

/**
 * The snapshots still in the store (the ones `since` may name), newest first. A directory whose
 * manifest cannot be read (being pruned) is left out.
 */
export function listKnownSnapshots(layout: StoreLayout): KnownSnapshot[] {
  if (!existsSync(layout.snapshotsDir)) return [];
  const out: KnownSnapshot[] = [];
  for (const name of readdirSync(layout.snapshotsDir)) {
    if (!SNAPSHOT_ID_PATTERN.test(name)) continue;
    try {
      out.push({ id: name, created_at: readManifest(layout, name).created_at });
    } catch {
      // Pruned between the listing and the read.
    }
  }
  return out.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
}

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

const FACT_TABLES = ['observations', 'cot_reports'] as const;

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

/** A series' (or COT report series') new and revised periods, for the event log (src/events). */
export interface ChangedSeriesDetail {
  table: ChangedKey['table'];
  series_key: string;
  market_code: string | null;
  report_type: string | null;
  new_count: number;
  new_first: string | null;
  new_last: string | null;
  /** Whether every new period is in the public COT window of `current` (observations: true). */
  new_in_window: boolean;
  /**
   * Every new period with its value and knowledge time when there are at most DETAIL_ITEMS (what
   * an event lists); null past that (a first publish of a large store: nothing to hold in memory).
   */
  new_values: Array<{ period: string; value: number | null; observed_at: string }> | null;
  revised_count: number;
  revised_first: string | null;
  revised_last: string | null;
  revised_in_window: boolean;
  /** The revised periods, as new_values: old and new value in force and their knowledge times. */
  revised_values: null | Array<{
    period: string;
    old_value: number | null;
    new_value: number | null;
    old_observed_at: string;
    new_observed_at: string;
  }>;
  /** The latest knowledge time among the new and revised records (`YYYY-MM-DDTHH:MM:SSZ`). */
  latest_observed_at: string | null;
}

/** Periods listed one by one per series in ChangedSeriesDetail; beyond it, counts and bounds only. */
export const DETAIL_ITEMS = 24;

/** Options of diffSnapshotDetails. */
export interface DetailOptions {
  /**
   * Where `current`'s files are when it is not in the snapshots directory yet: a publish's staging,
   * under the store lock, so that `since` (its parent) cannot be pruned and is read in place.
   */
  currentDir?: string;
  /** Records compared per query (DIFF_GROUP_ROWS); a test makes it small to span many groups. */
  groupRows?: number;
}

/**
 * The per-series details of the diff of diffSnapshots (the same candidates, chains and
 * classification): for each series with new or revised periods, their counts, bounds, whether
 * they are in the public COT window, and, when there are at most DETAIL_ITEMS, the periods with
 * their values. `since` null: every period of `current` is new (the first snapshot of a store).
 */
export async function diffSnapshotDetails(
  layout: StoreLayout,
  since: SnapshotManifest | null,
  current: SnapshotManifest,
  options: DetailOptions = {},
): Promise<ChangedSeriesDetail[]> {
  const empty: SnapshotManifest = { ...current, id: current.id, batches: [], tables: {}, derived: {} };
  const out: ChangedSeriesDetail[] = [];
  await runDiff(
    layout,
    since ?? empty,
    current,
    options.currentDir ?? null,
    // In a publish (currentDir) the store lock keeps the parent from being pruned: no hold needed.
    since === null || options.currentDir !== undefined,
    options.groupRows ?? DIFF_GROUP_ROWS,
    async (query) => {
      const at = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%SZ')`;
      for (const name of FACT_TABLES) {
        const cot = name === 'cot_reports';
        const valueIn = (side: string) => (cot ? 'NULL::DOUBLE' : `${side}.latest_value`);
        const rows = await query(
          name,
          `SELECT series_key, any_value(market_code) AS market_code, any_value(report_type) AS report_type,
                count_if(kind = 'new')::INTEGER AS new_count,
                min(period) FILTER (WHERE kind = 'new') AS new_first,
                max(period) FILTER (WHERE kind = 'new') AS new_last,
                coalesce(bool_and(in_window) FILTER (WHERE kind = 'new'), true) AS new_in_window,
                CASE WHEN count_if(kind = 'new') <= ${DETAIL_ITEMS} THEN
                coalesce(list({'period': period, 'value': ${valueIn('c')}, 'observed_at': ${at('c.latest_at')}}
                          ORDER BY period) FILTER (WHERE kind = 'new'), []) END AS new_values,
                count_if(kind = 'revised')::INTEGER AS revised_count,
                min(period) FILTER (WHERE kind = 'revised') AS revised_first,
                max(period) FILTER (WHERE kind = 'revised') AS revised_last,
                coalesce(bool_and(in_window) FILTER (WHERE kind = 'revised'), true) AS revised_in_window,
                CASE WHEN count_if(kind = 'revised') <= ${DETAIL_ITEMS} THEN
                coalesce(list({'period': period, 'old_value': ${cot ? 'NULL::DOUBLE' : 'c.old_value'},
                               'new_value': ${valueIn('c')}, 'old_observed_at': ${at('c.old_at')},
                               'new_observed_at': ${at('c.latest_at')}}
                          ORDER BY period) FILTER (WHERE kind = 'revised'), []) END AS revised_values,
                ${at("max(c.latest_at) FILTER (WHERE kind IN ('new', 'revised'))")} AS latest_observed_at
           FROM classified c WHERE kind IN ('new', 'revised')
          GROUP BY series_key ORDER BY series_key`,
        );
        for (const row of rows) out.push({ table: name, ...row } as unknown as ChangedSeriesDetail);
      }
    },
  );
  return out;
}

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
type ClassifiedQuery = (
  table: (typeof FACT_TABLES)[number],
  select: string,
) => Promise<Record<string, unknown>[]>;

/**
 * The one diff of two snapshots that both the change feed and the event log read: opens a DuckDB
 * instance allowed to read the two snapshots' fact files and hands `body` a function that runs a
 * SELECT over `classified` (series_key, period, market_code, report_type, in_window, kind: new,
 * revised or backfilled, and the values in force with their knowledge times). Not called when the
 * snapshots are the same or nothing new was ingested (`identical`, or no new batches). The
 * files of `current` are compared a group of key ranges at a time (diffGroups), each against the
 * files of `since` its ranges overlap, so memory is bounded by the group, not the store.
 */
async function runDiff(
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

/** A fact file of one side of a diff: where it is read, and its manifest entry (rows, key range). */
interface DiffFile {
  path: string;
  file: SnapshotFile;
}

/**
 * Records compared in one query at most (a few partitions): the diff runs range by range, so its
 * memory stays bounded whatever the size of the store (a first publish of 100M records compares
 * all of them). A file without a key range (written before partitions) puts all in one query.
 */
const DIFF_GROUP_ROWS = 1_000_000;

function diffGroups(groupRows: number, entries: readonly DiffFile[]): DiffFile[][] {
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
function mayOverlap(a: SnapshotFile, b: SnapshotFile): boolean {
  const [x, y] = [rangeOf(a), rangeOf(b)];
  if (x === null || y === null) return true;
  if (x.source !== y.source) return false;
  const below = (lower: string | null, upper: string | null) =>
    lower === null || upper === null || compareKeys(lower, upper) < 0;
  return below(x.lower, y.upper) && below(y.lower, x.upper);
}

/** Series keys in DuckDB's VARCHAR order (bytes; keys are ASCII). */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The query of runDiff over one group of files: `select` over `classified` (the periods of `now`
 * that may differ, with their kind and values in force on both sides).
 */
function classifiedSql(
  name: (typeof FACT_TABLES)[number],
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

import type { StoreLayout } from '../store/layout.ts';
import type { SnapshotManifest } from '../store/manifest.ts';
import { type ChangedKey, runDiff } from './changes.ts';
import { DIFF_GROUP_ROWS, FACT_TABLES } from './diff-sql.ts';

// The per-series details of a snapshot diff, for the event log (src/events): the same diff as
// changes.ts's diffSnapshots, grouped by series with the new and revised periods listed.

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

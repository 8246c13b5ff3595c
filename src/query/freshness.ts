import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** A source's catalog entry joined with the newest data the snapshot holds of it. */
export interface SourceFreshnessRow {
  id: string;
  name: string;
  cadence: string;
  stale_after_days: number;
  rights: string;
  sample: boolean;
  series_count: number;
  last_period: string | null;
  last_observed_at: string | null;
}

/**
 * The reference lists of each catalog source that publishes no observations: their freshness is
 * the time the newest of their lists was loaded (the ingest batch its rows come from).
 */
export const REFERENCE_LISTS: Readonly<Record<string, readonly string[]>> = {
  'un-m49': ['regions', 'countries'],
  iso: ['currencies', 'country_currencies'],
  'iana-tz': ['time_zones'],
  'swift-mic': ['venues'],
};

/** Reads, per catalog source, its newest period and knowledge time across observations and COT reports. */
export async function readSourceFreshness(db: SnapshotDb): Promise<SourceFreshnessRow[]> {
  const rows = await db.query<SourceFreshnessRow>(
    `WITH facts AS (
       SELECT r.source, l.series_key, l.period, l.last_observed_at
         FROM series_latest l JOIN series_rights r ON r.key = l.series_key
       UNION ALL
       SELECT r.source, c.series_key, c.period, c.observed_at
         FROM cot_latest c JOIN series_rights r ON r.key = c.series_key)
     SELECT s.id, s.name, s.cadence, s.stale_after_days, s.rights, s.sample,
            count(DISTINCT f.series_key)::INTEGER AS series_count,
            max(f.period) AS last_period,
            ${rfc3339('max(f.last_observed_at)')} AS last_observed_at
       FROM sources s LEFT JOIN facts f ON f.source = s.id
      GROUP BY ALL
      ORDER BY s.id`,
  );
  const loaded = readReferenceLoadTimes(db);
  return rows.map((row) =>
    row.last_observed_at === null && loaded.has(row.id)
      ? { ...row, last_observed_at: loaded.get(row.id) ?? null }
      : row,
  );
}

/**
 * When each reference source's lists were loaded: the newest `loaded_at` the snapshot's manifest
 * records for its tables (the ingest time of the newest batch holding each). A source whose lists
 * the snapshot lacks, or a snapshot published before the field was kept, is absent.
 */
function readReferenceLoadTimes(db: SnapshotDb): Map<string, string> {
  const times = new Map<string, string>();
  for (const [source, lists] of Object.entries(REFERENCE_LISTS)) {
    const loadedAt = lists
      .map((list) => db.manifest.tables[list]?.loaded_at)
      .filter((time): time is string => typeof time === 'string')
      .sort()
      .at(-1);
    if (loadedAt) times.set(source, loadedAt);
  }
  return times;
}

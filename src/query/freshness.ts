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

/** Reads, per catalog source, its newest period and knowledge time across observations and COT reports. */
export async function readSourceFreshness(db: SnapshotDb): Promise<SourceFreshnessRow[]> {
  return db.query<SourceFreshnessRow>(
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
}

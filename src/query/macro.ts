import type { SeriesIdentity } from '../model/reference-records.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** A tracked macro series with its latest value (nulls if the snapshot has none yet). */
export interface MacroLatestRow extends SeriesIdentity {
  seasonal_adjustment: string | null;
  country: string | null;
  period: string | null;
  value: number | null;
  published_at: string | null;
  published_at_method: string | null;
  revision_number: number | null;
  first_period: string | null;
  periods: number | null;
}

/** Reads every catalog series tracked on /macro whose source is redistributable, with its latest value. */
export async function readMacroLatest(db: SnapshotDb): Promise<MacroLatestRow[]> {
  return db.query<MacroLatestRow>(
    `SELECT s.key, s.slug, s.name, s.source, s.frequency, s.unit, s.seasonal_adjustment, s.country,
            l.period, l.value, ${rfc3339('l.observed_at')} AS published_at,
            l.observed_at_method AS published_at_method, l.revision_number,
            l.first_period, l.periods::INTEGER AS periods
       FROM series s
       JOIN series_rights r ON r.key = s.key AND r.redistributable
       LEFT JOIN series_latest l ON l.series_key = s.key
      WHERE s.macro
      ORDER BY s.slug`,
  );
}

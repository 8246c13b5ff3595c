/**
 * Every revision record of one series with its knowledge time, for the ALFRED real-time views
 * (src/api/v1/vintages.ts) and the vintage dates of endpoint 27: a small read (a monthly series
 * since 1939 is a few thousand records), computed on in plain code.
 */
import { resolvePeriodRange } from '../model/period-range.ts';
import { bindPeriodRange, periodRangeSql } from './history.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** One stored revision of one period. */
export interface VintageRecord {
  period: string;
  revision_number: number;
  value: number;
  observed_at: string;
}

const RECORDS = (
  relation: string,
) => `SELECT period, revision_number, value, ${rfc3339('observed_at')} AS observed_at
       FROM ${relation} AS observations
      WHERE series_key = $series AND ${periodRangeSql('period')}
      ORDER BY period, revision_number`;

/** Every revision of the series' periods within from/to (null: open), in (period, revision) order. */
export async function readVintageRecords(
  db: SnapshotDb,
  seriesKey: string,
  from: string | null,
  to: string | null,
): Promise<VintageRecord[]> {
  return db.query<VintageRecord>(RECORDS(db.factRelation('observations', seriesKey)), {
    series: seriesKey,
    ...bindPeriodRange(resolvePeriodRange(from, to)),
  });
}

/** The catalogued series with this slug, any source: its key, or null. */
export async function readCatalogKey(db: SnapshotDb, slug: string): Promise<string | null> {
  const [row] = await db.query<{ key: string }>('SELECT key FROM series WHERE slug = $slug', { slug });
  return row?.key ?? null;
}

import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** The latest ECB reference rate of one currency. */
export interface EcbRateRow {
  currency: string;
  currency_name: string | null;
  rate: number;
  date: string;
  observed_at: string;
  observed_at_method: string | null;
  revision_number: number;
  series_key: string;
}

/**
 * Reads the rates of the latest ECB reference date (currencies the ECB no longer quotes are
 * left out), optionally for one currency (empty string: all).
 */
export async function readLatestEcbRates(db: SnapshotDb, currency: string): Promise<EcbRateRow[]> {
  return db.query<EcbRateRow>(
    `WITH ecb AS (
       SELECT l.* FROM series_latest l JOIN series_rights r ON r.key = l.series_key
        WHERE r.source = 'ecb' AND r.redistributable AND l.series_key LIKE 'ecb.%')
     SELECT split_part(e.series_key, '.', 2) AS currency, c.name AS currency_name, e.value AS rate,
            e.period AS date, ${rfc3339('e.observed_at')} AS observed_at,
            e.observed_at_method, e.revision_number, e.series_key
       FROM ecb e LEFT JOIN currencies c ON c.code = split_part(e.series_key, '.', 2)
      WHERE e.period = (SELECT max(period) FROM ecb)
        AND ($currency = '' OR split_part(e.series_key, '.', 2) = $currency)
      ORDER BY currency`,
    { currency },
  );
}

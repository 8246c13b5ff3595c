import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** The ECB reference rate of one currency on one reference date. */
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

/** The redistributable ECB series (rights from the catalog, as every public payload). */
const ECB_SERIES = `SELECT r.key FROM series_rights r
   WHERE r.source = 'ecb' AND r.redistributable AND r.key LIKE 'ecb.%'`;

const RATE_COLUMNS = `split_part(e.series_key, '.', 2) AS currency, c.name AS currency_name, e.value AS rate,
            e.period AS date, ${rfc3339('e.observed_at')} AS observed_at,
            e.observed_at_method, e.revision_number, e.series_key`;

/**
 * Reads the rates of the latest ECB reference date (currencies the ECB no longer quotes are
 * left out), optionally for one currency (empty string: all).
 */
export async function readLatestEcbRates(db: SnapshotDb, currency: string): Promise<EcbRateRow[]> {
  return db.query<EcbRateRow>(
    `WITH ecb AS (
       SELECT l.* FROM series_latest l WHERE l.series_key IN (${ECB_SERIES}))
     SELECT ${RATE_COLUMNS}
       FROM ecb e LEFT JOIN currencies c ON c.code = split_part(e.series_key, '.', 2)
      WHERE e.period = (SELECT max(period) FROM ecb)
        AND ($currency = '' OR split_part(e.series_key, '.', 2) = $currency)
      ORDER BY currency`,
    { currency },
  );
}

/** The first and the latest ECB reference date of the snapshot (null: no ECB rates). */
export async function readEcbDateRange(
  db: SnapshotDb,
): Promise<{ first: string | null; last: string | null }> {
  const [row] = await db.query<{ first: string | null; last: string | null }>(
    `SELECT min(first_period) AS first, max(period) AS last
       FROM series_latest WHERE series_key IN (${ECB_SERIES})`,
  );
  return { first: row?.first ?? null, last: row?.last ?? null };
}

/**
 * The last ECB reference date at or before `day` (YYYY-MM-DD): the newest date on which any
 * redistributable ECB series has a rate, or null when the snapshot has none that early. The
 * data's own dates are the ECB's TARGET business days, so no calendar is consulted.
 */
export async function readEcbReferenceDate(db: SnapshotDb, day: string): Promise<string | null> {
  const [row] = await db.query<{ date: string | null }>(
    `SELECT max(period) AS date FROM observations
      WHERE series_key IN (${ECB_SERIES}) AND period <= $day`,
    { day },
  );
  return row?.date ?? null;
}

/**
 * Reads the rates of one ECB reference date (the revision in force in the snapshot, i.e. the
 * highest, of each currency), every currency quoted that day, by currency.
 */
export async function readEcbRatesOn(db: SnapshotDb, date: string): Promise<EcbRateRow[]> {
  return db.query<EcbRateRow>(
    `WITH ecb AS (
       SELECT * FROM observations
        WHERE series_key IN (${ECB_SERIES}) AND period = $date
      QUALIFY row_number() OVER (PARTITION BY series_key ORDER BY revision_number DESC) = 1)
     SELECT ${RATE_COLUMNS}
       FROM ecb e LEFT JOIN currencies c ON c.code = split_part(e.series_key, '.', 2)
      ORDER BY currency`,
    { date },
  );
}

/** The ISO 4217 name of a currency, or null (EUR as a quote of a cross rate). */
export async function readCurrencyName(db: SnapshotDb, code: string): Promise<string | null> {
  const [row] = await db.query<{ name: string | null }>('SELECT name FROM currencies WHERE code = $code', {
    code,
  });
  return row?.name ?? null;
}

/**
 * Reads the rates of every ECB reference date from `from` to `to` (YYYY-MM-DD, both included),
 * the revision in force of each, by date then currency; `codes` keeps those currencies only
 * (comma-separated upper-case codes; empty: all).
 */
export async function readEcbRatesBetween(
  db: SnapshotDb,
  from: string,
  to: string,
  codes: string,
): Promise<EcbRateRow[]> {
  return db.query<EcbRateRow>(
    `WITH ecb AS (
       SELECT * FROM observations
        WHERE series_key IN (${ECB_SERIES}) AND period BETWEEN $from AND $to
          AND ($codes = '' OR list_contains(string_split($codes, ','), split_part(series_key, '.', 2)))
      QUALIFY row_number() OVER (PARTITION BY series_key, period ORDER BY revision_number DESC) = 1)
     SELECT ${RATE_COLUMNS}
       FROM ecb e LEFT JOIN currencies c ON c.code = split_part(e.series_key, '.', 2)
      ORDER BY date, currency`,
    { from, to, codes },
  );
}

/**
 * How many rates and reference dates readEcbRatesBetween would read for the same arguments
 * (rates counted per currency and date), without reading them.
 */
export async function countEcbRatesBetween(
  db: SnapshotDb,
  from: string,
  to: string,
  codes: string,
): Promise<{ rates: number; dates: number }> {
  const [row] = await db.query<{ rates: number; dates: number }>(
    `SELECT count(DISTINCT (series_key, period))::INTEGER AS rates, count(DISTINCT period)::INTEGER AS dates
       FROM observations
      WHERE series_key IN (${ECB_SERIES}) AND period BETWEEN $from AND $to
        AND ($codes = '' OR list_contains(string_split($codes, ','), split_part(series_key, '.', 2)))`,
    { from, to, codes },
  );
  return { rates: row?.rates ?? 0, dates: row?.dates ?? 0 };
}

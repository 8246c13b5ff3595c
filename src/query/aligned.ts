import type { CotPosition } from '../model/records.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/**
 * The reads of /api/v1/observations/aligned (docs/api/aligned.md) that the transforms do not
 * already have: the COT reports in force at as_of, what the snapshot knows of a COT series key,
 * and for the point-in-time panel (as_of=row) every revision of a series in one query, whatever
 * the number of rows. Observation series at one as_of are read with readValuesInForceAsOf
 * (query/transforms.ts), the same as_of selection as the transforms. Bound parameters only; ''
 * stands for "no as_of".
 */

/** A COT series key known to the snapshot, with the terms of its source. */
export interface CotSeriesInfo {
  key: string;
  market_name: string | null;
  contract_units: string | null;
  source: string | null;
  licence: string | null;
  attribution: string | null;
}

/** One COT report in force at as_of: its date, open interest and positions. */
export interface CotInForceRow {
  period: string;
  open_interest: number | null;
  positions: CotPosition[] | null;
  observed_at: string;
}

/** Reads a COT series key of the snapshot (a key of cot_latest), or null. */
export async function readCotSeriesInfo(db: SnapshotDb, key: string): Promise<CotSeriesInfo | null> {
  const [row] = await db.query<CotSeriesInfo>(
    `SELECT c.series_key AS key, c.market_name, c.contract_units, r.source, src.licence, src.attribution
       FROM cot_latest c
       JOIN series_rights r ON r.key = c.series_key
       LEFT JOIN sources src ON src.id = r.source
      WHERE c.series_key = $key`,
    { key },
  );
  return row ?? null;
}

/**
 * Per report date the highest revision observed at or before as_of (every revision without
 * as_of), oldest report first; the positions as JSON text, parsed here.
 */
export async function readCotInForceAsOf(
  db: SnapshotDb,
  seriesKey: string,
  asOf: string | null,
): Promise<CotInForceRow[]> {
  const relation = db.factRelation('cot_reports', seriesKey);
  const rows = await db.query<{
    period: string;
    open_interest: number | null;
    positions: string | null;
    observed_at: string;
  }>(
    `SELECT period, open_interest::DOUBLE AS open_interest, to_json(positions)::VARCHAR AS positions,
            ${rfc3339('observed_at')} AS observed_at
       FROM ${relation} AS cot_reports
      WHERE series_key = $series
        AND ($as_of = '' OR observed_at <= TRY_CAST($as_of AS TIMESTAMP))
    QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1
      ORDER BY period`,
    { series: seriesKey, as_of: asOf ?? '' },
  );
  return rows.map((row) => ({
    period: row.period,
    open_interest: row.open_interest === null ? null : Number(row.open_interest),
    positions: row.positions === null ? null : (JSON.parse(row.positions) as CotPosition[]),
    observed_at: row.observed_at,
  }));
}

/** One stored revision of a period, its knowledge time in epoch microseconds (as as_of compares it). */
export interface StoredRevision<T> {
  period: string;
  revision_number: number;
  observed_us: number;
  fields: T;
}

/** Every revision of an observation series, by period then revision number. */
export async function readObservationRevisions(
  db: SnapshotDb,
  seriesKey: string,
): Promise<Array<StoredRevision<{ value: number | null }>>> {
  const rows = await db.query<{
    period: string;
    revision_number: number;
    observed_us: bigint | number;
    value: number | null;
  }>(
    `SELECT period, revision_number, epoch_us(observed_at) AS observed_us, value
       FROM ${db.factRelation('observations', seriesKey)} AS observations
      WHERE series_key = $series
      ORDER BY period, revision_number`,
    { series: seriesKey },
  );
  return rows.map((row) => storedRevision(row, { value: row.value === null ? null : Number(row.value) }));
}

/** Every revision of a COT series' reports, by report date then revision number. */
export async function readCotRevisions(
  db: SnapshotDb,
  seriesKey: string,
): Promise<Array<StoredRevision<{ open_interest: number | null; positions: CotPosition[] | null }>>> {
  const rows = await db.query<{
    period: string;
    revision_number: number;
    observed_us: bigint | number;
    open_interest: number | null;
    positions: string | null;
  }>(
    `SELECT period, revision_number, epoch_us(observed_at) AS observed_us,
            open_interest::DOUBLE AS open_interest, to_json(positions)::VARCHAR AS positions
       FROM ${db.factRelation('cot_reports', seriesKey)} AS cot_reports
      WHERE series_key = $series
      ORDER BY period, revision_number`,
    { series: seriesKey },
  );
  return rows.map((row) =>
    storedRevision(row, {
      open_interest: row.open_interest === null ? null : Number(row.open_interest),
      positions: row.positions === null ? null : (JSON.parse(row.positions) as CotPosition[]),
    }),
  );
}

/** A revision row as read (DuckDB may give its integers as bigint) with the fields it carries. */
function storedRevision<T>(
  row: { period: string; revision_number: number; observed_us: bigint | number },
  fields: T,
): StoredRevision<T> {
  return {
    period: row.period,
    revision_number: Number(row.revision_number),
    observed_us: Number(row.observed_us),
    fields,
  };
}

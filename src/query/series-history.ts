import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** A catalogued series of a redistributable source that holds data: one public history file. */
export interface PublicHistorySeries {
  key: string;
  slug: string;
  name: string;
  unit: string;
  frequency: string;
  source: string;
  seasonal_adjustment: string | null;
  licence: string;
  licence_url: string | null;
  attribution: string;
  rights: string;
}

/** One period of a public history: the value in force in the snapshot (its latest revision). */
export interface ValueInForceRow {
  period: string;
  value: number;
  revision_number: number;
  observed_at: string;
}

/**
 * Only a catalogued series whose source is redistributable (series_rights, from the source's
 * rights class) and which has at least one value (series_latest) has a public history. Licensed
 * or proprietary sources, and series without a source in the catalog, never qualify.
 */
const PUBLIC_HISTORY_SERIES = `SELECT s.key, s.slug, s.name, s.unit, s.frequency, s.source, s.seasonal_adjustment,
            src.licence, src.licence_url, src.attribution, src.rights
       FROM series s
       JOIN series_rights r ON r.key = s.key AND r.redistributable
       JOIN sources src ON src.id = r.source
       JOIN series_latest l ON l.series_key = s.key`;

/** Reads the series with a public history by its slug, or null (unknown, not redistributable or without data). */
export async function readPublicHistorySeries(
  db: SnapshotDb,
  slug: string,
): Promise<PublicHistorySeries | null> {
  const [row] = await db.query<PublicHistorySeries>(`${PUBLIC_HISTORY_SERIES} WHERE s.slug = $slug`, {
    slug,
  });
  return row ?? null;
}

/** Lists every series with a public history, by slug: the files the static build writes. */
export async function listPublicHistorySeries(db: SnapshotDb): Promise<PublicHistorySeries[]> {
  return db.query<PublicHistorySeries>(`${PUBLIC_HISTORY_SERIES} ORDER BY s.slug`);
}

/**
 * The value in force of every period of one series in the snapshot: per period the revision
 * with the highest revision number, oldest period first. Built as one JSON array by DuckDB (a
 * long daily series is thousands of rows); a NaN or infinite value, which has no JSON form,
 * falls back to reading the rows as values.
 */
export async function readValuesInForce(db: SnapshotDb, seriesKey: string): Promise<ValueInForceRow[]> {
  const relation = db.factRelation('observations', seriesKey);
  const rows = `SELECT period, value, revision_number, ${rfc3339('observed_at')} AS observed_at
       FROM ${relation} AS observations
      WHERE series_key = $series
    QUALIFY row_number() OVER (PARTITION BY period ORDER BY revision_number DESC) = 1`;
  const [page] = await db.query<{ rows: string | null }>(
    `SELECT to_json(list({'period': period, 'value': value, 'revision_number': revision_number,
                          'observed_at': observed_at} ORDER BY period))::VARCHAR AS rows
       FROM (${rows})`,
    { series: seriesKey },
  );
  try {
    return page?.rows ? (JSON.parse(page.rows) as ValueInForceRow[]) : [];
  } catch {
    return db.query<ValueInForceRow>(`${rows} ORDER BY period`, { series: seriesKey });
  }
}

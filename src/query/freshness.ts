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

/**
 * Distributors whose data is filed under its owner's series (catalog.yaml: FRED's ALFRED vintages
 * of PAYEMS are stored as bls.CES0000000001), and the facts they delivered: known by the knowledge
 * method only their ingest gives (`vintage`, src/ingest/vintage-time.ts). Their status is that of
 * those facts, not "no data".
 */
export const DISTRIBUTED_FACTS: Readonly<Record<string, string>> = {
  fred: "o.observed_at_method = 'vintage'",
};

type Delivered = Pick<SourceFreshnessRow, 'series_count' | 'last_period' | 'last_observed_at'>;

/** A snapshot never changes: what each distributor delivered is read once per snapshot. */
const DELIVERED = new WeakMap<SnapshotDb, Promise<Map<string, Delivered>>>();

/** Per distributor, the served series it delivered facts of, their newest period and knowledge time. */
function readDelivered(db: SnapshotDb): Promise<Map<string, Delivered>> {
  let delivered = DELIVERED.get(db);
  if (delivered === undefined) {
    delivered = (async () => {
      const out = new Map<string, Delivered>();
      for (const [source, facts] of Object.entries(DISTRIBUTED_FACTS)) {
        const [row] = await db.query<Delivered>(
          `SELECT count(DISTINCT o.series_key)::INTEGER AS series_count, max(o.period) AS last_period,
                  ${rfc3339('max(o.observed_at)')} AS last_observed_at
             FROM observations o JOIN series_rights r ON r.key = o.series_key
            WHERE ${facts}`,
        );
        if (row && row.series_count > 0) out.set(source, row);
      }
      return out;
    })();
    delivered.catch(() => DELIVERED.delete(db));
    DELIVERED.set(db, delivered);
  }
  return delivered;
}

/**
 * Reads, per catalog source, its newest period and knowledge time across observations and COT
 * reports; a distributor's (DISTRIBUTED_FACTS) are those of the facts it delivered.
 */
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
  const delivered = await readDelivered(db);
  return rows.map((row) => {
    if (row.last_observed_at === null && loaded.has(row.id))
      return { ...row, last_observed_at: loaded.get(row.id) ?? null };
    const via = delivered.get(row.id);
    return via && row.last_observed_at === null ? { ...row, ...via } : row;
  });
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

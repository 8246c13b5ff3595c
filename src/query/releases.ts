import { publicCotWindowSql } from './cot.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** The facts one knowledge time of one source carried (BLS: of one series; see readPastReleases). */
export interface PastReleaseGroup {
  source: string;
  /** RFC 3339 UTC. */
  observed_at: string;
  observed_at_method: string;
  /** The series key for BLS (a release is named per series program), else ''. */
  group_key: string;
  value_count: number;
  first_releases: number;
  series_count: number;
  /** The first 50 series keys carried, in key order. */
  series: string[];
  first_period: string;
  last_period: string;
}

/** What readPastReleases selects. */
export interface PastReleaseFilter {
  /** Sources to read, comma-separated (`bls,cftc,ecb`). */
  sources: string;
  /** Series keys to keep, comma-separated; '' keeps every series. */
  seriesKeys: string;
  /** Inclusive bounds of the knowledge time, `YYYY-MM-DD HH:MM:SS` UTC. */
  from: string;
  to: string;
}

/**
 * Reads the past releases the snapshot holds: the observations and COT reports (of the public
 * window: the release calendar is public) of redistributable series grouped by source and knowledge time (observed_at), with the number of
 * values, how many were first releases (revision 1) and the series they belong to. BLS groups
 * are per series so that the caller can name each by its BLS news release.
 */
export async function readPastReleases(
  db: SnapshotDb,
  filter: PastReleaseFilter,
): Promise<PastReleaseGroup[]> {
  return db.query<PastReleaseGroup>(
    `WITH facts AS (
       SELECT r.source, o.series_key, o.period, o.observed_at, o.observed_at_method, o.revision_number
         FROM observations o JOIN series_rights r ON r.key = o.series_key AND r.redistributable
       UNION ALL
       SELECT r.source, c.series_key, c.period, c.observed_at, c.observed_at_method, c.revision_number
         FROM cot_reports c JOIN series_rights r ON r.key = c.series_key AND r.redistributable
         -- The public window of COT reports (cot.ts): an older report's release is not public either.
         JOIN (${publicCotWindowSql('cot_reports')}) w ON w.series_key = c.series_key AND w.period = c.period),
     selected AS (
       SELECT * FROM facts
        WHERE list_contains(string_split($sources, ','), source)
          AND ($keys = '' OR list_contains(string_split($keys, ','), series_key))
          AND observed_at BETWEEN $from::TIMESTAMP AND $to::TIMESTAMP)
     SELECT source, ${rfc3339('observed_at')} AS observed_at, observed_at_method,
            CASE WHEN source = 'bls' THEN series_key ELSE '' END AS group_key,
            count(*)::INTEGER AS value_count,
            count(*) FILTER (WHERE revision_number = 1)::INTEGER AS first_releases,
            count(DISTINCT series_key)::INTEGER AS series_count,
            list_sort(list_distinct(list(series_key)))[1:50] AS series,
            min(period) AS first_period, max(period) AS last_period
       FROM selected
      GROUP BY source, observed_at, observed_at_method, group_key
      ORDER BY observed_at, source, group_key`,
    { sources: filter.sources, keys: filter.seriesKeys, from: filter.from, to: filter.to },
  );
}

/** A catalog series or COT market a release filter can name, with the series keys it stands for. */
export interface ReleaseSubject {
  source: string;
  key: string | null;
  slug: string;
  /** The series keys of the facts (a COT market: one per report type). */
  keys: string[];
}

/**
 * The redistributable catalog series (by key and slug) and the tracked COT markets (by slug, one
 * series key per report type, `cftc.<code>.<report type>`) of the snapshot.
 */
export async function readReleaseSubjects(db: SnapshotDb): Promise<ReleaseSubject[]> {
  return db.query<ReleaseSubject>(
    `SELECT s.source, s.key, s.slug, [s.key] AS keys
       FROM series s JOIN series_rights r ON r.key = s.key AND r.redistributable
     UNION ALL
     SELECT 'cftc' AS source, NULL AS key, m.slug,
            list_transform(m.report_types, t -> 'cftc.' || m.code || '.' || t) AS keys
       FROM markets m
      ORDER BY source, slug`,
  );
}

import { quotedString } from '../db/duckdb.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../model/records.ts';
import type { SeriesIdentity, SourceEntry } from '../model/reference-records.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** The rights classes whose data may be published, as a SQL list literal (constants, not input). */
const REDISTRIBUTABLE = `[${REDISTRIBUTABLE_RIGHTS.map(quotedString).join(', ')}]`;

/** A research note with only the series keys whose source may be redistributed. */
export interface ResearchRow {
  id: string;
  slug: string;
  title: string;
  published_at: string;
  authors: string[];
  tags: string[];
  summary: string;
  series: string[];
  body_markdown: string;
}

/**
 * Reads every research note, newest first. A series key stays in a note's list only if its
 * source (the catalog's, else the key's prefix) is a known redistributable source, in the
 * note's own order.
 */
export async function readResearch(db: SnapshotDb): Promise<ResearchRow[]> {
  return db.query<ResearchRow>(
    `WITH keys AS (
       SELECT id, unnest(series) AS key, generate_subscripts(series, 1) AS position FROM research),
     public_keys AS (
       SELECT k.id, list(k.key ORDER BY k.position) AS series
         FROM keys k
         LEFT JOIN series s ON s.key = k.key
         JOIN sources src ON src.id = coalesce(s.source, split_part(k.key, '.', 1))
        WHERE list_contains(${REDISTRIBUTABLE}, src.rights)
        GROUP BY k.id)
     SELECT r.id, r.slug, r.title, ${rfc3339('r.published_at')} AS published_at, r.authors, r.tags,
            r.summary, coalesce(p.series, []::VARCHAR[]) AS series, r.body_markdown
       FROM research r LEFT JOIN public_keys p ON p.id = r.id
      ORDER BY r.published_at DESC, r.id`,
  );
}

/** A catalog source with its rights classification and how many catalog series it has. */
export interface SourceCatalogRow extends Omit<SourceEntry, 'rights' | 'cadence' | 'stale_after_days'> {
  rights: string;
  redistributable: boolean;
  cadence: string;
  series_count: number;
}

/** Reads every catalog source by id, with its number of catalog series. */
export async function readSourceCatalog(db: SnapshotDb): Promise<SourceCatalogRow[]> {
  return db.query<SourceCatalogRow>(
    `SELECT src.id, src.name, src.publisher, src.url, src.licence, src.licence_url, src.rights,
            coalesce(list_contains(${REDISTRIBUTABLE}, src.rights), false) AS redistributable,
            src.attribution, src.cadence, src.sample,
            (SELECT count(*) FROM series s WHERE s.source = src.id)::INTEGER AS series_count
       FROM sources src
      ORDER BY src.id`,
  );
}

/** A catalog series of a redistributable source with its latest value (nulls without data). */
export interface SeriesCatalogueRow extends SeriesIdentity {
  country: string | null;
  region: string | null;
  currency: string | null;
  sector: string | null;
  seasonal_adjustment: string | null;
  period: string | null;
  value: number | null;
  observed_at: string | null;
  revision_number: number | null;
}

/** Geography filters of the series catalogue; an empty string means "no filter". */
export interface SeriesCatalogueFilters {
  country: string;
  /** A three-digit M49 code. */
  region: string;
  currency: string;
}

/**
 * Reads the catalog series of redistributable sources, by key, with their latest value.
 * `region` matches a series whose own region is that area or lies inside it, or whose country
 * lies inside it at any level; the world (a global area) contains every country.
 */
export async function readSeriesCatalogue(
  db: SnapshotDb,
  filters: SeriesCatalogueFilters,
): Promise<SeriesCatalogueRow[]> {
  return db.query<SeriesCatalogueRow>(
    `WITH RECURSIVE area(code) AS (
       SELECT code FROM regions WHERE code = $region
       UNION SELECT r.code FROM regions r JOIN area a ON r.parent_code = a.code)
     SELECT s.key, s.slug, s.name, s.source, s.frequency, s.unit, s.country,
            coalesce(g.code, s.region) AS region, s.currency, s.sector, s.seasonal_adjustment,
            l.period, l.value, ${rfc3339('l.observed_at')} AS observed_at, l.revision_number
       FROM series s
       JOIN series_rights sr ON sr.key = s.key AND sr.redistributable
       LEFT JOIN regions g ON g.code = s.region OR g.slug = s.region
       LEFT JOIN countries c ON c.iso2 = s.country
       LEFT JOIN series_latest l ON l.series_key = s.key
      WHERE ($country = '' OR s.country = $country)
        AND ($currency = '' OR s.currency = $currency)
        AND ($region = ''
             OR g.code IN (SELECT code FROM area)
             OR c.region_code IN (SELECT code FROM area)
             OR c.sub_region_code IN (SELECT code FROM area)
             OR c.intermediate_region_code IN (SELECT code FROM area)
             OR (c.iso2 IS NOT NULL AND EXISTS (
                   SELECT 1 FROM regions w WHERE w.code = $region AND w.level = 'global')))
      ORDER BY s.key`,
    { ...filters },
  );
}

/** A catalog sector. */
export interface SectorRow {
  id: string;
  name: string;
  description: string;
}

/** One series or tracked market of a sector, with what freshness needs to know of it. */
export interface SectorMemberRow {
  sector: string;
  /** Series key or market slug. */
  id: string;
  /** Newest knowledge time of its data (RFC 3339), or null without data. */
  last_observed_at: string | null;
  /** Its source's allowance before it counts as stale. */
  stale_after_days: number;
}

/** Reads every catalog sector by id. */
export async function readSectors(db: SnapshotDb): Promise<SectorRow[]> {
  return db.query<SectorRow>('SELECT id, name, description FROM sectors ORDER BY id');
}

/** Reads the catalog series of redistributable sources that belong to a sector, with their newest knowledge time. */
export async function readSectorSeries(db: SnapshotDb): Promise<SectorMemberRow[]> {
  return db.query<SectorMemberRow>(
    `SELECT s.sector, s.key AS id, ${rfc3339('l.last_observed_at')} AS last_observed_at, src.stale_after_days
       FROM series s
       JOIN sources src ON src.id = s.source
       JOIN series_rights sr ON sr.key = s.key AND sr.redistributable
       LEFT JOIN series_latest l ON l.series_key = s.key
      WHERE s.sector IS NOT NULL
      ORDER BY s.sector, s.key`,
  );
}

/**
 * Reads the tracked markets (while the CFTC source is redistributable) with the knowledge time
 * of their newest report across the report types they are tracked in.
 */
export async function readSectorMarkets(db: SnapshotDb): Promise<SectorMemberRow[]> {
  return db.query<SectorMemberRow>(
    `SELECT m.sector, m.slug AS id, ${rfc3339('max(c.observed_at)')} AS last_observed_at,
            any_value(src.stale_after_days) AS stale_after_days
       FROM cot_markets m
       JOIN sources src ON src.id = 'cftc' AND list_contains(${REDISTRIBUTABLE}, src.rights)
       LEFT JOIN cot_latest c
         ON list_contains(list_transform(m.report_types, t -> 'cftc.' || m.code || '.' || t), c.series_key)
      WHERE m.sector IS NOT NULL
      GROUP BY m.sector, m.slug
      ORDER BY m.sector, m.slug`,
  );
}

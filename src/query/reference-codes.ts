import type { SnapshotDb } from './snapshot-db.ts';

/** Whether an ISO 3166-1 alpha-2 code is in the snapshot's country list. */
export async function hasCountry(db: SnapshotDb, iso2: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM countries WHERE iso2 = $code', { code: iso2 });
  return rows.length > 0;
}

/**
 * Whether a code is a country of the venue list: an ISO 3166-1 code of the country list, or a
 * code the ISO 10383 MIC list itself uses as a country (`ZZ`: no country, e.g. XOFF).
 */
export async function hasVenueCountry(db: SnapshotDb, code: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM countries WHERE iso2 = $code
     UNION ALL SELECT 1 FROM venues WHERE country = $code LIMIT 1`,
    { code },
  );
  return rows.length > 0;
}

/** Whether an ISO 4217 code is in the snapshot's currency list. */
export async function hasCurrency(db: SnapshotDb, code: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM currencies WHERE code = $code', { code });
  return rows.length > 0;
}

/** Resolves a UN M49 code or kebab-case name to the three-digit code, or null if unknown. */
export async function resolveRegion(db: SnapshotDb, value: string): Promise<string | null> {
  const [row] = await db.query<{ code: string }>(
    'SELECT code FROM regions WHERE code = $value OR slug = $value ORDER BY code LIMIT 1',
    { value },
  );
  return row?.code ?? null;
}

/**
 * Every code of a reference list, for pre-rendering one file per filter value; `venue-countries`
 * is the country list plus the codes only the MIC list uses (`ZZ`).
 */
export async function listReferenceCodes(
  db: SnapshotDb,
  list: 'countries' | 'venue-countries' | 'currencies' | 'regions',
): Promise<string[]> {
  const sql = {
    countries: 'SELECT iso2 AS code FROM countries ORDER BY 1',
    'venue-countries':
      'SELECT iso2 AS code FROM countries UNION SELECT country FROM venues WHERE country IS NOT NULL ORDER BY 1',
    currencies: 'SELECT code FROM currencies ORDER BY 1',
    regions: 'SELECT code FROM regions ORDER BY 1',
  }[list];
  return (await db.query<{ code: string }>(sql)).map((row) => row.code);
}

/** Region slugs and their codes, so both spellings map to one pre-rendered file. */
export async function listRegionAliases(db: SnapshotDb): Promise<Array<{ code: string; slug: string }>> {
  return db.query<{ code: string; slug: string }>('SELECT code, slug FROM regions ORDER BY code');
}

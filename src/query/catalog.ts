import type { SnapshotDb } from './snapshot-db.ts';

/** Licence and attribution of a source, for `meta` of payloads built from its data. */
export interface SourceTerms {
  id: string;
  licence: string;
  licence_url: string | null;
  attribution: string;
  rights: string;
}

/** Reads a source's licence terms, or null if the catalog lacks it. */
export async function readSourceTerms(db: SnapshotDb, id: string): Promise<SourceTerms | null> {
  const [row] = await db.query<SourceTerms>(
    'SELECT id, licence, licence_url, attribution, rights FROM sources WHERE id = $id',
    { id },
  );
  return row ?? null;
}

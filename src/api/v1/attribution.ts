import { readSourceTerms } from '../../query/catalog.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

/** The attribution of each of the sources `ids` the snapshot has terms for, in that order. */
export async function readAttribution(db: SnapshotDb, ids: readonly string[]) {
  const terms = await Promise.all(ids.map((id) => readSourceTerms(db, id)));
  return terms.flatMap((term) =>
    term === null
      ? []
      : [
          {
            source: term.id,
            attribution: term.attribution,
            licence: term.licence,
            licence_url: term.licence_url,
          },
        ],
  );
}

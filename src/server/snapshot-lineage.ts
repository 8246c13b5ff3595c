import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import { snapshotDir } from '../store/layout.ts';
import type { SnapshotManifest } from '../store/manifest.ts';

/**
 * The id suffixes (first 8 hex digits of the input hash) a snapshot of this lineage can have:
 * one per prefix of the manifest's batches and per schema version up to the manifest's. Made
 * once per manifest: with the hash state copied at each batch, thousands of batches cost a few
 * milliseconds.
 */
const suffixesByManifest = new WeakMap<SnapshotManifest, Set<string>>();

/**
 * Whether `snapshotId` is a snapshot of the store `db` belongs to, older or not: `db` itself, one
 * the data directory still holds, or one made from a prefix of `db`'s batches (an ancestor,
 * pruned or not). Monotonic reads answer an older id at once, so a well-formed id of no snapshot
 * (`19700101T000000Z-00000000`) would otherwise pass as old.
 */
export function isSnapshotOfStore(db: SnapshotDb, snapshotId: string): boolean {
  if (snapshotId === db.id) return true;
  if (existsSync(join(snapshotDir(db.layout, snapshotId), 'manifest.json'))) return true;
  return lineageSuffixes(db.manifest).has(snapshotId.slice(-8));
}

/**
 * A snapshot's id is `<created_at>-<sha256 of [schema, batch ids]>` cut to 8 hex digits
 * (src/store/publish.ts), and batches are append-only with sorted ids: an ancestor's batches are
 * a prefix of its descendant's.
 */
function lineageSuffixes(manifest: SnapshotManifest): Set<string> {
  const known = suffixesByManifest.get(manifest);
  if (known) return known;
  const suffixes = new Set<string>();
  const batches = manifest.batches ?? [];
  for (let schema = 1; schema <= (manifest.schema_version ?? 1); schema++) {
    // JSON.stringify([schema, ids]) of each prefix, without building each string.
    const hash = createHash('sha256').update(`[${schema},[`);
    batches.forEach((id, index) => {
      hash.update(`${index > 0 ? ',' : ''}${JSON.stringify(id)}`);
      suffixes.add(hash.copy().update(']]').digest('hex').slice(0, 8));
    });
  }
  suffixesByManifest.set(manifest, suffixes);
  return suffixes;
}

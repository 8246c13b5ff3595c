import { existsSync, readdirSync } from 'node:fs';
import { SNAPSHOT_ID_PATTERN, type StoreLayout } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';

/** A snapshot the store still holds. */
export interface KnownSnapshot {
  id: string;
  created_at: string;
}

/**
 * The snapshots still in the store (the ones `since` may name), newest first. A directory whose
 * manifest cannot be read (being pruned) is left out.
 */
export function listKnownSnapshots(layout: StoreLayout): KnownSnapshot[] {
  if (!existsSync(layout.snapshotsDir)) return [];
  const out: KnownSnapshot[] = [];
  for (const name of readdirSync(layout.snapshotsDir)) {
    if (!SNAPSHOT_ID_PATTERN.test(name)) continue;
    try {
      out.push({ id: name, created_at: readManifest(layout, name).created_at });
    } catch {
      // Pruned between the listing and the read.
    }
  }
  return out.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
}

/** Pruning the snapshots kept in the data directory (publish, and `mmds serve --from`'s pulls). */
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { noticedEventsDir, SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import { readCurrentId, readManifest } from './manifest.ts';

/**
 * Snapshot ids newest first: by the time in the id, and within one second (two publishes in a
 * second share it, and the hash after it says nothing about order) the current snapshot and its
 * ancestors by their parent links first, newest first, then the others by id.
 */
function newestFirst(layout: StoreLayout, ids: readonly string[], current: string | null): string[] {
  const present = new Set(ids);
  const chain: string[] = [];
  for (let id = current; id && present.has(id) && !chain.includes(id); id = readManifest(layout, id).parent)
    chain.push(id);
  const rank = (id: string) => (chain.includes(id) ? chain.indexOf(id) : chain.length);
  const time = (id: string) => id.slice(0, id.indexOf('-'));
  return [...ids].sort((a, b) =>
    time(a) !== time(b) ? (time(a) < time(b) ? 1 : -1) : rank(a) - rank(b) || (a < b ? 1 : a > b ? -1 : 0),
  );
}

/**
 * Removes snapshots beyond the newest `keep`, never the current one or its parent, and any
 * staging debris a crashed publish left behind.
 */
export function pruneSnapshots(layout: StoreLayout, keep: number): string[] {
  if (!existsSync(layout.snapshotsDir)) return [];
  const current = readCurrentId(layout);
  const protectedIds = new Set([current, current ? readManifest(layout, current).parent : null]);
  const entries = readdirSync(layout.snapshotsDir);
  for (const name of entries) {
    if (name.startsWith('.staging-'))
      rmSync(join(layout.snapshotsDir, name), { recursive: true, force: true });
  }
  const ids = newestFirst(
    layout,
    entries.filter((name) => SNAPSHOT_ID_PATTERN.test(name)),
    current,
  );
  const removed = ids.slice(Math.max(keep, 0)).filter((id) => !protectedIds.has(id));
  for (const id of removed) {
    // Renamed out of the snapshot namespace first: a crash mid-delete leaves staging debris
    // (cleared next time), never a half-deleted snapshot that verify would report.
    const doomed = join(layout.snapshotsDir, `.staging-pruned-${id}`);
    renameSync(snapshotDir(layout, id), doomed);
    rmSync(doomed, { recursive: true, force: true });
    // Its events noticed between snapshots leave the log with it (they follow its own events).
    rmSync(join(noticedEventsDir(layout), `${id}.ndjson`), { force: true });
  }
  return removed;
}

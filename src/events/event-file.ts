import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncPath } from '../lib/durable-fs.ts';
import type { SnapshotFile } from '../store/manifest.ts';
import { hashFile } from '../store/write-parquet.ts';
import type { ReleaseEvent } from './event.ts';

/** The file of a snapshot's events, relative to the snapshot directory. */
export const EVENTS_FILE = 'events.ndjson';

/**
 * Writes a snapshot's events into its (staging) directory, one JSON record a line, and syncs the
 * file: the manifest lists it with its sha256, so `mmds verify` and the server's checks cover it,
 * and the rename that publishes the snapshot publishes its events in the same step.
 */
export async function writeEventFile(dir: string, events: readonly ReleaseEvent[]): Promise<SnapshotFile> {
  const file = join(dir, EVENTS_FILE);
  writeFileSync(file, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  fsyncPath(file);
  return { file: EVENTS_FILE, rows: events.length, bytes: statSync(file).size, sha256: await hashFile(file) };
}

/** Reads the events a snapshot's manifest lists (none for a snapshot from before the log). */
export function readEventFile(dir: string, entry: SnapshotFile | undefined): ReleaseEvent[] {
  if (!entry) return [];
  const text = readFileSync(join(dir, entry.file), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReleaseEvent);
}

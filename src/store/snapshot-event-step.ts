/**
 * The event step of a publish: a snapshot's release events come from the diff of it and its
 * parent, which layers above the store compute (events/snapshot-events.ts). Publish is handed the
 * step (PublishOptions.snapshotEvents) and runs it on the staged snapshot, so the events file is
 * listed in the manifest and published by the same rename as the data.
 */
import type { StoreLayout } from './layout.ts';
import type { SnapshotFile, SnapshotManifest } from './manifest.ts';

/** What the event step of a publish is given. */
export interface SnapshotEventInput {
  layout: StoreLayout;
  /** The snapshot being published, and where its files are (the publish's staging directory). */
  manifest: SnapshotManifest;
  dir: string;
  /** Its parent (null: the store's first snapshot, every period is new). */
  parent: SnapshotManifest | null;
}

/** Writes the staged snapshot's events into its directory and returns the file's manifest entry. */
export type SnapshotEventStep = (input: SnapshotEventInput) => Promise<SnapshotFile>;

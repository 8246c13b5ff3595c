import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_ID_PATTERN, type StoreLayout } from './layout.ts';
import type { FileStats } from './write-parquet.ts';

/** Where a fetched file came from: the publisher's URL and when it was retrieved. */
export interface FileOrigin {
  url: string;
  retrieved_at: string;
  /** The member of the downloaded archive, or null for a plain download. */
  member: string | null;
  /** SHA-256 and size of the bytes as downloaded (the archive, for a zip). */
  download_sha256: string;
  download_bytes: number;
}

/** An input file of an ingest, as recorded in its batch. */
export interface InputFile {
  name: string;
  sha256: string | null;
  bytes: number | null;
  /** Set for files `mmds fetch` downloaded. */
  origin?: FileOrigin;
}

/** `batch.json`: what one committed ingest added to the store. */
export interface BatchRecord {
  id: string;
  source: string;
  created_at: string;
  collector_version: string;
  files: InputFile[];
  options: Record<string, string>;
  /** Table name to the Parquet file (relative to the batch directory) and its checksum. */
  tables: Record<string, FileStats & { file: string }>;
}

/** Lists committed batches in commit order (their ids start with a sequence number). */
export function listBatches(layout: StoreLayout): BatchRecord[] {
  if (!existsSync(layout.batchesDir)) return [];
  return readdirSync(layout.batchesDir)
    .filter((name) => BATCH_ID_PATTERN.test(name))
    .sort()
    .map(
      (name) => JSON.parse(readFileSync(join(layout.batchesDir, name, 'batch.json'), 'utf8')) as BatchRecord,
    );
}

/** Paths of every batch file of one table, oldest first. */
export function listTableFiles(
  layout: StoreLayout,
  batches: readonly BatchRecord[],
  table: string,
): string[] {
  return batches.flatMap((batch) => {
    const entry = batch.tables[table];
    return entry ? [join(layout.batchesDir, batch.id, entry.file)] : [];
  });
}

/** The next batch sequence number. */
export function nextBatchSequence(batches: readonly BatchRecord[]): number {
  const last = batches.at(-1);
  return last ? Number(last.id.slice(0, 6)) + 1 : 1;
}

import { BULK_FULL_RIGHTS, bulkFullFileUrl } from '../../contract/schemas/bulk-full.ts';
import type { SnapshotManifest } from '../../store/manifest.ts';
import type { PayloadFunction } from './context.ts';

/** One file of the full store as the listing gives it. */
export interface BulkFullEntry {
  table: string;
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
  source: string | null;
  url: string;
}

/**
 * The files of a snapshot's tables, in manifest order, with their download paths: the store's
 * own immutable Parquet files, licensed sources included (the key holder is trusted for those).
 * Derived lookup tables are left out: they are computed from these and are no data of their own.
 */
export function listBulkFullFiles(manifest: SnapshotManifest): BulkFullEntry[] {
  return Object.entries(manifest.tables).flatMap(([table, entry]) =>
    entry.files.map((file) => ({
      table,
      file: file.file,
      rows: file.rows,
      bytes: file.bytes,
      sha256: file.sha256,
      source: file.source ?? null,
      url: bulkFullFileUrl(manifest.id, file.file),
    })),
  );
}

/** The tables of the full store that hold COT reports: listed and served to cot:history keys only. */
export const COT_HISTORY_TABLES: ReadonlySet<string> = new Set(['cot_reports', 'cot_report_columns']);

/** Whether a key may have a file of the full store: a COT table's files need cot:history too. */
export function mayReadBulkFullFile(entry: { table: string }, cotHistory: boolean): boolean {
  return cotHistory || !COT_HISTORY_TABLES.has(entry.table);
}

/**
 * `GET /api/v1/bulk/full` (bulk:read): the full store of the snapshot in service; the COT
 * reports' files only for a key that also holds cot:history (docs/api/bulk.md).
 */
export const getBulkFull: PayloadFunction = async ({ db, cotHistory = false }) => {
  const data = listBulkFullFiles(db.manifest).filter((entry) => mayReadBulkFullFile(entry, cotHistory));
  return {
    data,
    meta: {
      files: data.length,
      rows: data.reduce((sum, entry) => sum + entry.rows, 0),
      bytes: data.reduce((sum, entry) => sum + entry.bytes, 0),
      rights: BULK_FULL_RIGHTS,
    },
  };
};

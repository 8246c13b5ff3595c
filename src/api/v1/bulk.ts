import { type Payload, type Success, success } from '../../contract/envelope.ts';
import { notFound } from '../../contract/errors.ts';
import type { PayloadFunction } from './context.ts';

/** The path of the public bulk listing; a snapshot's files lie under `<path>/<snapshot>/`. */
export const BULK_PATH = '/api/v1/bulk';

/** `/api/v1/bulk/latest` and `/api/v1/bulk/latest/<file>` redirect to the newest snapshot. */
export const BULK_LATEST = 'latest';

/** Seconds a shared cache may keep the listing and the `latest` redirects (the latest payloads' 300 s). */
export const BULK_LISTING_MAX_AGE = 300;

/** Cache-Control of a bulk file: its path never changes content. */
export const BULK_FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Media type of each bulk format (the .csv.gz is the file itself, never a Content-Encoding). */
export const BULK_MEDIA_TYPES = {
  parquet: 'application/vnd.apache.parquet',
  'csv.gz': 'application/gzip',
} as const;

/** A file name of a bulk snapshot: `<dataset>.parquet` or `<dataset>.csv.gz`. */
export const BULK_FILE_NAME = /^[a-z][a-z_]{0,40}\.(?:parquet|csv\.gz)$/;

/** One bulk file, as the listing gives it. */
export interface BulkFile {
  dataset: string;
  format: keyof typeof BULK_MEDIA_TYPES;
  /** Absolute path on the site: `/api/v1/bulk/<snapshot>/<dataset>.<format>`. */
  path: string;
  bytes: number;
  rows: number;
  /** SHA-256 of the file, lowercase hex; its strong ETag is this, quoted. */
  sha256: string;
  licence: string;
  attribution: string[];
  /** Catalog ids of the sources of the rows (empty for the service's own catalog lists). */
  sources: string[];
  media_type: string;
}

/** The bulk files of one snapshot. */
export interface BulkSnapshot {
  snapshot: string;
  /** When the snapshot was published. */
  created_at: string;
  files: BulkFile[];
}

/** The site path of a bulk file. */
export function bulkFilePath(snapshot: string, file: string): string {
  return `${BULK_PATH}/${snapshot}/${file}`;
}

/** The listing of every snapshot with bulk files, newest first, as the envelope of `/api/v1/bulk`. */
export function renderBulkListing(
  snapshots: readonly BulkSnapshot[],
  servedSnapshot: string,
  generatedAt: string,
): Success {
  const payload: Payload = {
    data: snapshots,
    meta: { latest: snapshots[0]?.snapshot ?? null, rights: BULK_RIGHTS },
  };
  return success(payload, servedSnapshot, generatedAt);
}

/** The envelope of `/api/v1/bulk/<snapshot>`: that snapshot's files. */
export function renderBulkSnapshot(
  snapshot: BulkSnapshot,
  servedSnapshot: string,
  generatedAt: string,
): Success {
  return success(
    { data: snapshot, meta: { count: snapshot.files.length, rights: BULK_RIGHTS } },
    servedSnapshot,
    generatedAt,
  );
}

/** What `meta.rights` of the listings says. */
export const BULK_RIGHTS =
  'only rows of public_domain or open_licence sources; licensed and proprietary data is never in a bulk file';

/**
 * The bulk listings are written by `mmds build` from the files it wrote, and answered from the
 * build by the server (src/server/serve-bulk-download.ts); a snapshot without built bulk files
 * is not found. This is what a render without the build (no dist/) answers.
 */
export const getBulkListing: PayloadFunction = async () => {
  throw notFound('bulk snapshot (the bulk files are written by mmds build)');
};

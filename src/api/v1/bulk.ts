import { type Payload, type Success, success } from '../../contract/envelope.ts';
import { notFound } from '../../contract/errors.ts';
import { PUBLIC_COT_REPORTS } from '../../query/cot.ts';
import type { PayloadFunction } from './context.ts';

/** The path of the public bulk listing; a snapshot's files lie under `<path>/<snapshot>/`. */
export const BULK_PATH = '/api/v1/bulk';

/** `/api/v1/bulk/latest` and `/api/v1/bulk/latest/<file>` redirect to the newest snapshot. */
export const BULK_LATEST = 'latest';

/** Seconds a shared cache may keep the listing and the `latest` redirects (the latest payloads' 300 s). */
export const BULK_LISTING_MAX_AGE = 300;

/** Cache-Control of a bulk file: its path never changes content. */
export const BULK_FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The dataset whose rows are the public COT window (SPEC rule 1): public only while in that window. */
export const BULK_COT_DATASET = 'cot_reports';

/**
 * Cache-Control of a `cot_reports` file: the window moves with every weekly report, after which
 * an earlier snapshot's file is withheld; a shared cache must not keep serving it for a year.
 * Its bytes still never change, so a cache revalidates it by its ETag (304) until then.
 */
export const BULK_COT_FILE_CACHE_CONTROL = `public, max-age=${BULK_LISTING_MAX_AGE}`;

/** The Cache-Control of a bulk file by its path: immutable, but short for the COT window's files. */
export function bulkFileCacheControl(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.startsWith(`${BULK_COT_DATASET}.`) ? BULK_COT_FILE_CACHE_CONTROL : BULK_FILE_CACHE_CONTROL;
}

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

/**
 * A file an earlier snapshot had, no longer public: its COT reports are not all in the public
 * window of the newest snapshot. It is gone from dist/ (so from every static host, bucket and
 * nginx as well); the history it held is keyed (cot:history, endpoint 3).
 */
export interface WithheldBulkFile {
  dataset: string;
  format: keyof typeof BULK_MEDIA_TYPES;
  /** The path it had; now 404 for every caller. */
  path: string;
  /** The snapshot whose public window it left: the newest one when it was withheld. */
  window_of: string;
  reason: string;
  /** The scope that reads the reports it held, and where. */
  scope: 'cot:history';
  history: string;
}

/** The bulk files of one snapshot. */
export interface BulkSnapshot {
  snapshot: string;
  /** When the snapshot was published. */
  created_at: string;
  files: BulkFile[];
  /** Files of this snapshot no longer public (absent in listings built before withholding existed). */
  withheld?: WithheldBulkFile[];
}

/** Where a key with cot:history reads every report of a market (endpoint 3, paged, JSON or CSV). */
export const COT_HISTORY_PATH = '/api/v1/markets/cot/{slug}';

/** A withheld file of `snapshot`: its reports are not all in the public window of `windowOf`. */
export function describeWithheldFile(file: BulkFile, windowOf: string): WithheldBulkFile {
  return {
    dataset: file.dataset,
    format: file.format,
    path: file.path,
    window_of: windowOf,
    reason: `holds COT reports outside the public window (the ${PUBLIC_COT_REPORTS} most recent report dates per market and report type) of snapshot ${windowOf}`,
    scope: 'cot:history',
    history: COT_HISTORY_PATH,
  };
}

/** What `meta.cot_window` of the listings says: which rule the `cot_reports` files follow. */
export function describeCotWindow(newest: string | null) {
  return {
    reports: PUBLIC_COT_REPORTS,
    snapshot: newest,
    rule: `a cot_reports file is listed and public only while every report it holds is in the public window of the newest snapshot (its ${PUBLIC_COT_REPORTS} most recent report dates per market and report type, as ${COT_HISTORY_PATH} without a key): an earlier snapshot's cot_reports files stay only while they are the newest snapshot's own bytes, else they are withheld (listed under withheld, 404) and the full history needs a key with cot:history`,
  };
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
    meta: {
      latest: snapshots[0]?.snapshot ?? null,
      rights: BULK_RIGHTS,
      cot_window: describeCotWindow(snapshots[0]?.snapshot ?? null),
    },
  };
  return success(payload, servedSnapshot, generatedAt);
}

/** The envelope of `/api/v1/bulk/<snapshot>`: that snapshot's files (`newest`: the listing's first). */
export function renderBulkSnapshot(
  snapshot: BulkSnapshot,
  newest: string,
  servedSnapshot: string,
  generatedAt: string,
): Success {
  const meta = { count: snapshot.files.length, rights: BULK_RIGHTS, cot_window: describeCotWindow(newest) };
  return success({ data: snapshot, meta }, servedSnapshot, generatedAt);
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

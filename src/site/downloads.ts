import type { BulkSnapshot } from '../api/v1/bulk.ts';
import { seriesHistoryCsvPath, seriesHistoryPath } from '../api/v1/series-history.ts';
import { listPublicHistorySeries, readPublicHistorySeries } from '../query/series-history.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';

/**
 * The download links of the site's series and market pages, like FRED's: only files anyone may
 * fetch without a key, each of which the static build writes (src/api/v1/static-requests.ts for
 * the per-series and per-market files, src/build/bulk-files.ts for the bulk files).
 */
export interface DownloadLink {
  /** What the reader picks: `CSV`, `JSON`, `Parquet`, `CSV (gzip)`. */
  format: string;
  href: string;
  /** The file's media type, as its `type` attribute (a hint to the browser). */
  mediaType: string;
}

/** The public history files of one series (endpoint 15): its CSV and its JSON. */
export function seriesDownloads(slug: string): DownloadLink[] {
  return [
    { format: 'CSV', href: seriesHistoryCsvPath(slug), mediaType: 'text/csv' },
    { format: 'JSON', href: seriesHistoryPath(slug), mediaType: 'application/json' },
  ];
}

/** The public history files of one series by its slug, or none (licensed, unknown, no data). */
export async function readSeriesDownloads(db: SnapshotDb, slug: string): Promise<DownloadLink[]> {
  return (await readPublicHistorySeries(db, slug)) ? seriesDownloads(slug) : [];
}

/**
 * The public file of one COT market (endpoint 3 without a key): the most recent reports of each
 * report type as JSON. Its CSV and full history need a key, so the bulk file stands in for CSV.
 */
export function marketDownloads(slug: string): DownloadLink[] {
  return [{ format: 'JSON', href: `/api/v1/markets/cot/${slug}`, mediaType: 'application/json' }];
}

/**
 * Per series key, the slug of its public history file: the same list the static build writes
 * those files from, so a page links only to files that exist (a licensed series has none).
 */
export async function readHistorySlugs(db: SnapshotDb): Promise<Map<string, string>> {
  return new Map((await listPublicHistorySeries(db)).map((series) => [series.key, series.slug]));
}

/**
 * The bulk files of one dataset (`observations`, `cot_reports`) in the site's snapshot: Parquet
 * first, then the gzipped CSV. None when the build wrote no bulk files for that snapshot.
 */
export function bulkDownloads(
  bulk: readonly BulkSnapshot[] | undefined,
  snapshotId: string,
  dataset: string,
): DownloadLink[] {
  const files = bulk?.find((s) => s.snapshot === snapshotId)?.files ?? [];
  const format = { parquet: 'Parquet', 'csv.gz': 'CSV (gzip)' } as const;
  return (['parquet', 'csv.gz'] as const).flatMap((kind) => {
    const file = files.find((f) => f.dataset === dataset && f.format === kind);
    return file ? [{ format: format[kind], href: file.path, mediaType: file.media_type }] : [];
  });
}

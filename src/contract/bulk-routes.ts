/**
 * The bulk routes of the route table: endpoint 18 (the keyed full store, every Parquet file of the
 * current snapshot), 16 (the public bulk files of every snapshot) and 17 (those of one snapshot).
 * docs/api/bulk.md is their long form.
 */
import { LATEST_MAX_AGE, type RouteDefinition } from './route-definition.ts';

/** Endpoints 18, 16 and 17, in the order of the route table (/bulk/full before /bulk/{snapshot}). */
export const BULK_ROUTES: readonly RouteDefinition[] = [
  {
    // The keyed full store. Its files, /api/v1/bulk/full/{snapshot}/{file}, are not a route of
    // this table (a file path has several segments and the body is Parquet): served by
    // src/server/serve-bulk-full.ts, described in OpenAPI by src/contract/schemas/bulk-full.ts.
    id: 'bulk-full',
    number: 18,
    path: '/api/v1/bulk/full',
    summary: 'The full store: every Parquet file of the current snapshot (keyed)',
    description:
      "Every Parquet file of the current snapshot's tables, as the store holds it: every revision of every series with its provenance and knowledge time (observed_at), the COT reports (for a key also holding cot:history; without it the cot_reports files are left out and 403) and the reference lists, licensed and proprietary sources included (the key's organisation is trusted to hold the rights to those: the public bulk files at /api/v1/bulk leave them out). Per file its table, path, rows, bytes, sha256, source (fact partitions) and url, /api/v1/bulk/full/{snapshot}/{file}, which streams the file byte for byte (application/vnd.apache.parquet, ETag the quoted sha256, Cache-Control private, max-age=31536000, immutable: the files are immutable). A file of an older snapshot stays downloadable while the store keeps that snapshot (MMDS_KEEP_SNAPSHOTS); a pruned or unknown snapshot is 404, naming the current one.",
    access: { kind: 'scope', scope: 'bulk:read' },
    query: [],
    maxAge: 0,
    prerender: 'none',
  },
  {
    id: 'bulk',
    number: 16,
    path: '/api/v1/bulk',
    summary: 'Public bulk files: whole redistributable datasets as Parquet and gzipped CSV',
    description:
      'Every snapshot with bulk files, newest first, each with its files: per dataset (observations, cot_reports: the public window, the 12 most recent reports per market and report type; and the reference and catalog lists) one Parquet file (zstd) and one gzipped RFC 4180 CSV (header row, RFC 3339 times, the same columns), with bytes, rows, sha256, licence, attribution and media_type. Rows in force only (per series and period its latest revision); only rows of public_domain or open_licence sources: licensed and proprietary data is never in a bulk file (every revision and as_of stay keyed). A file path, /api/v1/bulk/{snapshot}/{dataset}.parquet or .csv.gz, never changes content: Cache-Control immutable (cot_reports: public, max-age=300), strong ETag the quoted sha256. /api/v1/bulk/latest and /api/v1/bulk/latest/{file} redirect (302) to the newest snapshot. Files of earlier snapshots stay while the store keeps the snapshot (MMDS_KEEP_SNAPSHOTS), except their cot_reports files: the public window is that of the newest snapshot (meta.cot_window), so the cot_reports files of an earlier snapshot stay only while they are the same bytes as those of the newest snapshot; once they hold a report the window has left they are withheld (listed under withheld in the entry of their snapshot, 404 with or without a key, removed from the build) and those reports are for a key with cot:history at /api/v1/markets/cot/{slug}. The keyed full store is /api/v1/bulk/full.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'build',
  },
  {
    id: 'bulk-snapshot',
    number: 17,
    path: '/api/v1/bulk/:slug',
    pathParam: 'snapshot',
    summary: 'The public bulk files of one snapshot',
    description:
      'The files of one snapshot as /api/v1/bulk lists them; `snapshot` is a snapshot id (`20261124T084307Z-9da82ee8`). A snapshot without bulk files (unknown, or pruned from the store) is 404. `withheld` lists its files that are no longer public (cot_reports files outside the public window of the newest snapshot, meta.cot_window). `latest` in its place answers 302 (Cache-Control: public, max-age=300) with `Location: /api/v1/bulk/{snapshot}` of the newest snapshot.',
    access: { kind: 'public' },
    query: [],
    maxAge: LATEST_MAX_AGE,
    prerender: 'build',
  },
];

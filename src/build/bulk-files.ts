import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  BULK_COT_DATASET,
  BULK_LATEST,
  BULK_LISTING_MAX_AGE,
  BULK_MEDIA_TYPES,
  BULK_PATH,
  type BulkFile,
  type BulkSnapshot,
  bulkFileCacheControl,
  bulkFilePath,
  describeWithheldFile,
  renderBulkListing,
  renderBulkSnapshot,
} from '../api/v1/bulk.ts';
import { BULK_DATASETS, BULK_FORMATS, exportBulkDatasets } from '../query/bulk-export.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import { publicCacheControl, type StaticRoute } from './build-manifest.ts';
import { linkOrCopy } from './dist-tree.ts';

/** The directory of the bulk files under dist/ (no leading slash). */
export const BULK_DIR = BULK_PATH.slice(1);

const BULK_FILE = /^\/?api\/v1\/bulk\/\d{8}T\d{6}Z-[0-9a-f]{8}\/[a-z][a-z_]*\.(?:parquet|csv\.gz)$/;

/** Whether a dist/ path (with or without its leading slash) is a bulk file: never recompressed. */
export function isBulkFile(file: string): boolean {
  return BULK_FILE.test(file);
}

/** Options of `writeBulkFiles`. */
export interface WriteBulkFilesOptions {
  layout: StoreLayout;
  snapshotId: string;
  /** The new dist/ being built. */
  stagingDir: string;
  /** The dist/ being replaced, and the bulk snapshots its manifest listed (carried over). */
  previousDir: string;
  previous: readonly BulkSnapshot[];
  /**
   * Datasets whose rows equal those of an earlier snapshot whose files the old dist/ holds
   * (src/build/reuse.ts unchangedBulkDatasets): their files are linked, not exported again.
   */
  unchanged?: { snapshot: string; datasets: ReadonlySet<string> };
  memoryLimit?: string;
}

/**
 * Writes the snapshot's bulk files (Parquet and gzipped CSV of every redistributable dataset)
 * under `api/v1/bulk/<snapshot>/`, carries over the bulk directories of earlier snapshots that
 * the old dist/ held and the store still keeps (a download that began before a rebuild is not
 * cut off), and returns every snapshot's listing, newest first. Pruned snapshots' files go.
 */
export async function writeBulkFiles(options: WriteBulkFilesOptions): Promise<BulkSnapshot[]> {
  const dir = join(options.stagingDir, BULK_DIR, options.snapshotId);
  mkdirSync(dir, { recursive: true });
  const files = linkUnchangedDatasets(options, dir);
  const exported = await exportBulkDatasets({
    layout: options.layout,
    snapshotId: options.snapshotId,
    outDir: dir,
    memoryLimit: options.memoryLimit,
    skip: new Set(files.map((file) => file.dataset)),
  });
  for (const dataset of exported) {
    for (const format of BULK_FORMATS) {
      const name = dataset.files[format];
      const { sha256, bytes } = await hashFile(join(dir, name));
      files.push({
        dataset: dataset.dataset,
        format,
        path: bulkFilePath(options.snapshotId, name),
        bytes,
        rows: dataset.rows,
        sha256,
        licence: describeLicence(dataset.sources),
        attribution: dataset.sources.map((source) => source.attribution),
        sources: dataset.sources.map((source) => source.id),
        media_type: BULK_MEDIA_TYPES[format],
      });
    }
  }
  // The order an export of every dataset gives: by dataset, then by format.
  const rank = (file: BulkFile) =>
    BULK_DATASETS.indexOf(file.dataset) * BULK_FORMATS.length + BULK_FORMATS.indexOf(file.format);
  const current: BulkSnapshot = {
    snapshot: options.snapshotId,
    created_at: readManifest(options.layout, options.snapshotId).created_at,
    files: files.sort((a, b) => rank(a) - rank(b)),
    withheld: [],
  };
  const kept = options.previous
    .filter(
      (earlier) =>
        earlier.snapshot !== options.snapshotId &&
        SNAPSHOT_ID_PATTERN.test(earlier.snapshot) &&
        existsSync(join(snapshotDir(options.layout, earlier.snapshot), 'manifest.json')),
    )
    .map((earlier) => withholdOutsideWindow(earlier, current))
    .filter((earlier) => carryOver(options.previousDir, options.stagingDir, earlier));
  // The one built now first (two publishes in one second share the id's time, so the ids alone
  // cannot tell which is newer), then the earlier ones newest first.
  return [current, ...kept.sort((a, b) => (a.snapshot < b.snapshot ? 1 : -1))];
}

/**
 * An earlier snapshot's listing with its `cot_reports` files withheld unless they are the same
 * bytes as the new snapshot's: else they hold a report the public window (SPEC rule 1) of the
 * snapshot now in service has left, which only a key with cot:history may read. Withheld files
 * are not carried into the new dist/, so no static host, bucket or nginx can serve them either.
 */
function withholdOutsideWindow(earlier: BulkSnapshot, current: BulkSnapshot): BulkSnapshot {
  const inWindow = new Set(
    current.files.filter((file) => file.dataset === BULK_COT_DATASET).map((file) => file.sha256),
  );
  const withheld = earlier.files.filter(
    (file) => file.dataset === BULK_COT_DATASET && !inWindow.has(file.sha256),
  );
  return {
    ...earlier,
    files: earlier.files.filter((file) => !withheld.includes(file)),
    withheld: [
      ...(earlier.withheld ?? []),
      ...withheld.map((file) => describeWithheldFile(file, current.snapshot)),
    ],
  };
}

/**
 * One licence text for a file: the single source's licence, or each source's prefixed by its id;
 * the service's own catalog lists have no outside source.
 */
function describeLicence(sources: ReadonlyArray<{ id: string; licence: string }>): string {
  if (sources.length === 0) return "The service's own catalog (data/catalog/catalog.yaml), MIT as the code";
  if (sources.length === 1) return sources[0]!.licence;
  return sources.map((source) => `${source.id}: ${source.licence}`).join('; ');
}

/**
 * Links the files of the unchanged datasets from the earlier snapshot's bulk directory into the
 * new one, described as the earlier listing describes them (rows, sha256, licence) under the new
 * snapshot's path. A dataset whose earlier files are not all there is left to the export.
 */
function linkUnchangedDatasets(options: WriteBulkFilesOptions, dir: string): BulkFile[] {
  const { unchanged } = options;
  const earlier = options.previous.find((listing) => listing.snapshot === unchanged?.snapshot);
  if (!unchanged || !earlier) return [];
  const fromDir = join(options.previousDir, BULK_DIR, earlier.snapshot);
  return [...unchanged.datasets].flatMap((dataset) => {
    const files = earlier.files.filter((file) => file.dataset === dataset);
    const names = files.map((file) => file.path.slice(file.path.lastIndexOf('/') + 1));
    if (files.length !== BULK_FORMATS.length || !names.every((name) => existsSync(join(fromDir, name))))
      return [];
    return files.map((file, i) => {
      linkOrCopy(join(fromDir, names[i]!), join(dir, names[i]!));
      return { ...file, path: bulkFilePath(options.snapshotId, names[i]!) };
    });
  });
}

/** Copies (hard-links where it can) an earlier snapshot's bulk directory into the new dist/; false when it is gone. */
function carryOver(previousDir: string, stagingDir: string, earlier: BulkSnapshot): boolean {
  const from = join(previousDir, BULK_DIR, earlier.snapshot);
  if (!existsSync(from)) return false;
  const names = new Set(readdirSync(from));
  if (!earlier.files.every((file) => names.has(file.path.slice(file.path.lastIndexOf('/') + 1))))
    return false;
  const to = join(stagingDir, BULK_DIR, earlier.snapshot);
  for (const file of earlier.files) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    linkOrCopy(join(from, name), join(to, name));
  }
  return true;
}

async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * Writes the listings (`api/v1/bulk/index.json`, `api/v1/bulk/<snapshot>/index.json`) and
 * returns their static routes (route ids `bulk` and `bulk-snapshot`).
 */
export function writeBulkListings(
  write: (file: string, body: string) => void,
  snapshots: readonly BulkSnapshot[],
  servedSnapshot: string,
  generatedAt: string,
): StaticRoute[] {
  const cacheControl = publicCacheControl(BULK_LISTING_MAX_AGE);
  const listing = `${BULK_DIR}/index.json`;
  write(listing, JSON.stringify(renderBulkListing(snapshots, servedSnapshot, generatedAt)));
  const routes: StaticRoute[] = [
    { path: BULK_PATH, query: {}, file: listing, status: 200, cache_control: cacheControl, route_id: 'bulk' },
  ];
  for (const snapshot of snapshots) {
    const file = `${BULK_DIR}/${snapshot.snapshot}/index.json`;
    const newest = snapshots[0]!.snapshot;
    write(file, JSON.stringify(renderBulkSnapshot(snapshot, newest, servedSnapshot, generatedAt)));
    routes.push({
      path: `${BULK_PATH}/${snapshot.snapshot}`,
      query: {},
      file,
      status: 200,
      cache_control: cacheControl,
      route_id: 'bulk-snapshot',
    });
  }
  return routes;
}

/** `_headers` rules of the bulk files: immutable (COT: short), their own media type (after the /api/* default). */
export function renderBulkHeaderRules(snapshots: readonly BulkSnapshot[]): string {
  const lines: string[] = [];
  for (const snapshot of snapshots)
    for (const file of snapshot.files)
      lines.push(
        file.path,
        `  Cache-Control: ${bulkFileCacheControl(file.path)}`,
        `  Content-Type: ${file.media_type}`,
        '',
      );
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `_redirects` rules of `/api/v1/bulk/latest` (302 to the newest snapshot), placed before the /api/* 404. */
export function listBulkRedirectRules(snapshots: readonly BulkSnapshot[]): string[] {
  const newest = snapshots[0];
  if (!newest) return [];
  return [
    `${BULK_PATH}/${BULK_LATEST}  ${BULK_PATH}/${newest.snapshot}  302`,
    `${BULK_PATH}/${BULK_LATEST}/*  ${BULK_PATH}/${newest.snapshot}/:splat  302`,
  ];
}

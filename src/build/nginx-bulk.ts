import {
  BULK_COT_FILE_CACHE_CONTROL,
  BULK_FILE_CACHE_CONTROL,
  BULK_LATEST,
  BULK_LISTING_MAX_AGE,
  BULK_PATH,
  type BulkSnapshot,
  bulkFileCacheControl,
} from '../api/v1/bulk.ts';
import { publicCacheControl } from './build-manifest.ts';

/** The nginx lines of the public bulk files: maps for the http {} context, locations for the server. */
export interface NginxBulkLines {
  maps: string[];
  locations: string[];
}

const BULK_FILE_REGEX = '^/api/v1/bulk/[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}/[a-z][a-z_]*\\.(parquet|csv\\.gz)$';

/**
 * The bulk files in nginx (src/build/nginx-conf.ts includes these): an anonymous GET or HEAD of
 * a listed file is answered from dist/ with the file's media type, its sha256 as strong ETag (304
 * on a matching If-None-Match), `Cache-Control: public, max-age=31536000, immutable` (a
 * `cot_reports` file: 300 s) and no compression (the files are compressed already);
 * `/api/v1/bulk/latest[/<file>]` is a 302 to the newest snapshot. Anything else (a key, another
 * method, a file not listed, such as a withheld one) goes to mmds serve.
 */
export function renderNginxBulk(snapshots: readonly BulkSnapshot[], exposedHeaders: string): NginxBulkLines {
  const files = snapshots.flatMap((snapshot) => snapshot.files);
  const maps = [
    '# The public bulk files: path -> strong ETag (their sha256); "" for mmds serve.',
    'map $uri $mmds_bulk_etag {',
    '    default "";',
    ...files.map((file) => `    "${file.path}" '"${file.sha256}"';`),
    '}',
    '',
    "# Their Cache-Control: immutable, but short for the COT window's files (docs/api/bulk.md).",
    'map $uri $mmds_bulk_cache_control {',
    `    default "${BULK_FILE_CACHE_CONTROL}";`,
    ...files
      .filter((file) => bulkFileCacheControl(file.path) === BULK_COT_FILE_CACHE_CONTROL)
      .map((file) => `    "${file.path}" "${BULK_COT_FILE_CACHE_CONTROL}";`),
    '}',
    '',
  ];
  const newest = snapshots[0]?.snapshot;
  const headers = [
    '        add_header Access-Control-Allow-Origin "*" always;',
    `        add_header Access-Control-Expose-Headers "${exposedHeaders}" always;`,
    '        add_header X-Content-Type-Options nosniff always;',
    '        add_header X-Request-Id $mmds_request_id always;',
  ];
  const locations = [
    '    # Public bulk files (before the regex location that hands .gz paths to mmds serve).',
    `    location ~ "${BULK_FILE_REGEX}" {`,
    '        error_page 418 = @mmds_serve;',
    '        if ($mmds_method != "") { return 418; }',
    '        if ($mmds_key != "") { return 418; }',
    '        if ($mmds_bulk_etag = "") { return 418; }',
    '        if ($http_if_none_match = $mmds_bulk_etag) { return 304; }',
    '        types { application/vnd.apache.parquet parquet; application/gzip gz; }',
    '        default_type application/octet-stream;',
    '        gzip off;',
    '        etag off;',
    '        add_header ETag $mmds_bulk_etag always;',
    '        add_header Cache-Control $mmds_bulk_cache_control always;',
    ...headers,
    '    }',
    '',
  ];
  if (newest) {
    const cache = publicCacheControl(BULK_LISTING_MAX_AGE);
    locations.push(
      `    location = ${BULK_PATH}/${BULK_LATEST} {`,
      '        error_page 418 = @mmds_serve;',
      '        if ($mmds_method != "") { return 418; }',
      `        add_header Cache-Control "${cache}" always;`,
      ...headers,
      `        return 302 ${BULK_PATH}/${newest};`,
      '    }',
      '',
      `    location ^~ ${BULK_PATH}/${BULK_LATEST}/ {`,
      '        error_page 418 = @mmds_serve;',
      '        if ($mmds_method != "") { return 418; }',
      `        add_header Cache-Control "${cache}" always;`,
      ...headers,
      `        rewrite "^${BULK_PATH}/${BULK_LATEST}/([a-z][a-z_]*\\.(parquet|csv\\.gz))$" ${BULK_PATH}/${newest}/$1 redirect;`,
      '        return 418;',
      '    }',
      '',
    );
  }
  return { maps, locations };
}

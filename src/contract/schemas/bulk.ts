import * as js from './json-schema.ts';
import { createSuccessHeaders } from './responses.ts';

export const SNAPSHOT_PATTERN = '^\\d{8}T\\d{6}Z-[0-9a-f]{8}$';

/**
 * The `{snapshot}` path parameter of the public bulk paths. `latest` (a 302 to the newest
 * snapshot) is described in the operations' text, not matched here (see createBulkPublicPathItems).
 */
export const SNAPSHOT_PATH_PARAM: js.JsonSchema = {
  name: 'snapshot',
  in: 'path',
  required: true,
  description: 'A snapshot id of the listing (`20261124T084307Z-9da82ee8`).',
  schema: { type: 'string', pattern: SNAPSHOT_PATTERN },
};

const BULK_FILE: js.JsonSchema = js.object({
  dataset: js.text(
    'observations, cot_reports, or a reference or catalog list (regions, countries, country_currencies, currencies, time_zones, venues, sources, series, markets, sectors).',
  ),
  format: js.oneOfText(['parquet', 'csv.gz'], 'Parquet (zstd) or gzipped RFC 4180 CSV with a header row.'),
  path: js.text(
    'Where to download it: /api/v1/bulk/{snapshot}/{dataset}.{format}; its content never changes.',
  ),
  bytes: js.integer('Size of the file in bytes.', { minimum: 0 }),
  rows: js.integer('Data rows (the CSV has one header row more).', { minimum: 0 }),
  sha256: js.text('SHA-256 of the file, lowercase hex; the file is served with this, quoted, as its ETag.', {
    pattern: '^[0-9a-f]{64}$',
  }),
  licence: js.text(
    "The licence of the rows: the source's, each source's prefixed by its id when several, or the service's own catalog.",
  ),
  attribution: js.arrayOf(js.text(), 'The attributions of the sources of the rows, to show with the data.'),
  sources: js.arrayOf(js.text(), 'Catalog ids of the sources of the rows (empty for the catalog lists).'),
  media_type: js.oneOfText(
    ['application/vnd.apache.parquet', 'application/gzip'],
    'Content-Type of the file (the .csv.gz is a gzip file: no Content-Encoding).',
  ),
});

const WITHHELD_FILE: js.JsonSchema = js.object({
  dataset: js.text('cot_reports: the only dataset with a public window.'),
  format: js.oneOfText(['parquet', 'csv.gz'], 'The format of the file.'),
  path: js.text('The path the file had: 404 now, with or without a key.'),
  window_of: js.text(
    'The snapshot whose public window its reports left (the newest one when it was withheld).',
    {
      pattern: SNAPSHOT_PATTERN,
    },
  ),
  reason: js.text('Why it is withheld, in words.'),
  scope: js.oneOfText(['cot:history'], 'The scope that reads every report it held.'),
  history: js.text('Where a key with that scope reads them: endpoint 3, paged, JSON or CSV.'),
});

/** One snapshot's bulk files. */
export const BULK_SNAPSHOT_DATA: js.JsonSchema = js.object({
  snapshot: js.text('Snapshot id.', { pattern: SNAPSHOT_PATTERN }),
  created_at: js.timestamp('When the snapshot was published.'),
  files: js.arrayOf(BULK_FILE, 'Per dataset its Parquet file, then its CSV.'),
  withheld: js.arrayOf(
    WITHHELD_FILE,
    "Files of this snapshot that are no longer public (empty for the newest snapshot): an earlier snapshot's cot_reports files once they hold a report outside the public window of the newest snapshot.",
  ),
});

/** `/api/v1/bulk`: every snapshot with bulk files, newest first. */
export const BULK_DATA: js.JsonSchema = js.arrayOf(
  BULK_SNAPSHOT_DATA,
  'Snapshots with bulk files, newest first: the one built last, then earlier ones the store still keeps.',
);

const RIGHTS = js.text('Always: only rows of public_domain or open_licence sources.');

const COT_WINDOW: js.JsonSchema = js.object(
  {
    reports: js.integer('Report dates per market and report type in the public window (12).', { minimum: 1 }),
    snapshot: js.nullable(js.text('The newest snapshot: the one whose public window applies.')),
    rule: js.text('The rule, in words.'),
  },
  'Which rule the cot_reports files follow: they are public only while their reports are in the public window of the newest snapshot (SPEC rule 1); older reports need a key with cot:history.',
);

/** Meta of the listing. */
export const BULK_META: Record<string, js.JsonSchema> = {
  latest: js.nullable(js.text('The newest snapshot with bulk files (where /api/v1/bulk/latest redirects).')),
  rights: RIGHTS,
  cot_window: COT_WINDOW,
};

/** Meta of one snapshot's listing. */
export const BULK_SNAPSHOT_META: Record<string, js.JsonSchema> = {
  count: js.integer('Number of files.', { minimum: 0 }),
  rights: RIGHTS,
  cot_window: COT_WINDOW,
};

const ref = (status: string) => ({ $ref: `#/components/responses/${status}` });

const FILE_PARAM: js.JsonSchema = {
  name: 'file',
  in: 'path',
  required: true,
  description: 'A file name of the listing: `{dataset}.parquet` or `{dataset}.csv.gz`.',
  schema: { type: 'string', pattern: '^[a-z][a-z_]*\\.(parquet|csv\\.gz)$' },
};

/**
 * The OpenAPI path item outside the route table: a bulk file (binary). The `latest` redirects
 * are described in the operations' text, not as paths of their own: a 302-only operation has no
 * 2XX response (Redocly's operation-2xx-response), and `/api/v1/bulk/latest/{file}` beside
 * `/api/v1/bulk/{snapshot}/{file}` would be an ambiguous path.
 */
export function createBulkPublicPathItems(): Array<[string, Record<string, unknown>]> {
  return [
    [
      '/api/v1/bulk/{snapshot}/{file}',
      {
        get: {
          operationId: 'getBulkFile',
          summary: 'One public bulk file',
          description:
            'The file, byte for byte: `application/vnd.apache.parquet` or `application/gzip` (the .csv.gz is the file: never a Content-Encoding), `Content-Length`, strong `ETag` the quoted sha256 of the listing (If-None-Match answers 304), `Cache-Control: public, max-age=31536000, immutable` (cot_reports files: `public, max-age=300`, since the COT file of an earlier snapshot is withheld once the public window moves past one of its reports). Rows in force of public_domain and open_licence sources only. A snapshot or file not listed is 404, a withheld one (listed under `withheld`) too, with or without a key: its older reports are for a key with cot:history at /api/v1/markets/cot/{slug}. `/api/v1/bulk/latest/{file}` answers 302 (Cache-Control: public, max-age=300) with `Location: /api/v1/bulk/{snapshot}/{file}` of the newest snapshot.',
          tags: ['bulk'],
          parameters: [
            SNAPSHOT_PATH_PARAM,
            FILE_PARAM,
            {
              name: 'If-None-Match',
              in: 'header',
              required: false,
              description: 'The ETag of an earlier download: 304 Not Modified when it still matches.',
              schema: { type: 'string' },
            },
          ],
          security: [{}],
          'x-access': 'public',
          'x-cache-max-age': 31536000,
          responses: {
            '200': {
              description: 'The file.',
              headers: createSuccessHeaders(false),
              content: {
                'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
                'application/gzip': { schema: { type: 'string', format: 'binary' } },
              },
            },
            '304': ref('304'),
            '404': ref('404'),
            '429': ref('429'),
            '500': ref('500'),
          },
        },
      },
    ],
  ];
}

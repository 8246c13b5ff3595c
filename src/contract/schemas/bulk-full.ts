import * as js from './json-schema.ts';
import { createSuccessHeaders } from './responses.ts';

/** The path of the keyed full store's listing (a route of the table, `bulk-full`). */
export const BULK_FULL_PATH = '/api/v1/bulk/full';

/** What the file paths of the full store start with: `/api/v1/bulk/full/{snapshot}/{file}`. */
export const BULK_FULL_FILE_PREFIX = `${BULK_FULL_PATH}/`;

/** The media type of a Parquet file (IANA registration of 2024). */
export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

/** Cache-Control of a full-store file: keyed (never in a shared cache) and immutable. */
export const BULK_FULL_FILE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

/** The scope a key needs for the listing and the files. */
export const BULK_FULL_SCOPE = 'bulk:read';

/** The path of one file of a snapshot, as the listing gives it in `url`. */
export function bulkFullFileUrl(snapshot: string, file: string): string {
  return `${BULK_FULL_FILE_PREFIX}${snapshot}/${file}`;
}

/** What `meta.rights` of the listing says: who is trusted with which data. */
export const BULK_FULL_RIGHTS =
  'the files hold every source, licensed and proprietary ones included: the organisation the key was issued to is trusted to hold the rights to those; redistribute only what /api/v1/sources marks redistributable.';

/** Listing data: one entry per Parquet file of the snapshot's tables. */
export const BULK_FULL_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    table: js.text('The table the file belongs to (observations, cot_reports, series, sources, ...).'),
    file: js.text(
      'Path of the file inside the snapshot, as in its manifest (a fact table is partitioned: `observations/<source>-<hash>.parquet`).',
    ),
    rows: js.integer('Rows in the file.', { minimum: 0 }),
    bytes: js.integer('Size of the file in bytes.', { minimum: 0 }),
    sha256: js.text('SHA-256 of the file, lowercase hex; the download answers it as its ETag.', {
      pattern: '^[0-9a-f]{64}$',
    }),
    source: js.nullable(
      js.text(
        'The source whose series a fact partition holds (`bls`, `ecb`, `cftc`, ...); null for other tables.',
      ),
    ),
    url: js.text('Where to download the file: /api/v1/bulk/full/{snapshot}/{file} (same key).'),
  }),
  'Every file of every table of the snapshot, in manifest order (facts first, then reference tables).',
);

/** Listing meta. */
export const BULK_FULL_META: Record<string, js.JsonSchema> = {
  files: js.integer('Number of files listed (as count).', { minimum: 0 }),
  rows: js.integer('Rows over all files.', { minimum: 0 }),
  bytes: js.integer('Bytes over all files.', { minimum: 0 }),
  rights: js.text(`Always: ${BULK_FULL_RIGHTS}`),
};

const SNAPSHOT_PARAM: js.JsonSchema = {
  name: 'snapshot',
  in: 'path',
  required: true,
  description:
    'A snapshot id (`meta.snapshot` of the listing). Snapshots the store no longer keeps (MMDS_KEEP_SNAPSHOTS) are 404, whose message names the current snapshot.',
  schema: { type: 'string', pattern: '^\\d{8}T\\d{6}Z-[0-9a-f]{8}$' },
};

/** One path segment of a listed file (OpenAPI path parameters never hold a `/`). */
function createSegmentParam(name: string, description: string): js.JsonSchema {
  return { name, in: 'path', required: true, description, schema: { type: 'string', pattern: '^[^/]+$' } };
}

/**
 * The OpenAPI path items of the full store's files: not routes of the table (their body is
 * Parquet), so openapi.ts adds them beside the routes. A listed `file` is `<name>.parquet` (a
 * reference table) or `<table>/<name>.parquet` (a fact partition): one template for each, so
 * that every path parameter is one segment, as OpenAPI requires. Both are the listing's `url`.
 */
export function createBulkFullFilePathItems(
  securityScheme: string,
): Array<[string, Record<string, unknown>]> {
  const file = createSegmentParam(
    'file',
    'The file name as listed (`regions.parquet`; in a fact table the part after `<table>/`). Only files of the snapshot’s manifest are served; anything else (other names, dot segments, escaped slashes) is 404.',
  );
  const table = createSegmentParam(
    'table',
    'The fact table of a partition file, the part of the listed `file` before its `/` (`observations`, `cot_reports`).',
  );
  return [
    [`${BULK_FULL_FILE_PREFIX}{snapshot}/{file}`, createFileItem(securityScheme, 'getBulkFullFile', [file])],
    [
      `${BULK_FULL_FILE_PREFIX}{snapshot}/{table}/{file}`,
      createFileItem(securityScheme, 'getBulkFullPartitionFile', [table, file]),
    ],
  ];
}

function createFileItem(
  securityScheme: string,
  operationId: string,
  params: js.JsonSchema[],
): Record<string, unknown> {
  const ref = (status: string) => ({ $ref: `#/components/responses/${status}` });
  return {
    get: {
      operationId,
      summary:
        params.length === 1
          ? 'One Parquet file of the full store: a reference table (keyed)'
          : 'One Parquet file of the full store: a partition of a fact table (keyed)',
      description: `Streams one file of a snapshot listed by ${BULK_FULL_PATH} (its \`url\`), byte for byte as the store holds it: \`Content-Type: ${PARQUET_MEDIA_TYPE}\`, \`Content-Length\`, \`ETag\` the quoted sha256 of the listing (If-None-Match answers 304), \`Cache-Control: ${BULK_FULL_FILE_CACHE_CONTROL}\` (a snapshot's files never change). No compression (Parquet pages are compressed already); no query parameters (any is 400). A download that has started completes even if a publish prunes the snapshot meanwhile (the server holds the file open). Needs a key with scope \`${BULK_FULL_SCOPE}\`; counted once against the key's rate limit.`,
      tags: ['bulk'],
      parameters: [
        SNAPSHOT_PARAM,
        ...params,
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'The ETag of an earlier download: 304 Not Modified when it still matches.',
          schema: { type: 'string' },
        },
      ],
      security: [{ [securityScheme]: [BULK_FULL_SCOPE] }],
      'x-required-scope': BULK_FULL_SCOPE,
      'x-access': 'scope',
      'x-cache-max-age': 0,
      responses: {
        '200': {
          description: 'The Parquet file.',
          headers: createSuccessHeaders(false),
          content: { [PARQUET_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } } },
        },
        '304': ref('304'),
        '400': ref('400'),
        '401': ref('401'),
        '403': ref('403'),
        '404': ref('404'),
        '429': ref('429'),
        '500': ref('500'),
        '503': ref('503'),
      },
    },
  };
}

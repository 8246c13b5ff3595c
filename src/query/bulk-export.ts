import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  execute,
  openDuckDb,
  quotedIdentifier,
  quotedString,
  readRows,
  withConnection,
} from '../db/duckdb.ts';
import { defineNumberText } from '../db/number-text.ts';
import { neutraliseFormulaSql } from '../lib/csv-formula.ts';
import { COT_POSITION_FIELDS, REDISTRIBUTABLE_RIGHTS } from '../model/records.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import { relationOf } from '../store/partitions.ts';
import { getTable, TABLES } from '../store/tables.ts';
import { publicCotWindowSql } from './cot.ts';
import { createRightsTable } from './derived-tables.ts';

/** The two formats of every bulk dataset. */
export type BulkFormat = 'parquet' | 'csv.gz';
export const BULK_FORMATS: readonly BulkFormat[] = ['parquet', 'csv.gz'];

/** The source terms of the rows of one bulk dataset. */
export interface BulkSourceTerms {
  id: string;
  licence: string;
  licence_url: string | null;
  rights: string;
  attribution: string;
}

/** One dataset written in both formats: its files, rows, and the sources its rows come from. */
export interface ExportedDataset {
  dataset: string;
  rows: number;
  /** Paths of the written files, relative to the export directory (`observations.parquet`). */
  files: Record<BulkFormat, string>;
  /** Sources of the rows; empty for the service's own catalog lists. */
  sources: BulkSourceTerms[];
}

/** Options of `exportBulkDatasets`. */
export interface ExportBulkOptions {
  layout: StoreLayout;
  snapshotId: string;
  /** Directory the files are written to (created by the caller). */
  outDir: string;
  memoryLimit?: string;
  /** Datasets not to write (the build links them from an earlier snapshot: src/build/reuse.ts). */
  skip?: ReadonlySet<string>;
}

/**
 * The reference lists and the catalog sources they are compiled from (as the reference
 * endpoints' meta.attribution). A list is exported only when every one of its sources is in the
 * snapshot's catalog with redistributable rights. The catalog lists (sources, series, markets,
 * sectors) are the service's own catalog: no outside source.
 */
const REFERENCE_DATASETS: ReadonlyArray<{ table: string; sources: readonly string[] }> = [
  { table: 'regions', sources: ['un-m49'] },
  { table: 'countries', sources: ['un-m49', 'iso'] },
  { table: 'country_currencies', sources: ['iso'] },
  { table: 'currencies', sources: ['iso'] },
  { table: 'time_zones', sources: ['iana-tz'] },
  { table: 'venues', sources: ['swift-mic'] },
  { table: 'sources', sources: [] },
  { table: 'series', sources: [] },
  { table: 'markets', sources: [] },
  { table: 'sectors', sources: [] },
];

/** The datasets of a fact table's rows (the others are reference lists). */
export const FACT_BULK_DATASETS = ['observations', 'cot_reports'] as const;

/** Every dataset name a bulk snapshot can hold, in listing order. */
export const BULK_DATASETS: readonly string[] = [
  ...FACT_BULK_DATASETS,
  ...REFERENCE_DATASETS.map((d) => d.table),
];

/** Bookkeeping columns of the store that mean nothing to a reader of the data. */
const INTERNAL_COLUMNS = new Set(['batch_id', 'row_hash', 'content_hash']);

/**
 * Writes every redistributable dataset of a snapshot as Parquet (zstd) and gzipped RFC 4180
 * CSV with DuckDB's COPY: rows in force only (per series and period the latest revision), only
 * rows whose source is public_domain or open_licence. Opens its own DuckDB instance over the
 * snapshot's Parquet files (the serving instance cannot write files).
 */
export async function exportBulkDatasets(options: ExportBulkOptions): Promise<ExportedDataset[]> {
  const manifest = readManifest(options.layout, options.snapshotId);
  const dir = snapshotDir(options.layout, options.snapshotId);
  const instance = await openDuckDb({ threads: 2, memoryLimit: options.memoryLimit ?? '1GB' });
  try {
    return await withConnection(instance, async (connection) => {
      await defineNumberText(connection);
      for (const table of TABLES) {
        const files = (manifest.tables[table.name]?.files ?? []).map((f) => join(dir, f.file));
        await execute(
          connection,
          `CREATE VIEW ${quotedIdentifier(table.name)} AS SELECT * FROM ${relationOf(table, files)}`,
        );
      }
      await createBulkRights(connection);
      const exported: ExportedDataset[] = [];
      const skip = options.skip ?? new Set<string>();
      for (const table of FACT_BULK_DATASETS) {
        if (skip.has(table)) continue;
        const select = table === 'observations' ? observationsInForce() : await cotReportsInForce(connection);
        const sources = await readRowSources(connection, table);
        exported.push(await writeDataset(connection, options.outDir, table, select, sources));
      }
      for (const reference of REFERENCE_DATASETS) {
        if (skip.has(reference.table)) continue;
        const sources = await readSourceTerms(connection, reference.sources);
        if (sources.length !== reference.sources.length) continue;
        const where =
          reference.table === 'series'
            ? ' WHERE key IN (SELECT key FROM bulk_rights WHERE redistributable)'
            : '';
        const select = `SELECT ${publicColumns(reference.table).map(quotedIdentifier).join(', ')}
                          FROM ${quotedIdentifier(reference.table)}${where}
                         ORDER BY ${getTable(reference.table).key.map(quotedIdentifier).join(', ')}`;
        exported.push(await writeDataset(connection, options.outDir, reference.table, select, sources));
      }
      return exported;
    });
  } finally {
    instance.closeSync();
  }
}

/** Rights of every key of the facts and the catalog, by the serving side's rule (derived-tables.ts). */
async function createBulkRights(connection: DuckDBConnection): Promise<void> {
  await createRightsTable(
    connection,
    'bulk_rights',
    `SELECT DISTINCT series_key AS key FROM observations
     UNION SELECT DISTINCT series_key FROM cot_reports
     UNION SELECT key FROM series`,
  );
}

function publicColumns(table: string): string[] {
  return Object.keys(getTable(table).columns).filter((name) => !INTERNAL_COLUMNS.has(name));
}

/** Per series and period the latest revision, of redistributable series only. */
function observationsInForce(): string {
  const columns = publicColumns('observations').map((c) => `o.${quotedIdentifier(c)}`);
  return `SELECT ${columns.join(', ')}
            FROM observations o
            JOIN bulk_rights r ON r.key = o.series_key AND r.redistributable
         QUALIFY row_number() OVER (PARTITION BY o.series_key, o.period ORDER BY o.revision_number DESC) = 1
           ORDER BY o.series_key, o.period`;
}

/**
 * COT reports in force within the public window (cot.ts publicCotWindowSql: the latest 12 report
 * dates per market and report type; the full history needs cot:history), the positions list
 * flattened into `<category>_<field>` columns (the categories the snapshot holds, in the order
 * the reports list them): a flat table that reads the same in Parquet and CSV; a category a
 * report type does not have is null.
 */
async function cotReportsInForce(connection: DuckDBConnection): Promise<string> {
  const categories = await readRows<{ category: string }>(
    connection,
    `SELECT p.category FROM (SELECT unnest(positions) AS p FROM cot_reports)
      GROUP BY p.category ORDER BY min(p.category = 'nonreportable'), p.category`,
  );
  const base = publicColumns('cot_reports')
    .filter((c) => c !== 'positions')
    .map((c) => `c.${quotedIdentifier(c)}`);
  const flattened = categories.flatMap(({ category }) =>
    COT_POSITION_FIELDS.map(
      (field) =>
        `list_filter(c.positions, x -> x.category = ${quotedString(category)})[1].${quotedIdentifier(field)} AS ${quotedIdentifier(`${category}_${field}`)}`,
    ),
  );
  return `SELECT ${[...base, ...flattened].join(', ')}
            FROM cot_reports c
            JOIN bulk_rights r ON r.key = c.series_key AND r.redistributable
            JOIN (${publicCotWindowSql('cot_reports')}) w ON w.series_key = c.series_key AND w.period = c.period
         QUALIFY row_number() OVER (PARTITION BY c.series_key, c.period ORDER BY c.revision_number DESC) = 1
           ORDER BY c.series_key, c.period`;
}

const SOURCE_TERMS = `SELECT id, licence, licence_url, rights, attribution FROM sources`;

/** The redistributable sources of a fact table's rows. */
async function readRowSources(connection: DuckDBConnection, table: string): Promise<BulkSourceTerms[]> {
  return readRows<BulkSourceTerms>(
    connection,
    `${SOURCE_TERMS} WHERE id IN (
       SELECT DISTINCT r.source FROM ${quotedIdentifier(table)} f
         JOIN bulk_rights r ON r.key = f.series_key AND r.redistributable)
      ORDER BY id`,
  );
}

/** The catalog terms of the given sources that are redistributable. */
async function readSourceTerms(
  connection: DuckDBConnection,
  ids: readonly string[],
): Promise<BulkSourceTerms[]> {
  if (ids.length === 0) return [];
  const redistributable = `[${REDISTRIBUTABLE_RIGHTS.map(quotedString).join(', ')}]`;
  return readRows<BulkSourceTerms>(
    connection,
    `${SOURCE_TERMS} WHERE list_contains([${ids.map(quotedString).join(', ')}], id)
        AND list_contains(${redistributable}, rights) ORDER BY id`,
  );
}

/**
 * COPY's the rows to `<dataset>.parquet` (zstd) and `<dataset>.csv.gz` (RFC 4180, header row,
 * CRLF, RFC 3339 times, numbers as the API's CSV writes them, lists as JSON text). Returns the
 * row count COPY reports. Needs mmds_number_text (db/number-text.ts) on the connection.
 */
async function writeDataset(
  connection: DuckDBConnection,
  outDir: string,
  dataset: string,
  select: string,
  sources: BulkSourceTerms[],
): Promise<ExportedDataset> {
  const files = { parquet: `${dataset}.parquet`, 'csv.gz': `${dataset}.csv.gz` };
  await execute(connection, `CREATE OR REPLACE TEMP TABLE bulk_rows AS ${select}`);
  const [parquet] = await readRows<{ Count: string | number }>(
    connection,
    `COPY bulk_rows TO ${quotedString(join(outDir, files.parquet))} (FORMAT parquet, COMPRESSION zstd)`,
  );
  const described = await readRows<{ column_name: string; column_type: string }>(
    connection,
    'DESCRIBE bulk_rows',
  );
  // Text cells follow the API's CSV rule against spreadsheet formulas (lib/csv-formula.ts);
  // number columns stay numbers (a leading `-` is a sign), and Parquet keeps the raw values.
  // Doubles are written as the API's CSV writes them (String(x): `29923`, not DuckDB's
  // `29923.0`), so a value reads the same in a bulk file and in an endpoint's CSV.
  const csvColumns = described.map(({ column_name: name, column_type: type }) => {
    const column = quotedIdentifier(name);
    if (/\[\]$|^STRUCT|^MAP/.test(type)) return `to_json(${column})::VARCHAR AS ${column}`;
    if (type === 'VARCHAR') return `${neutraliseFormulaSql(column)} AS ${column}`;
    if (type === 'DOUBLE')
      return `CASE WHEN ${column} IS NULL THEN NULL ELSE mmds_number_text(${column}) END AS ${column}`;
    return column;
  });
  await execute(
    connection,
    `COPY (SELECT ${csvColumns.join(', ')} FROM bulk_rows) TO ${quotedString(join(outDir, files['csv.gz']))}
       (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '"', ESCAPE '"', NEW_LINE '\\r\\n',
        TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%SZ', DATEFORMAT '%Y-%m-%d', COMPRESSION gzip)`,
  );
  await execute(connection, 'DROP TABLE bulk_rows');
  return { dataset, rows: Number(parquet?.Count ?? 0), files, sources };
}

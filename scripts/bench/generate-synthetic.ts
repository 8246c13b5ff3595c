/**
 * Synthetic observations for the benchmark: NOT real data. Everything it writes belongs to the
 * source `synthetic` (rights open_licence, declared in its own catalog) and goes into a data
 * directory of its own, never the project's or ../shared/data.
 *
 * The observations are written straight into the store as ordinary batches (at most 10 million
 * rows each by default), by DuckDB SQL over range(), with the store's own table definition
 * (src/store/tables.ts), writer (src/store/write-parquet.ts) and batch record
 * (src/store/batches.ts): `mmds publish`, `mmds verify` and the server treat them like any
 * ingest. Each (series, period) has a full revision chain: ids in the store's form (`obs_` and 20
 * hex digits, from a SHA-256 of key and period and a hash with the revision), revision 1 supersedes nothing,
 * revision r supersedes revision r-1, observed_at increases along the chain. The generator's
 * DuckDB instance can be given a memory_limit and spills to a temporary directory beyond it.
 *
 *   node scripts/bench/generate-synthetic.ts --data-dir <dir> --series 1000 --periods 250 --revisions 4
 *     [--catalog-series]        also list every series in the catalog (a catalogue of N series)
 *     [--ecb-catalog]           also copy the ECB's entries of data/catalog/catalog.yaml
 *     [--batch-rows 10000000]   rows per batch (whole series)
 *     [--memory-limit 4GB] [--temp-dir <dir>] [--threads 2] [--json]
 *
 * The catalog is ingested through the CLI (`mmds ingest catalog`); run `mmds publish` afterwards.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse, stringify } from 'yaml';
import { execute, quotedIdentifier, quotedString, withConnection } from '../../src/db/duckdb.ts';
import { fsyncPath, renameDurably } from '../../src/lib/durable-fs.ts';
import { formatTimestamp } from '../../src/lib/zoned-time.ts';
import { type BatchRecord, listBatches, nextBatchSequence } from '../../src/store/batches.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { withStoreLock } from '../../src/store/lock.ts';
import { getTable } from '../../src/store/tables.ts';
import { copyToParquet } from '../../src/store/write-parquet.ts';

/** The source every synthetic record belongs to. */
export const SYNTHETIC_SOURCE = 'synthetic';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIRST_PERIOD = '2000-01-01';
const COLLECTOR_VERSION = 'mmds-bench/1 synthetic';

/** The shape of a synthetic store: series x periods (monthly from 2000-01) x revisions. */
export interface SyntheticShape {
  series: number;
  periods: number;
  revisions: number;
}

/** The key of synthetic series number `index` (0-based). */
export function syntheticSeriesKey(index: number): string {
  return `${SYNTHETIC_SOURCE}.S${String(index + 1).padStart(6, '0')}`;
}

/**
 * When revision `revision` (1-based) of period `period` (0-based) became known: the 15th of
 * the month after the period at 13:30 UTC, plus 30 days per revision. The same formula as the SQL.
 */
export function syntheticObservedAt(period: number, revision: number): Date {
  const first = new Date(`${FIRST_PERIOD}T13:30:00Z`);
  first.setUTCMonth(first.getUTCMonth() + period + 1, 15);
  return new Date(first.getTime() + (revision - 1) * 30 * 86_400_000);
}

/** The catalog file's shape, as far as the generator writes or copies it. */
interface CatalogDocument {
  sources: Array<Record<string, unknown> & { id: string }>;
  series: Array<Record<string, unknown> & { key: string; source: string; sector: string }>;
  markets: unknown[];
  sectors: Array<Record<string, unknown> & { id: string }>;
}

/**
 * Writes the catalog of the synthetic source (and, optionally, one entry per series). With
 * `withEcb`, the ECB's source and series entries of data/catalog/catalog.yaml are copied in, so
 * that real ECB files can be ingested and published into the same store.
 */
export function writeSyntheticCatalog(file: string, seriesEntries: number, withEcb = false): void {
  const ecb = withEcb ? readEcbCatalogEntries() : { sources: [], series: [], sectors: [] };
  const document: CatalogDocument = {
    sources: [
      {
        id: SYNTHETIC_SOURCE,
        name: 'Synthetic benchmark observations (generated, not real data)',
        publisher: 'mmds benchmark harness (scripts/bench/generate-synthetic.ts)',
        url: 'https://example.invalid/mmds/synthetic',
        licence: 'Generated test data, free to reuse',
        rights: 'open_licence',
        attribution: 'Synthetic data of the mmds benchmark harness, not real observations',
        cadence: 'monthly',
        stale_after_days: 45,
      },
      ...ecb.sources,
    ],
    series: [
      ...Array.from({ length: seriesEntries }, (_, i) => {
        const key = syntheticSeriesKey(i);
        return {
          key,
          slug: key.replace('.', '-').toLowerCase(),
          name: `Synthetic series ${i + 1}`,
          source: SYNTHETIC_SOURCE,
          frequency: 'monthly',
          unit: 'index',
          sector: SYNTHETIC_SOURCE,
        };
      }),
      ...ecb.series,
    ],
    markets: [],
    sectors: [
      { id: SYNTHETIC_SOURCE, name: 'Synthetic', description: 'Generated series of the benchmark harness' },
      ...ecb.sectors,
    ],
  };
  const header = withEcb
    ? '# Synthetic catalog of the benchmark harness (scripts/bench): NOT real data, except the ECB\n' +
      '# entries, copied from data/catalog/catalog.yaml.\n'
    : '# Synthetic catalog of the benchmark harness (scripts/bench): NOT real data.\n';
  writeFileSync(file, `${header}${stringify(document, { lineWidth: 0 })}`);
}

/**
 * The SELECT that generates the rows of series [first, first + count), typed as the table's columns.
 * One SHA-256 per (series, period), not two per row: a revision's id is 4 hex digits of it and 16 of
 * DuckDB's 64-bit hash() of it and the revision number. Ids stay 20 hex digits that look random row
 * by row (so they compress in Parquet like the store's own), and a revision's supersedes_id is the
 * same expression for the revision before.
 */
function selectSyntheticRows(shape: SyntheticShape, batchId: string, first: number, count: number): string {
  const factId = (revision: string) =>
    `'obs_' || substr(h, 1, 4) || lpad(lower(to_hex(hash(h, (${revision})::INTEGER))), 16, '0')`;
  const columns: Record<string, string> = {
    id: factId('r'),
    series_key: 'series_key',
    period: 'period',
    // A deterministic value per (series, period), nudged by each revision.
    value: 'round(100 + (hash(series_key, period) % 100000) / 100.0 + r * 0.25, 2)',
    // No footnotes, as for the ECB's rates (the column is NULL where a publisher gives none).
    footnotes: 'NULL',
    source_ref: `'synthetic-vintage-' || r || '.csv:' || (s * ${shape.periods} + p + 2)`,
    observed_at: 'first_observed + to_days(((r - 1) * 30)::INTEGER)',
    // A fixed monthly release time, as a release calendar would give.
    observed_at_method: "'release_calendar'",
    collector_version: quotedString(COLLECTOR_VERSION),
    verification_status: "'unverified'",
    confidence: '0.9',
    data_class: "'official'",
    revision_number: 'r',
    supersedes_id: `CASE WHEN r = 1 THEN NULL ELSE ${factId('r - 1')} END`,
    batch_id: quotedString(batchId),
  };
  const table = getTable('observations');
  const missing = Object.keys(table.columns).filter((name) => !(name in columns));
  if (missing.length > 0) {
    throw new Error(
      `the observations table has columns the synthetic generator does not fill: ${missing.join(', ')} ` +
        '(scripts/bench/generate-synthetic.ts needs updating for the store)',
    );
  }
  const list = Object.entries(table.columns)
    .map(([name, type]) => `CAST(${columns[name]} AS ${type}) AS ${quotedIdentifier(name)}`)
    .join(',\n       ');
  return `SELECT ${list}
  FROM (SELECT s, p, series_key, period, first_observed,
               sha256(series_key || chr(0) || period) AS h
          FROM (SELECT s, p,
                       ${quotedString(`${SYNTHETIC_SOURCE}.S`)} || lpad((s + 1)::VARCHAR, 6, '0') AS series_key,
                       strftime(DATE '${FIRST_PERIOD}' + to_months(p::INTEGER), '%Y-%m') AS period,
                       (DATE '${FIRST_PERIOD}' + to_months((p + 1)::INTEGER) + to_days(14))::TIMESTAMP
                         + INTERVAL 13 HOUR + INTERVAL 30 MINUTE AS first_observed
                  FROM range(${first}, ${first + count}) AS a(s), range(${shape.periods}) AS b(p))) AS sp,
       (SELECT r::INTEGER AS r FROM range(1, ${shape.revisions + 1}) AS c(r)) AS revisions`;
}

/** Options of the generator's own DuckDB instance and of the batch split. */
export interface SyntheticOptions {
  /**
   * At most this many rows per batch (whole series; default 10 million): a store of 100 million
   * observations is ten ordinary batches, so that no single sort has to hold them all.
   */
  batchRows?: number;
  /** DuckDB memory_limit of the generator's instance (e.g. "4GB"); it spills beyond it. */
  memoryLimit?: string;
  /** Where DuckDB spills (default: a directory beside the data directory's store). */
  tempDirectory?: string;
  /** DuckDB threads (default DuckDB's own choice). */
  threads?: number;
}

/** Rows per batch when no option says otherwise. */
export const DEFAULT_BATCH_ROWS = 10_000_000;

/** What writing the batches produced. */
export interface SyntheticBatch {
  batchIds: string[];
  rows: number;
  parquetBytes: number;
  seconds: number;
}

/**
 * Writes the synthetic observations as committed batches of the store in `dataDir` (under the
 * store lock, each staged and renamed into place like every batch): series are split into
 * batches of at most `batchRows` rows, each written by one COPY ... ORDER BY of its own.
 */
export async function writeSyntheticBatch(
  dataDir: string,
  shape: SyntheticShape,
  now: Date,
  options: SyntheticOptions = {},
): Promise<SyntheticBatch> {
  for (const [name, value] of Object.entries(shape)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1`);
  }
  if (shape.series > 999_999) throw new Error('series must be at most 999,999 (keys have six digits)');
  const seriesRows = shape.periods * shape.revisions;
  const seriesPerBatch = Math.max(1, Math.floor((options.batchRows ?? DEFAULT_BATCH_ROWS) / seriesRows));
  const started = performance.now();
  const layout = resolveLayout(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const tempDirectory = options.tempDirectory ?? join(dataDir, 'store', '.synthetic-duckdb-tmp');
  return withStoreLock(layout.lockFile, async () => {
    const table = getTable('observations');
    const instance = await DuckDBInstance.create(':memory:', {
      ...(options.memoryLimit ? { memory_limit: options.memoryLimit } : {}),
      ...(options.threads ? { threads: String(options.threads) } : {}),
    });
    mkdirSync(tempDirectory, { recursive: true });
    const result: SyntheticBatch = { batchIds: [], rows: 0, parquetBytes: 0, seconds: 0 };
    try {
      await withConnection(instance, async (connection) => {
        await execute(connection, `SET temp_directory = ${quotedString(tempDirectory)}`);
        for (let first = 0; first < shape.series; first += seriesPerBatch) {
          const count = Math.min(seriesPerBatch, shape.series - first);
          const digest = createHash('sha256')
            .update(JSON.stringify([SYNTHETIC_SOURCE, shape, first, count, now.toISOString()]))
            .digest('hex');
          const batchId = `${String(nextBatchSequence(listBatches(layout))).padStart(6, '0')}-${digest.slice(0, 12)}`;
          const staging = join(layout.batchStagingDir, batchId);
          rmSync(layout.batchStagingDir, { recursive: true, force: true });
          mkdirSync(staging, { recursive: true });
          mkdirSync(layout.batchesDir, { recursive: true });
          // A view, not a table: the rows are generated inside the COPY's sort (one copy of them
          // in memory or spilled, not two), and copyToParquet's count(*) needs none of the columns.
          const view = `synthetic_${table.name}`;
          await execute(
            connection,
            `CREATE OR REPLACE TEMP VIEW ${quotedIdentifier(view)} AS ${selectSyntheticRows(shape, batchId, first, count)}`,
          );
          const stats = await copyToParquet(connection, table, view, join(staging, `${table.name}.parquet`));
          const record: BatchRecord = {
            id: batchId,
            source: SYNTHETIC_SOURCE,
            created_at: formatTimestamp(now),
            collector_version: COLLECTOR_VERSION,
            files: [],
            options: {
              series: String(shape.series),
              periods: String(shape.periods),
              revisions: String(shape.revisions),
              first_series: String(first + 1),
              series_in_batch: String(count),
            },
            tables: { [table.name]: { file: `${table.name}.parquet`, ...stats } },
          };
          writeFileSync(join(staging, 'batch.json'), `${JSON.stringify(record, null, 2)}\n`);
          fsyncPath(join(staging, 'batch.json'));
          renameDurably(staging, join(layout.batchesDir, batchId));
          result.batchIds.push(batchId);
          result.rows += stats.rows;
          result.parquetBytes += stats.bytes;
        }
      });
    } finally {
      instance.closeSync();
      rmSync(tempDirectory, { recursive: true, force: true });
    }
    result.seconds = (performance.now() - started) / 1000;
    return result;
  });
}

/** The real ECB entries of the project's catalog (source, series, their sectors), to add to the synthetic one. */
function readEcbCatalogEntries(): Pick<CatalogDocument, 'sources' | 'series' | 'sectors'> {
  const catalog = parse(
    readFileSync(join(REPO_ROOT, 'data/catalog/catalog.yaml'), 'utf8'),
  ) as CatalogDocument;
  const series = catalog.series.filter((entry) => entry.source === 'ecb');
  const sectors = new Set(series.map((entry) => entry.sector));
  return {
    sources: catalog.sources.filter((entry) => entry.id === 'ecb'),
    series,
    sectors: catalog.sectors.filter((entry) => sectors.has(entry.id)),
  };
}

/** Ingests the synthetic catalog through the CLI, then writes the observations batches. */
export async function generateSyntheticStore(
  dataDir: string,
  shape: SyntheticShape,
  options: SyntheticOptions & { catalogSeries: boolean; ecbCatalog?: boolean; now: Date },
): Promise<SyntheticBatch> {
  mkdirSync(dataDir, { recursive: true });
  const catalog = join(dataDir, 'synthetic-catalog.yaml');
  writeSyntheticCatalog(catalog, options.catalogSeries ? shape.series : 0, options.ecbCatalog === true);
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'ingest', 'catalog', catalog], {
    env: { ...process.env, MMDS_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`mmds ingest catalog failed: ${run.stderr.trim()}`);
  return writeSyntheticBatch(dataDir, shape, options.now, options);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      series: { type: 'string', default: '1000' },
      periods: { type: 'string', default: '250' },
      revisions: { type: 'string', default: '4' },
      'catalog-series': { type: 'boolean', default: false },
      'ecb-catalog': { type: 'boolean', default: false },
      'batch-rows': { type: 'string', default: String(DEFAULT_BATCH_ROWS) },
      'memory-limit': { type: 'string' },
      'temp-dir': { type: 'string' },
      threads: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values['data-dir']) throw new Error('--data-dir is required (a directory of its own, never ./data)');
  const shape = {
    series: Number(values.series),
    periods: Number(values.periods),
    revisions: Number(values.revisions),
  };
  const batch = await generateSyntheticStore(values['data-dir'], shape, {
    catalogSeries: values['catalog-series'] === true,
    ecbCatalog: values['ecb-catalog'] === true,
    now: new Date(),
    batchRows: Number(values['batch-rows']),
    ...(values['memory-limit'] ? { memoryLimit: values['memory-limit'] } : {}),
    ...(values['temp-dir'] ? { tempDirectory: values['temp-dir'] } : {}),
    ...(values.threads ? { threads: Number(values.threads) } : {}),
  });
  process.stdout.write(
    values.json
      ? `${JSON.stringify(batch)}\n`
      : `synthetic batches ${batch.batchIds.join(', ')}: ${batch.rows} observations, ${batch.parquetBytes} bytes, ${batch.seconds.toFixed(1)} s\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    process.stderr.write(`generate-synthetic: ${(error as Error).message}\n`);
    process.exit(1);
  });
}

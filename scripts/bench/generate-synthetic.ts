/**
 * Synthetic observations for the benchmark: NOT real data. Everything it writes belongs to the
 * source `synthetic` (rights open_licence, declared in its own catalog) and goes into a data
 * directory of its own, never the project's or ../shared/data.
 *
 * The observations are written straight into the store as one ordinary batch, by DuckDB SQL over
 * generate_series, with the store's own table definition (src/store/tables.ts), writer
 * (src/store/write-parquet.ts) and batch record (src/store/batches.ts): `mmds publish`, `mmds
 * verify` and the server treat it like any ingest. Each (series, period) has a full revision
 * chain: ids as the store derives them (src/store/revisions.ts), revision 1 supersedes nothing,
 * revision r supersedes revision r-1, observed_at increases along the chain.
 *
 *   node scripts/bench/generate-synthetic.ts --data-dir <dir> --series 1000 --periods 250 --revisions 4
 *     [--catalog-series]   also list every series in the catalog (a catalogue of N series)
 *
 * The catalog is ingested through the CLI (`mmds ingest catalog`); run `mmds publish` afterwards.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execute, openDuckDb, quotedIdentifier, quotedString, withConnection } from '../../src/db/duckdb.ts';
import { formatTimestamp } from '../../src/lib/zoned-time.ts';
import { type BatchRecord, listBatches, nextBatchSequence } from '../../src/store/batches.ts';
import { fsyncPath, renameDurably } from '../../src/store/durable-fs.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import { withStoreLock } from '../../src/store/lock.ts';
import { getTable } from '../../src/store/tables.ts';
import { copyToParquet, createScratchTable } from '../../src/store/write-parquet.ts';

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

/** Writes the catalog of the synthetic source (and, optionally, one entry per series). */
export function writeSyntheticCatalog(file: string, seriesEntries: number): void {
  const lines = [
    '# Synthetic catalog of the benchmark harness (scripts/bench): NOT real data.',
    'sources:',
    `  - id: ${SYNTHETIC_SOURCE}`,
    '    name: Synthetic benchmark observations (generated, not real data)',
    '    publisher: mmds benchmark harness (scripts/bench/generate-synthetic.ts)',
    '    url: https://example.invalid/mmds/synthetic',
    '    licence: Generated test data, free to reuse',
    '    rights: open_licence',
    '    attribution: "Synthetic data of the mmds benchmark harness, not real observations"',
    '    cadence: monthly',
    '    stale_after_days: 45',
    'series:',
  ];
  for (let i = 0; i < seriesEntries; i++) {
    const key = syntheticSeriesKey(i);
    lines.push(
      `  - key: ${key}`,
      `    slug: ${key.replace('.', '-').toLowerCase()}`,
      `    name: Synthetic series ${i + 1}`,
      `    source: ${SYNTHETIC_SOURCE}`,
      '    frequency: monthly',
      '    unit: index',
      `    sector: ${SYNTHETIC_SOURCE}`,
    );
  }
  if (seriesEntries === 0) lines[lines.length - 1] = 'series: []';
  lines.push(
    'markets: []',
    'sectors:',
    `  - id: ${SYNTHETIC_SOURCE}`,
    '    name: Synthetic',
    '    description: Generated series of the benchmark harness',
    '',
  );
  writeFileSync(file, lines.join('\n'));
}

/** The SELECT that generates every row of the observations table, in the table's column order. */
function selectSyntheticRows(shape: SyntheticShape, batchId: string): string {
  const factId = (revision: string) =>
    `'obs_' || substr(sha256(series_key || chr(0) || period || chr(0) || (${revision})::VARCHAR), 1, 20)`;
  const columns: Record<string, string> = {
    id: factId('r'),
    series_key: 'series_key',
    period: 'period',
    // A deterministic value per (series, period), nudged by each revision.
    value: 'round(100 + (hash(series_key, period) % 100000) / 100.0 + r * 0.25, 2)',
    source_ref: `'synthetic-vintage-' || r || '.csv:' || (s * ${shape.periods} + p + 2)`,
    observed_at: 'first_observed + to_days(((r - 1) * 30)::INTEGER)',
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
  if (missing.length > 0) throw new Error(`synthetic rows lack columns ${missing.join(', ')}`);
  const list = Object.keys(table.columns)
    .map((name) => `${columns[name]} AS ${quotedIdentifier(name)}`)
    .join(',\n       ');
  return `SELECT ${list}
  FROM (SELECT s, p, r::INTEGER AS r,
               ${quotedString(`${SYNTHETIC_SOURCE}.S`)} || lpad((s + 1)::VARCHAR, 6, '0') AS series_key,
               strftime(DATE '${FIRST_PERIOD}' + to_months(p::INTEGER), '%Y-%m') AS period,
               (DATE '${FIRST_PERIOD}' + to_months((p + 1)::INTEGER) + to_days(14))::TIMESTAMP
                 + INTERVAL 13 HOUR + INTERVAL 30 MINUTE AS first_observed
          FROM range(${shape.series}) AS a(s), range(${shape.periods}) AS b(p),
               range(1, ${shape.revisions + 1}) AS c(r))`;
}

/** What writing the batch produced. */
export interface SyntheticBatch {
  batchId: string;
  rows: number;
  parquetBytes: number;
  seconds: number;
}

/**
 * Writes the synthetic observations as one committed batch of the store in `dataDir` (under the
 * store lock, staged and renamed into place like every batch).
 */
export async function writeSyntheticBatch(
  dataDir: string,
  shape: SyntheticShape,
  now: Date,
): Promise<SyntheticBatch> {
  for (const [name, value] of Object.entries(shape)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1`);
  }
  const started = performance.now();
  const layout = resolveLayout(dataDir);
  mkdirSync(dataDir, { recursive: true });
  return withStoreLock(layout.lockFile, async () => {
    const batches = listBatches(layout);
    const digest = createHash('sha256')
      .update(JSON.stringify([SYNTHETIC_SOURCE, shape, now.toISOString()]))
      .digest('hex');
    const batchId = `${String(nextBatchSequence(batches)).padStart(6, '0')}-${digest.slice(0, 12)}`;
    const staging = join(layout.batchStagingDir, batchId);
    rmSync(layout.batchStagingDir, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    mkdirSync(layout.batchesDir, { recursive: true });
    const table = getTable('observations');
    const instance = await openDuckDb();
    try {
      const stats = await withConnection(instance, async (connection) => {
        const scratch = await createScratchTable(connection, table);
        await execute(
          connection,
          `INSERT INTO ${quotedIdentifier(scratch)} ${selectSyntheticRows(shape, batchId)}`,
        );
        return copyToParquet(connection, table, scratch, join(staging, `${table.name}.parquet`));
      });
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
        },
        tables: { [table.name]: { file: `${table.name}.parquet`, ...stats } },
      };
      writeFileSync(join(staging, 'batch.json'), `${JSON.stringify(record, null, 2)}\n`);
      fsyncPath(join(staging, 'batch.json'));
      renameDurably(staging, join(layout.batchesDir, batchId));
      return {
        batchId,
        rows: stats.rows,
        parquetBytes: stats.bytes,
        seconds: (performance.now() - started) / 1000,
      };
    } finally {
      instance.closeSync();
    }
  });
}

/** Ingests the synthetic catalog through the CLI, then writes the observations batch. */
export async function generateSyntheticStore(
  dataDir: string,
  shape: SyntheticShape,
  options: { catalogSeries: boolean; now: Date },
): Promise<SyntheticBatch> {
  mkdirSync(dataDir, { recursive: true });
  const catalog = join(dataDir, 'synthetic-catalog.yaml');
  writeSyntheticCatalog(catalog, options.catalogSeries ? shape.series : 0);
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/mmds.js'), 'ingest', 'catalog', catalog], {
    env: { ...process.env, MMDS_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`mmds ingest catalog failed: ${run.stderr.trim()}`);
  return writeSyntheticBatch(dataDir, shape, options.now);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      series: { type: 'string', default: '1000' },
      periods: { type: 'string', default: '250' },
      revisions: { type: 'string', default: '4' },
      'catalog-series': { type: 'boolean', default: false },
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
    now: new Date(),
  });
  process.stdout.write(
    `synthetic batch ${batch.batchId}: ${batch.rows} observations, ${batch.parquetBytes} bytes, ${batch.seconds.toFixed(1)} s\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    process.stderr.write(`generate-synthetic: ${(error as Error).message}\n`);
    process.exit(1);
  });
}

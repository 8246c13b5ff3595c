import type { DuckDBConnection } from '@duckdb/node-api';
import { quotedString, readRows } from '../db/duckdb.ts';
import { listBatches, listTableFiles } from './batches.ts';
import type { StoreLayout } from './layout.ts';

/** What the store already holds, as far as fetching and scheduling need to know. */
export interface StoreSummary {
  /** Newest period and newest knowledge time of each source's facts (by series key prefix). */
  sources: Record<string, { last_period: string; last_observed_at: string; periods: number }>;
  /** Catalogued BLS series ids (native ids of `bls.<id>` keys). */
  blsSeries: string[];
  /** FRED ids of catalogued series, with the series key their values are filed under. */
  fredSeries: Array<{ fredId: string; seriesKey: string }>;
  /** The newest batch of each source that wrote any. */
  lastBatchAt: Record<string, string>;
}

function parquetList(files: readonly string[]): string {
  return `read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true)`;
}

/** Reads a summary of the store's batches (not of a snapshot: what was ingested counts). */
export async function readStoreSummary(
  layout: StoreLayout,
  connection: DuckDBConnection,
): Promise<StoreSummary> {
  const batches = listBatches(layout);
  const summary: StoreSummary = { sources: {}, blsSeries: [], fredSeries: [], lastBatchAt: {} };
  for (const batch of batches) summary.lastBatchAt[batch.source] = batch.created_at;
  for (const table of ['observations', 'cot_reports']) {
    const files = listTableFiles(layout, batches, table);
    if (files.length === 0) continue;
    const rows = await readRows<{
      source: string;
      last_period: string;
      last_observed_at: string;
      periods: number;
    }>(
      connection,
      `SELECT split_part(series_key, '.', 1) AS source, max(period) AS last_period,
              strftime(max(observed_at), '%Y-%m-%dT%H:%M:%SZ') AS last_observed_at,
              count(DISTINCT period)::INTEGER AS periods
         FROM ${parquetList(files)} GROUP BY 1`,
    );
    for (const row of rows) summary.sources[row.source] = { ...row, periods: Number(row.periods) };
  }
  const seriesFiles = listTableFiles(layout, batches, 'series');
  if (seriesFiles.length > 0) {
    const columns = await readRows<{ column_name: string }>(
      connection,
      `SELECT column_name FROM (DESCRIBE SELECT * FROM ${parquetList(seriesFiles)})`,
    );
    const hasFredId = columns.some((c) => c.column_name === 'fred_id');
    const series = await readRows<{ key: string; source: string; fred_id: string | null }>(
      connection,
      `SELECT key, source, ${hasFredId ? 'fred_id' : 'NULL::VARCHAR AS fred_id'}
         FROM ${parquetList(seriesFiles)}
      QUALIFY row_number() OVER (PARTITION BY key ORDER BY batch_id DESC) = 1
        ORDER BY key`,
    );
    summary.blsSeries = series
      .filter((row) => /^bls\.[A-Z0-9]+$/.test(row.key))
      .map((row) => row.key.slice('bls.'.length));
    summary.fredSeries = series
      .filter((row) => row.fred_id !== null && row.fred_id !== '')
      .map((row) => ({ fredId: row.fred_id!, seriesKey: row.key }));
  }
  return summary;
}

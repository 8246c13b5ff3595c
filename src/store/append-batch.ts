import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fsyncPath, renameDurably } from '../lib/durable-fs.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { countFactRows, type FactRelation, isFactRelation, type ParsedBatch } from '../model/records.ts';
import { RevisionRefusedError } from '../model/revision-refused.ts';
import {
  type BatchRecord,
  type InputFile,
  listBatches,
  listTableFiles,
  nextBatchSequence,
} from './batches.ts';
import type { StoreLayout } from './layout.ts';
import { withStoreLock } from './lock.ts';
import { dropFactPlan, type FactPlan, fillPlannedFacts, planFacts, type TableCounts } from './plan-facts.ts';
import { readReferenceHashes } from './read-store-state.ts';
import { hashCanonical } from './revisions.ts';
import { TABLES, type TableDefinition } from './tables.ts';
import { copyToParquet, createScratchTable, type FileStats, loadRows } from './write-parquet.ts';

/** What the ingest is, for the batch record. */
export interface BatchMeta {
  source: string;
  files: InputFile[];
  options: Record<string, string>;
  collectorVersion: string;
  now: Date;
}

export type { TableCounts };

/** The outcome of one ingest: the batch written (or null when nothing was new) and counts. */
export interface AppendResult {
  batch_id: string | null;
  tables: Record<string, TableCounts>;
  rows_read: number;
  rows_skipped: number;
}

const FACT_ID_PREFIX: Record<string, string> = {
  observations: 'obs',
  cot_reports: 'cot',
  cot_report_columns: 'cotc',
};

/** What one table adds to the batch: reference rows in JS, or a fact table's plan in DuckDB. */
type Pending = { table: TableDefinition; rows: object[] } | { table: TableDefinition; plan: FactPlan };

/**
 * Appends what a parser produced to the store as one new batch: facts become new revisions
 * where they differ from the value in force, reference rows are kept where they changed.
 * Nothing new means no batch at all. The batch is written in a staging directory and renamed
 * into place, so a crash never leaves half a batch behind.
 */
export async function appendBatch(
  layout: StoreLayout,
  connection: DuckDBConnection,
  parsed: ParsedBatch,
  meta: BatchMeta,
): Promise<AppendResult> {
  return withStoreLock(layout.lockFile, async () => {
    const batches = listBatches(layout);
    const batchId = createBatchId(nextBatchSequence(batches), meta);
    const tables: Record<string, TableCounts> = {};
    const pending: Pending[] = [];
    const plans: FactPlan[] = [];
    try {
      for (const table of TABLES) {
        const input = (parsed as unknown as Record<string, object[] | FactRelation | undefined>)[table.name];
        if (input === undefined || countFactRows(input) === 0) continue;
        const files = listTableFiles(layout, batches, table.name);
        if (table.kind === 'fact') {
          // The candidates pass through the staging directory, which the next batch clears.
          mkdirSync(layout.batchStagingDir, { recursive: true });
          const ndjsonFile = join(layout.batchStagingDir, `plan-${table.name}.ndjson`);
          const plan = await planFacts(connection, table, input, { files, ndjsonFile });
          plans.push(plan);
          const { reasons, total } = plan.refusals;
          if (total > 0) throw new RevisionRefusedError(table.name, reasons, total);
          tables[table.name] = plan.counts;
          if (plan.counts.added > 0) pending.push({ table, plan });
        } else {
          if (isFactRelation(input)) throw new Error(`${table.name}: reference rows come as an array`);
          const planned = await planReference(connection, table, files, input, batchId);
          tables[table.name] = planned.counts;
          if (planned.rows.length > 0) pending.push({ table, rows: planned.rows });
        }
      }
      const result = {
        batch_id: null,
        tables,
        rows_read: parsed.rows_read,
        rows_skipped: parsed.rows_skipped,
      };
      if (pending.length === 0) return result;
      await writeBatch(
        layout,
        connection,
        { id: batchId, collectorVersion: meta.collectorVersion },
        pending,
        meta,
      );
      return { ...result, batch_id: batchId };
    } finally {
      for (const plan of plans) await dropFactPlan(connection, plan.tables);
    }
  });
}

function createBatchId(sequence: number, meta: BatchMeta): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([meta.source, meta.files, meta.options, meta.now.toISOString()]))
    .digest('hex');
  return `${String(sequence).padStart(6, '0')}-${digest.slice(0, 12)}`;
}

async function planReference(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  input: readonly object[],
  batchId: string,
): Promise<{ rows: object[]; counts: TableCounts }> {
  const existing = await readReferenceHashes(connection, table, files);
  const keyColumn = table.key[0]!;
  const counts: TableCounts = { added: 0, unchanged: 0, backfilled: 0, corrected: 0 };
  const rows: object[] = [];
  const seen = new Set<string>();
  for (const row of input as Array<Record<string, unknown>>) {
    const key = String(row[keyColumn]);
    if (seen.has(key)) throw new Error(`duplicate ${table.name} key ${key} in one batch`);
    seen.add(key);
    const rowHash = hashCanonical(row);
    if (existing.get(key) === rowHash) {
      counts.unchanged += 1;
      continue;
    }
    counts.added += 1;
    rows.push({ ...row, batch_id: batchId, row_hash: rowHash });
  }
  return { rows, counts };
}

async function writeBatch(
  layout: StoreLayout,
  connection: DuckDBConnection,
  batch: { id: string; collectorVersion: string },
  pending: readonly Pending[],
  meta: BatchMeta,
): Promise<void> {
  const batchId = batch.id;
  rmSync(layout.batchStagingDir, { recursive: true, force: true });
  const staging = join(layout.batchStagingDir, batchId);
  mkdirSync(staging, { recursive: true });
  mkdirSync(layout.batchesDir, { recursive: true });
  const tables: Record<string, FileStats & { file: string }> = {};
  for (const entry of pending) {
    const { table } = entry;
    const scratch = await createScratchTable(connection, table);
    if ('plan' in entry) {
      const idPrefix = FACT_ID_PREFIX[table.name] ?? table.name;
      await fillPlannedFacts(connection, entry.plan, scratch, { ...batch, idPrefix });
    } else {
      await loadRows(connection, table, scratch, entry.rows, join(staging, `${table.name}.ndjson`));
    }
    const file = `${table.name}.parquet`;
    tables[table.name] = { file, ...(await copyToParquet(connection, table, scratch, join(staging, file))) };
  }
  const record: BatchRecord = {
    id: batchId,
    source: meta.source,
    created_at: formatTimestamp(meta.now),
    collector_version: meta.collectorVersion,
    files: meta.files,
    options: meta.options,
    tables,
  };
  writeFileSync(join(staging, 'batch.json'), `${JSON.stringify(record, null, 2)}\n`);
  fsyncPath(join(staging, 'batch.json'));
  fsyncPath(staging);
  renameDurably(staging, join(layout.batchesDir, batchId));
}

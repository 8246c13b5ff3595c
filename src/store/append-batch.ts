import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { formatTimestamp } from '../lib/zoned-time.ts';
import type { KnowledgeMethod, KnowledgeTime, ParsedBatch } from '../model/records.ts';
import {
  type BatchRecord,
  type InputFile,
  listBatches,
  listTableFiles,
  nextBatchSequence,
} from './batches.ts';
import { fsyncPath, renameDurably } from './durable-fs.ts';
import type { StoreLayout } from './layout.ts';
import { withStoreLock } from './lock.ts';
import { readReferenceHashes, readStoredFacts } from './read-store-state.ts';
import { hashCanonical, planRevisions } from './revisions.ts';
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

/** Per-table counts of one ingest. */
export interface TableCounts {
  added: number;
  unchanged: number;
  /** Of `added`: facts placed before knowledge the store already had (late vintages, backfills). */
  backfilled: number;
  /** Of `added`: calendar-stamped values that changed a stored value, restamped as corrections. */
  corrected: number;
}

/** An ingest would have back-dated or contradicted stored knowledge: nothing was written. */
export class RevisionRefusedError extends Error {
  readonly reasons: string[];

  constructor(table: string, reasons: string[]) {
    const more = reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : '';
    super(`${table}: ${reasons[0]}${more}`);
    this.name = 'RevisionRefusedError';
    this.reasons = reasons;
  }
}

/** The outcome of one ingest: the batch written (or null when nothing was new) and counts. */
export interface AppendResult {
  batch_id: string | null;
  tables: Record<string, TableCounts>;
  rows_read: number;
  rows_skipped: number;
}

const FACT_ID_PREFIX: Record<string, string> = { observations: 'obs', cot_reports: 'cot' };
const PROVENANCE_ONLY = new Set([
  'source_ref',
  'observed_at',
  'observed_at_method',
  'correction',
  'verification_status',
  'confidence',
  'data_class',
]);

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
    const pending: Array<{ table: TableDefinition; rows: object[] }> = [];
    for (const table of TABLES) {
      const input = (parsed as unknown as Record<string, object[] | undefined>)[table.name];
      if (!input || input.length === 0) continue;
      const files = listTableFiles(layout, batches, table.name);
      const planned =
        table.kind === 'fact'
          ? await planFacts(connection, table, files, input, batchId, meta.collectorVersion)
          : await planReference(connection, table, files, input, batchId);
      tables[table.name] = planned.counts;
      if (planned.rows.length > 0) pending.push({ table, rows: planned.rows });
    }
    const result = { batch_id: null, tables, rows_read: parsed.rows_read, rows_skipped: parsed.rows_skipped };
    if (pending.length === 0) return result;
    await writeBatch(layout, connection, batchId, pending, meta);
    return { ...result, batch_id: batchId };
  });
}

function createBatchId(sequence: number, meta: BatchMeta): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([meta.source, meta.files, meta.options, meta.now.toISOString()]))
    .digest('hex');
  return `${String(sequence).padStart(6, '0')}-${digest.slice(0, 12)}`;
}

async function planFacts(
  connection: DuckDBConnection,
  table: TableDefinition,
  files: readonly string[],
  input: readonly object[],
  batchId: string,
  collectorVersion: string,
): Promise<{ rows: object[]; counts: TableCounts }> {
  type Fact = Record<string, unknown> & {
    series_key: string;
    period: string;
    observed_at: string;
    observed_at_method: KnowledgeMethod;
    correction?: KnowledgeTime;
  };
  const facts = input as Fact[];
  const withHash: Fact[] =
    table.name === 'cot_reports'
      ? facts.map((fact) => ({ ...fact, content_hash: hashCanonical(contentOf(fact)) }))
      : facts;
  const fingerprintColumn = table.fingerprint?.[0] ?? 'id';
  const stored = await readStoredFacts(
    connection,
    table,
    files,
    withHash.map((f) => f.series_key),
  );
  const decisions = planRevisions(
    withHash.map((fact) => ({
      series_key: fact.series_key,
      period: fact.period,
      fingerprint: String(fact[fingerprintColumn]),
      observed_at: fact.observed_at,
      method: fact.observed_at_method,
      ...(fact.correction ? { correction: fact.correction } : {}),
    })),
    stored,
    FACT_ID_PREFIX[table.name] ?? table.name,
  );
  const counts: TableCounts = { added: 0, unchanged: 0, backfilled: 0, corrected: 0 };
  const refusals: string[] = [];
  const rows: object[] = [];
  decisions.forEach((decision, index) => {
    if (decision.kind === 'unchanged') {
      counts.unchanged += 1;
      return;
    }
    if (decision.kind === 'refused') {
      refusals.push(decision.reason);
      return;
    }
    counts.added += 1;
    if (decision.backfill) counts.backfilled += 1;
    if (decision.corrected) counts.corrected += 1;
    const { correction: _correction, ...fact } = withHash[index]!;
    // Chain fields depend on every record of the key, so publish derives them (publish.ts).
    rows.push({
      ...fact,
      id: decision.id,
      observed_at: decision.observed_at,
      observed_at_method: decision.method,
      revision_number: null,
      supersedes_id: null,
      collector_version: collectorVersion,
      batch_id: batchId,
    });
  });
  if (refusals.length > 0) throw new RevisionRefusedError(table.name, refusals);
  return { rows, counts };
}

function contentOf(fact: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fact).filter(([key]) => !PROVENANCE_ONLY.has(key)));
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
  batchId: string,
  pending: ReadonlyArray<{ table: TableDefinition; rows: object[] }>,
  meta: BatchMeta,
): Promise<void> {
  rmSync(layout.batchStagingDir, { recursive: true, force: true });
  const staging = join(layout.batchStagingDir, batchId);
  mkdirSync(staging, { recursive: true });
  mkdirSync(layout.batchesDir, { recursive: true });
  const tables: Record<string, FileStats & { file: string }> = {};
  for (const { table, rows } of pending) {
    const scratch = await createScratchTable(connection, table);
    await loadRows(connection, table, scratch, rows, join(staging, `${table.name}.ndjson`));
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

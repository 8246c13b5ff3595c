import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { latestAcceptedTime } from '../calendar/fact-release.ts';
import { fsyncPath, renameDurably } from '../lib/durable-fs.ts';
import { MmdsError } from '../lib/errors.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { listBatches } from './batches.ts';
import { publishedBatchIds, readBatchKnowledge } from './knowledge-ahead.ts';
import type { StoreLayout } from './layout.ts';
import { withStoreLock } from './lock.ts';

/** Options of `mmds store drop-unpublished`. */
export interface DropOptions {
  /** The first batch to drop; every batch after it goes too. */
  from: string;
  now: Date;
  /** Why, in the operator's words, for the audit line. */
  reason: string | null;
  /** Say what would be dropped, change nothing. */
  dryRun: boolean;
}

/** One batch dropped (or that a dry run would drop), with what is needed to ingest it again. */
export interface DroppedBatch {
  id: string;
  source: string;
  created_at: string;
  files: string[];
  options: Record<string, string>;
  /** Fact records it held, the latest knowledge time among them, and how many are after the clock. */
  records: number;
  latest_known: string | null;
  ahead_of_clock: number;
}

/** What `mmds store drop-unpublished` did. */
export interface DropResult {
  status: 'dropped' | 'dry-run';
  batches: DroppedBatch[];
  /** Where the dropped batch directories were moved, relative to the data directory. */
  moved_to: string | null;
  /** The audit log the line was appended to, relative to the data directory. */
  audit_file: string | null;
}

/** The drop would touch a published batch, or names no batch: nothing was changed. */
export class DropRefusedError extends MmdsError {
  constructor(message: string) {
    super('drop_refused', message);
    this.name = 'DropRefusedError';
  }
}

/**
 * Takes batch `from` and every batch after it out of the store, refusing if any of them is held
 * by a snapshot. The later batches go too because each ingest was compared with every batch
 * before it: kept, they could lack what that comparison found already stored. The batches are
 * moved (newest first, so the store's batches stay a prefix at every step) under
 * `store/dropped/`, never deleted, and one audit line names them, their files and options.
 */
export async function dropUnpublished(
  layout: StoreLayout,
  connection: DuckDBConnection,
  options: DropOptions,
): Promise<DropResult> {
  return withStoreLock(layout.lockFile, async () => {
    const batches = listBatches(layout);
    const index = batches.findIndex((batch) => batch.id === options.from);
    if (index === -1)
      throw new DropRefusedError(
        `no batch ${options.from} in the store; mmds verify and a refused publish name the batches to drop`,
      );
    const doomed = batches.slice(index);
    const published = publishedBatchIds(layout);
    const held = doomed.filter((batch) => published.has(batch.id));
    if (held.length > 0)
      throw new DropRefusedError(
        `batch ${held[0]!.id} is in a published snapshot, and published records never change: only ` +
          'batches ingested after the newest snapshot can be dropped; nothing was dropped',
      );
    const knowledge = new Map(
      (await readBatchKnowledge(connection, layout, doomed, latestAcceptedTime(options.now))).map((k) => [
        k.id,
        k,
      ]),
    );
    const described: DroppedBatch[] = doomed.map((batch) => {
      const known = knowledge.get(batch.id);
      return {
        id: batch.id,
        source: batch.source,
        created_at: batch.created_at,
        files: batch.files.map((file) => file.name),
        options: batch.options,
        records: known?.records ?? 0,
        latest_known: known?.latest ?? null,
        ahead_of_clock: known?.ahead ?? 0,
      };
    });
    if (options.dryRun) return { status: 'dry-run', batches: described, moved_to: null, audit_file: null };
    const at = formatTimestamp(options.now);
    const target = join(layout.droppedDir, `${at.replace(/[-:]/g, '')}-${options.from}`);
    mkdirSync(target, { recursive: true });
    for (const batch of [...doomed].reverse()) {
      renameDurably(join(layout.batchesDir, batch.id), join(target, batch.id));
    }
    const movedTo = relative(layout.dataDir, target);
    appendFileSync(
      layout.auditFile,
      `${JSON.stringify({ at, action: 'drop-unpublished', reason: options.reason, moved_to: movedTo, batches: described })}\n`,
    );
    fsyncPath(layout.auditFile);
    return {
      status: 'dropped',
      batches: described,
      moved_to: movedTo,
      audit_file: relative(layout.dataDir, layout.auditFile),
    };
  });
}

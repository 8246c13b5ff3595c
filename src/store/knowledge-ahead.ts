import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CLOCK_SKEW_SECONDS, latestAcceptedTime } from '../calendar/fact-release.ts';
import { quotedString, readRows } from '../db/duckdb.ts';
import { MmdsError } from '../lib/errors.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import type { Timestamp } from '../model/records.ts';
import type { BatchRecord } from './batches.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout } from './layout.ts';
import { readCurrentId, readManifest, type SnapshotManifest } from './manifest.ts';
import { TABLES } from './tables.ts';

/*
 * The rule that keeps a fast clock from wedging the store: a snapshot is dated at or after every
 * knowledge time it holds, and never before its parent. A publish at clock T dates its snapshot
 * max(T, the parent's date, the latest knowledge time) as long as that latest time is within the
 * clock-skew allowance of T; a record known later than that (an ingest under a clock that was
 * ahead, or a wrong --collected-at it could not tell from the truth) cannot be published yet, so
 * publish, ingest and verify name its batch and the way out: `mmds store drop-unpublished`.
 */

/** What one batch's fact records say about time: how many, the latest, and how many are ahead. */
export interface BatchKnowledge {
  id: string;
  source: string;
  /** When the batch was ingested, by the clock of that ingest. */
  created_at: Timestamp;
  records: number;
  latest: Timestamp;
  /** Records known after the limit asked about. */
  ahead: number;
  /** Whether any snapshot in the data directory holds the batch. */
  published: boolean;
}

/** The knowledge times of the store's batches against the clock a publish would date by. */
export interface KnowledgeAhead {
  /** The clock a publish would date by: max(now, the current snapshot's date). */
  clock: Timestamp;
  /** The latest knowledge time of any stored record; null when the store holds no facts. */
  latest: Timestamp | null;
  /** Batches holding records known after `clock` plus the skew allowance, oldest first. */
  batches: BatchKnowledge[];
}

/** The clock a publish dates a snapshot by: its own, but never earlier than the current snapshot. */
export function snapshotClock(now: Date, current: SnapshotManifest | null): Timestamp {
  const own = formatTimestamp(now);
  // Snapshot ids order by time (monotonic reads compare them: src/server/monotonic-read.ts).
  return current !== null && current.created_at > own ? current.created_at : own;
}

/** The current snapshot's manifest, or null when there is none or it cannot be read (verify says why). */
export function readCurrentManifest(layout: StoreLayout): SnapshotManifest | null {
  const id = readCurrentId(layout);
  try {
    return id === null ? null : readManifest(layout, id);
  } catch {
    return null;
  }
}

/** Ids of the batches some snapshot of the data directory holds (unreadable manifests are skipped). */
export function publishedBatchIds(layout: StoreLayout): Set<string> {
  const ids = new Set<string>();
  if (!existsSync(layout.snapshotsDir)) return ids;
  for (const name of readdirSync(layout.snapshotsDir)) {
    if (!SNAPSHOT_ID_PATTERN.test(name)) continue;
    try {
      for (const id of readManifest(layout, name).batches) ids.add(id);
    } catch {
      // verify reports an unreadable manifest; here it only cannot vouch for any batch.
    }
  }
  return ids;
}

/**
 * Reads, in one scan of the knowledge-time column per fact table, each batch's record count,
 * latest knowledge time and how many of its records are known after `limit`. Batches without
 * facts are left out.
 */
export async function readBatchKnowledge(
  connection: DuckDBConnection,
  layout: StoreLayout,
  batches: readonly BatchRecord[],
  limit: Timestamp,
): Promise<BatchKnowledge[]> {
  const published = publishedBatchIds(layout);
  const found = new Map<string, BatchKnowledge>();
  for (const table of TABLES.filter((t) => t.kind === 'fact')) {
    const files = new Map<string, BatchRecord>();
    for (const batch of batches) {
      const entry = batch.tables[table.name];
      if (entry) files.set(join(layout.batchesDir, batch.id, entry.file), batch);
    }
    if (files.size === 0) continue;
    const rows = await readRows<{ filename: string; records: number; latest: string; ahead: number }>(
      connection,
      `SELECT filename, count(*)::INTEGER AS records,
              strftime(max(observed_at), '%Y-%m-%dT%H:%M:%SZ') AS latest,
              (count(*) FILTER (WHERE observed_at > $limit::TIMESTAMP))::INTEGER AS ahead
         FROM read_parquet([${[...files.keys()].map(quotedString).join(', ')}], filename = true, union_by_name = true)
        GROUP BY filename`,
      { limit: limit.replace('Z', '') },
    );
    for (const row of rows) {
      const batch = files.get(row.filename);
      if (batch === undefined || row.latest === null) continue;
      const known = found.get(batch.id);
      if (known === undefined) {
        found.set(batch.id, {
          id: batch.id,
          source: batch.source,
          created_at: batch.created_at,
          records: row.records,
          latest: row.latest,
          ahead: row.ahead,
          published: published.has(batch.id),
        });
        continue;
      }
      known.records += row.records;
      known.ahead += row.ahead;
      if (row.latest > known.latest) known.latest = row.latest;
    }
  }
  return batches.flatMap((batch) => found.get(batch.id) ?? []);
}

/** Finds the records a publish at `clock` could not hold: known after it plus the skew allowance. */
export async function findKnowledgeAhead(
  connection: DuckDBConnection,
  layout: StoreLayout,
  batches: readonly BatchRecord[],
  clock: Timestamp,
): Promise<KnowledgeAhead> {
  const knowledge = await readBatchKnowledge(
    connection,
    layout,
    batches,
    latestAcceptedTime(new Date(clock)),
  );
  const latest = knowledge.reduce<Timestamp | null>(
    (max, batch) => (max === null || batch.latest > max ? batch.latest : max),
    null,
  );
  return { clock, latest, batches: knowledge.filter((batch) => batch.ahead > 0) };
}

/**
 * One line on the records known ahead of the clock: how many, in which batches, and the way out
 * (`mmds store drop-unpublished --from` the first unpublished one, then ingest again).
 */
export function describeKnowledgeAhead(found: KnowledgeAhead): string {
  const records = found.batches.reduce((sum, batch) => sum + batch.ahead, 0);
  const latest = found.batches
    .map((batch) => batch.latest)
    .sort()
    .at(-1);
  const where = found.batches
    .slice(0, 3)
    .map((b) => `${b.id} (${b.source}, ingested at ${b.created_at}${b.published ? ', published' : ''})`)
    .join(', ');
  const more = found.batches.length > 3 ? ` and ${found.batches.length - 3} more` : '';
  const unpublished = found.batches.find((batch) => !batch.published);
  const way =
    unpublished === undefined
      ? 'they are in a published snapshot, which cannot change: check the clock of the host that published it'
      : `if the clock or a --collected-at/--observed-at was wrong when they were ingested, run mmds store ` +
        `drop-unpublished --from ${unpublished.id} (it also drops the batches after it) and ingest those ` +
        `files again with the right times; else wait until ${latest}`;
  return (
    `${records} record(s) known after the clock (${found.clock}, allowing ${CLOCK_SKEW_SECONDS / 60} ` +
    `minutes of clock skew), the latest at ${latest}, in batch(es) ${where}${more}: no snapshot can hold ` +
    `them before then; ${way}`
  );
}

/** A publish or an ingest refused because the store holds records known ahead of the clock. */
export class KnowledgeAheadError extends MmdsError {
  readonly found: KnowledgeAhead;

  constructor(action: 'publish' | 'ingest', found: KnowledgeAhead) {
    const unchanged = action === 'publish' ? 'CURRENT is unchanged' : 'nothing was ingested';
    super('knowledge_ahead', `${action} refused: ${describeKnowledgeAhead(found)} (${unchanged})`);
    this.name = 'KnowledgeAheadError';
    this.found = found;
  }
}

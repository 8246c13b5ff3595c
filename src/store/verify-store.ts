import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { latestAcceptedTime } from '../calendar/fact-release.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import { type BatchRecord, listBatches } from './batches.ts';
import {
  describeKnowledgeAhead,
  findKnowledgeAhead,
  readCurrentManifest,
  snapshotClock,
} from './knowledge-ahead.ts';
import { SNAPSHOT_ID_PATTERN, type StoreLayout, snapshotDir } from './layout.ts';
import { readCurrentId, readManifest, type SnapshotManifest } from './manifest.ts';
import { verifySnapshotFiles } from './verify-files.ts';
import { type Problem, verifySnapshotContent } from './verify-snapshot.ts';
import { hashFile } from './write-parquet.ts';

/** What `mmds verify` looked at, and what it found. */
export interface StoreReport {
  batches: number;
  snapshots: number;
  current: string | null;
  problems: Problem[];
}

/**
 * Verifies the whole data directory at clock `now`: every batch file against its batch record,
 * that no batch holds records a publish now would refuse (known after the clock), every
 * snapshot's files against its manifest, and the current snapshot's content (revision chains,
 * knowledge times, rights, reference integrity).
 */
export async function verifyStore(
  layout: StoreLayout,
  connection: DuckDBConnection,
  now: Date,
): Promise<StoreReport> {
  const problems: Problem[] = [];
  const batches = listBatches(layout);
  const whole: BatchRecord[] = [];
  for (const batch of batches) {
    const before = problems.length;
    for (const [table, entry] of Object.entries(batch.tables)) {
      const file = join(layout.batchesDir, batch.id, entry.file);
      if (!existsSync(file)) {
        problems.push({
          severity: 'error',
          check: 'checksum',
          message: `batch ${batch.id}: ${table} file missing`,
        });
      } else if ((await hashFile(file)) !== entry.sha256) {
        problems.push({
          severity: 'error',
          check: 'checksum',
          message: `batch ${batch.id}: ${table} SHA-256 differs`,
        });
      }
    }
    if (problems.length === before) whole.push(batch);
  }
  problems.push(...(await checkClock(layout, connection, whole, now)));
  const snapshotIds = existsSync(layout.snapshotsDir)
    ? readdirSync(layout.snapshotsDir).filter((name) => SNAPSHOT_ID_PATTERN.test(name))
    : [];
  const current = readCurrentId(layout);
  if (current !== null && !snapshotIds.includes(current)) {
    problems.push({
      severity: 'error',
      check: 'checksum',
      message: `CURRENT names ${current}, which does not exist`,
    });
  }
  for (const id of snapshotIds.sort()) {
    const dir = snapshotDir(layout, id);
    let manifest: SnapshotManifest;
    try {
      manifest = readManifest(layout, id);
    } catch (error) {
      // One unreadable manifest is a finding like any other, not the end of the whole check.
      const reason = (error as Error).message.split('\n')[0];
      problems.push({
        severity: 'error',
        check: 'checksum',
        message: `${id}/manifest.json: unreadable (${reason})`,
      });
      continue;
    }
    const fileProblems = await verifySnapshotFiles(dir, manifest);
    problems.push(...fileProblems);
    if (id === current && fileProblems.length === 0) {
      problems.push(...(await verifySnapshotContent(connection, dir, manifest)));
    }
  }
  return { batches: batches.length, snapshots: snapshotIds.length, current, problems };
}

/**
 * What a publish at `now` would refuse (records known after the clock, with the way out), and a
 * current snapshot dated after the clock (published under a clock that was ahead: every later
 * snapshot is dated after it too).
 */
async function checkClock(
  layout: StoreLayout,
  connection: DuckDBConnection,
  batches: readonly BatchRecord[],
  now: Date,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  // An unreadable current manifest is reported with the snapshots; the clock is then `now` alone.
  const current = readCurrentManifest(layout);
  if (current !== null && current.created_at > latestAcceptedTime(now)) {
    problems.push({
      severity: 'warning',
      check: 'knowledge',
      message:
        `current snapshot ${current.id} is dated ${current.created_at}, after the clock (${formatTimestamp(now)}): ` +
        'if the clock was ahead when it was published, every later snapshot is dated after it too',
    });
  }
  const ahead = await findKnowledgeAhead(connection, layout, batches, snapshotClock(now, current));
  if (ahead.batches.length > 0) {
    problems.push({
      severity: 'error',
      check: 'knowledge',
      message: `a publish would refuse ${describeKnowledgeAhead(ahead)}`,
    });
  }
  return problems;
}

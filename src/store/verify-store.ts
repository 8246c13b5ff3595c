import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { listBatches } from './batches.ts';
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
 * Verifies the whole data directory: every batch file against its batch record, every
 * snapshot's files against its manifest, and the current snapshot's content (revision
 * chains, rights, reference integrity).
 */
export async function verifyStore(layout: StoreLayout, connection: DuckDBConnection): Promise<StoreReport> {
  const problems: Problem[] = [];
  const batches = listBatches(layout);
  for (const batch of batches) {
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
  }
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

import type { Command } from 'commander';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { writeSnapshotEvents } from '../../events/snapshot-events.ts';
import { isRedisUrl } from '../../lib/redis-url.ts';
import { listBatches } from '../../store/batches.ts';
import { resolveLayout, type StoreLayout } from '../../store/layout.ts';
import { type LogEnd, readLogEnd } from '../../store/object-store/bucket-log.ts';
import {
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreLocation,
  parseObjectStoreUrl,
} from '../../store/object-store/object-store.ts';
import { publishToStore, type StorePublishResult } from '../../store/object-store/publish-to-store.ts';
import { publishSnapshot } from '../../store/publish.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';
import { UsageError } from '../usage-error.ts';

/** Registers `mmds publish`. */
export function registerPublish(program: Command, getContext: () => CommandContext): void {
  program
    .command('publish')
    .description('make an immutable snapshot of the store, verify it, and switch CURRENT to it atomically')
    .option(
      '--keep <n>',
      'snapshots to keep besides the current one and its parent (default MMDS_KEEP_SNAPSHOTS or 5)',
    )
    .option(
      '--to <url>',
      'also commit the snapshot to an S3-compatible bucket, s3://bucket/prefix (default MMDS_SNAPSHOT_STORE)',
    )
    .addHelpText(
      'after',
      `
Writes the snapshot into data/snapshots/<id>/: each source's revisions in partitions of about
MMDS_PARTITION_ROWS (only the partitions new batches touched are written; the others are hard
links to the current snapshot's files), each reference table in one file, the derived "latest"
tables, and a manifest of checksums. It verifies the snapshot, then points CURRENT at it; a
running mmds serve switches to it within a second. Nothing new since the current snapshot:
nothing is written. Older snapshots beyond --keep are removed. DuckDB uses at most
MMDS_MEMORY_LIMIT and spills into data/tmp/duckdb past it.

A snapshot is dated by the clock, never before its parent nor before a knowledge time it holds
(one up to 5 minutes ahead of the clock dates it that much later). A record known later than that
(ingested under a clock that was ahead) is refused before anything is written, with one line
naming its batch and the way out: mmds store drop-unpublished --from <batch-id>.

With --to s3://bucket/prefix (or MMDS_SNAPSHOT_STORE) the local publish is unchanged, then the
snapshot's files the bucket lacks are uploaded as objects/<sha256>, then its manifest, and the
snapshot is committed by creating the next log/<seq>.json only if no one else has: a concurrent
publisher that took that number first makes this one exit 1 with one line (run it again). An
unreadable log entry is passed over with one warning: the commit takes the number after it.
Endpoint and keys: AWS_ENDPOINT_URL_S3 (path-style), AWS_REGION, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY. With MMDS_STORAGE=redis://… it then publishes one message on that Redis,
so that the mmds serve --from instances switch at once; Redis down is a warning (committed).

Examples:
  mmds publish
  mmds publish --keep 10 --json
  mmds publish --to s3://mmds-snapshots/prod`,
    )
    .action(async (flags: { keep?: string; to?: string }) => {
      const context = getContext();
      const keep = flags.keep === undefined ? context.config.keepSnapshots : Number(flags.keep);
      if (!Number.isInteger(keep) || keep < 1)
        throw new UsageError(`--keep must be a whole number >= 1, got "${flags.keep}"`);
      const target = flags.to ?? context.config.snapshotStore;
      let location: ObjectStoreLocation | null = null;
      try {
        location = target === null ? null : parseObjectStoreUrl(target);
      } catch (error) {
        throw new UsageError(
          `${flags.to === undefined ? 'MMDS_SNAPSHOT_STORE' : '--to'}: ${(error as Error).message}`,
        );
      }
      const layout = resolveLayout(context.config.dataDir);
      if (listBatches(layout).length === 0)
        throw new ReportedFailure(
          `nothing to publish: the store in ${context.config.dataDir} is empty; run mmds ingest first (or check MMDS_DATA_DIR)`,
        );
      // The bucket is opened, and its log's end read, before the local publish: an unreachable
      // bucket fails in a second, and the commit goes after what was there when this began.
      const remote = location === null ? null : await openRemote(location, context);
      const db = await openDuckDb(pipelineDuckDbOptions(context.config));
      try {
        context.reporter.progress('publishing: writing and verifying the snapshot…');
        const result = await withConnection(db, (connection) =>
          publishSnapshot(layout, connection, {
            now: context.now(),
            pipelineVersion: PIPELINE_VERSION,
            keep,
            partitionRows: context.config.partitionRows,
            snapshotEvents: writeSnapshotEvents,
          }),
        );
        for (const warning of result.warnings) context.reporter.warn(warning.message);
        const stored =
          remote === null ? null : await commitRemote(remote, layout, result.snapshot_id, context);
        if (remote !== null && stored?.status === 'committed') await wakeFollowers(remote, stored, context);
        context.reporter.result(stored === null ? result : { ...result, store: stored });
        const rows = Object.entries(result.tables)
          .filter(([, n]) => n > 0)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ');
        context.reporter.line(
          result.status === 'unchanged'
            ? `nothing new since snapshot ${result.snapshot_id}; CURRENT unchanged`
            : `published snapshot ${result.snapshot_id} (${rows})${result.pruned.length ? `; pruned ${result.pruned.length}` : ''}`,
        );
        if (remote !== null && stored !== null)
          context.reporter.line(describeStored(remote.store.url, stored));
      } finally {
        db.closeSync();
        remote?.store.close();
      }
    });
}

/** The bucket and its log's end when this publish began. */
interface Remote {
  store: ObjectStore;
  base: LogEnd;
}

async function openRemote(location: ObjectStoreLocation, context: CommandContext): Promise<Remote> {
  // The SDK is loaded only by a publish that uses it.
  const { openS3Store } = await import('../../store/object-store/s3-store.ts');
  const store = openS3Store(location, context.config.s3);
  try {
    return { store, base: await readLogEnd(store) };
  } catch (error) {
    store.close();
    // The bucket's failures keep their kind, which decides the exit code (69 or 78).
    if (error instanceof ObjectStoreError) throw error;
    throw new ReportedFailure((error as Error).message);
  }
}

async function commitRemote(
  remote: Remote,
  layout: StoreLayout,
  snapshotId: string,
  context: CommandContext,
): Promise<StorePublishResult> {
  // A garbage entry (written by hand, or by a broken tool) is never replaced: the log is
  // create-only. Followers skip it too; the operator only needs to know it is there.
  for (const bad of remote.base.unreadable)
    context.reporter.warn(
      `${bad.message}: passed over (followers skip it too); the next commit is log entry ${remote.base.seq + 1}`,
    );
  context.reporter.progress(`committing snapshot ${snapshotId} to ${remote.store.url}…`);
  // Another publisher first is a LostCommitError: exit 1 with its line (lib/errors.ts, lost_commit).
  return await publishToStore(remote.store, layout, snapshotId, remote.base, context.now());
}

/**
 * Tells the `mmds serve --from` instances of the bucket about the commit through the Redis they
 * share (MMDS_STORAGE), so they switch now rather than at their next poll. The snapshot is
 * committed whatever Redis does: an unreachable Redis is one warning, and the instances find the
 * commit at their next poll.
 */
async function wakeFollowers(
  remote: Remote,
  stored: StorePublishResult,
  context: CommandContext,
): Promise<void> {
  if (!isRedisUrl(context.config.storage)) return;
  const { announceCommit } = await import('../../store/object-store/commit-wake.ts');
  try {
    await announceCommit(context.config.storage, remote.store.url, {
      seq: stored.seq,
      snapshot_id: stored.snapshot_id,
    });
  } catch (error) {
    context.reporter.warn(
      `committed log entry ${stored.seq}, but could not tell the followers: ${(error as Error).message}; ` +
        'they will find it at their next poll (MMDS_SNAPSHOT_POLL_MS)',
    );
  }
}

function describeStored(url: string, stored: StorePublishResult): string {
  if (stored.status === 'already')
    return `${url}: log entry ${stored.seq} already names snapshot ${stored.snapshot_id}; nothing uploaded`;
  return (
    `committed snapshot ${stored.snapshot_id} to ${url} as log entry ${stored.seq} ` +
    `(uploaded ${stored.uploaded.files} file(s), ${stored.uploaded.bytes} bytes; ${stored.skipped} already there)`
  );
}

/**
 * The publish step of `mmds publish` and `mmds update`: where the snapshot also goes (`--to` or
 * MMDS_SNAPSHOT_STORE), the bucket opened before anything is written, the local publish with the
 * settings both commands honour (MMDS_PARTITION_ROWS), then the commit to the bucket and the
 * wake-up of its followers. The commands keep their own output lines; this step prints only
 * progress and warnings.
 */
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../db/duckdb.ts';
import { writeSnapshotEvents } from '../events/snapshot-events.ts';
import { isRedisUrl } from '../lib/redis-url.ts';
import type { StoreLayout } from '../store/layout.ts';
import { type LogEnd, readLogEnd } from '../store/object-store/bucket-log.ts';
import {
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreLocation,
  parseObjectStoreUrl,
} from '../store/object-store/object-store.ts';
import { publishToStore, type StorePublishResult } from '../store/object-store/publish-to-store.ts';
import { type PublishResult, publishSnapshot } from '../store/publish.ts';
import { PIPELINE_VERSION } from '../version.ts';
import type { CommandContext } from './context.ts';
import { ReportedFailure } from './reported-failure.ts';
import { UsageError } from './usage-error.ts';

/** The bucket a publish commits to, and its log's end when the command began. */
export interface Remote {
  store: ObjectStore;
  base: LogEnd;
}

/** What one publish step did: the local publish, and the commit (null: no bucket). */
export interface PublishStepResult {
  published: PublishResult;
  stored: StorePublishResult | null;
}

/**
 * Where the snapshot also goes: `to` (a command's `--to`) when given, else MMDS_SNAPSHOT_STORE;
 * null: the data directory only. A location that does not parse is a usage error naming where it
 * came from (exit 2), found before anything is opened.
 */
export function snapshotStoreLocation(context: CommandContext, to?: string): ObjectStoreLocation | null {
  const target = to ?? context.config.snapshotStore;
  try {
    return target === null ? null : parseObjectStoreUrl(target);
  } catch (error) {
    throw new UsageError(`${to === undefined ? 'MMDS_SNAPSHOT_STORE' : '--to'}: ${(error as Error).message}`);
  }
}

/**
 * Runs `work` with the bucket at `location` open and its log's end read (null location: no
 * bucket), and closes it after. The bucket is opened first, so that an unreachable one fails in a
 * second, before the command writes anything, and the commit goes after what was there when the
 * command began.
 */
export async function withRemote<T>(
  location: ObjectStoreLocation | null,
  context: CommandContext,
  work: (remote: Remote | null) => Promise<T>,
): Promise<T> {
  const remote = location === null ? null : await openRemote(location, context);
  try {
    return await work(remote);
  } finally {
    remote?.store.close();
  }
}

/**
 * Publishes the store locally (partitions of about MMDS_PARTITION_ROWS, `keep` older snapshots),
 * then, with a bucket, commits the snapshot to it unless its log's newest entry already names it,
 * and tells the followers of a new commit. Local warnings are printed as they come.
 */
export async function publishStep(
  context: CommandContext,
  layout: StoreLayout,
  remote: Remote | null,
  keep: number,
): Promise<PublishStepResult> {
  const db = await openDuckDb(pipelineDuckDbOptions(context.config));
  let published: PublishResult;
  try {
    context.reporter.progress('publishing: writing and verifying the snapshot…');
    published = await withConnection(db, (connection) =>
      publishSnapshot(layout, connection, {
        now: context.now(),
        pipelineVersion: PIPELINE_VERSION,
        keep,
        partitionRows: context.config.partitionRows,
        snapshotEvents: writeSnapshotEvents,
      }),
    );
  } finally {
    db.closeSync();
  }
  for (const warning of published.warnings) context.reporter.warn(warning.message);
  if (remote === null) return { published, stored: null };
  const stored = await commitRemote(remote, layout, published.snapshot_id, context);
  if (stored.status === 'committed') await wakeFollowers(remote, stored, context);
  return { published, stored };
}

/** The line that says what the commit did. */
export function describeStored(url: string, stored: StorePublishResult): string {
  if (stored.status === 'already')
    return `${url}: log entry ${stored.seq} already names snapshot ${stored.snapshot_id}; nothing uploaded`;
  return (
    `committed snapshot ${stored.snapshot_id} to ${url} as log entry ${stored.seq} ` +
    `(uploaded ${stored.uploaded.files} file(s), ${stored.uploaded.bytes} bytes; ${stored.skipped} already there)`
  );
}

async function openRemote(location: ObjectStoreLocation, context: CommandContext): Promise<Remote> {
  // The SDK is loaded only by a command that uses it.
  const { openS3Store } = await import('../store/object-store/s3-store.ts');
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
  const { announceCommit } = await import('../store/object-store/commit-wake.ts');
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

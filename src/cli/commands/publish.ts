import type { Command } from 'commander';
import { listBatches } from '../../store/batches.ts';
import { resolveLayout } from '../../store/layout.ts';
import type { CommandContext } from '../context.ts';
import { describeStored, publishStep, snapshotStoreLocation, withRemote } from '../publish-step.ts';
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
      const location = snapshotStoreLocation(context, flags.to);
      const layout = resolveLayout(context.config.dataDir);
      if (listBatches(layout).length === 0)
        throw new ReportedFailure(
          `nothing to publish: the store in ${context.config.dataDir} is empty; run mmds ingest first (or check MMDS_DATA_DIR)`,
        );
      await withRemote(location, context, async (remote) => {
        const { published: result, stored } = await publishStep(context, layout, remote, keep);
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
      });
    });
}

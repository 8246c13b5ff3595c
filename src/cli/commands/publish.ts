import type { Command } from 'commander';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { listBatches } from '../../store/batches.ts';
import { resolveLayout } from '../../store/layout.ts';
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

Examples:
  mmds publish
  mmds publish --keep 10 --json`,
    )
    .action(async (flags: { keep?: string }) => {
      const context = getContext();
      const keep = flags.keep === undefined ? context.config.keepSnapshots : Number(flags.keep);
      if (!Number.isInteger(keep) || keep < 1)
        throw new UsageError(`--keep must be a whole number >= 1, got "${flags.keep}"`);
      const layout = resolveLayout(context.config.dataDir);
      if (listBatches(layout).length === 0)
        throw new ReportedFailure(
          `nothing to publish: the store in ${context.config.dataDir} is empty; run mmds ingest first (or check MMDS_DATA_DIR)`,
        );
      const db = await openDuckDb(pipelineDuckDbOptions(context.config));
      try {
        context.reporter.progress('publishing: writing and verifying the snapshot…');
        const result = await withConnection(db, (connection) =>
          publishSnapshot(layout, connection, {
            now: context.now(),
            pipelineVersion: PIPELINE_VERSION,
            keep,
            partitionRows: context.config.partitionRows,
          }),
        );
        for (const warning of result.warnings) context.reporter.warn(warning.message);
        context.reporter.result(result);
        const rows = Object.entries(result.tables)
          .filter(([, n]) => n > 0)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ');
        context.reporter.line(
          result.status === 'unchanged'
            ? `nothing new since snapshot ${result.snapshot_id}; CURRENT unchanged`
            : `published snapshot ${result.snapshot_id} (${rows})${result.pruned.length ? `; pruned ${result.pruned.length}` : ''}`,
        );
      } finally {
        db.closeSync();
      }
    });
}

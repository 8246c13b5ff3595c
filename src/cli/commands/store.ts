import type { Command } from 'commander';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { type DropResult, dropUnpublished } from '../../store/drop-unpublished.ts';
import { BATCH_ID_PATTERN, resolveLayout } from '../../store/layout.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';

/** Registers `mmds store drop-unpublished`. */
export function registerStore(program: Command, getContext: () => CommandContext): void {
  const store = program
    .command('store')
    .description('repair the store: take out batches no snapshot holds yet (with an audit line)')
    .addHelpText(
      'after',
      `
Examples:
  mmds store drop-unpublished --from 000007-3f2a9c1b04de --dry-run
  mmds store drop-unpublished --from 000007-3f2a9c1b04de --reason "host clock was 400 days ahead"`,
    );

  store
    .command('drop-unpublished')
    .description('move a batch no snapshot holds, and every batch after it, out of the store')
    .requiredOption(
      '--from <batch-id>',
      'the first batch to drop (as mmds verify or a refused publish names it)',
    )
    .option('--reason <text>', 'why, for the audit line (e.g. "host clock was ahead")')
    .option('--dry-run', 'list what would be dropped and change nothing')
    .addHelpText(
      'after',
      `
The way out when an ingest stored records a publish must refuse: records known after the clock
(the ingest ran under a clock that was ahead, or with a wrong --collected-at or --observed-at).
mmds publish, mmds ingest and mmds verify name the first such batch. This moves that batch and
every batch after it (each ingest was compared with the batches before it, so the later ones go
too) into data/store/dropped/<time>-<batch-id>/, newest first, and appends one JSON line to
data/store/audit.ndjson naming each batch, its source, files, options and latest knowledge
time. Nothing is deleted. Then ingest those files again with the right times and publish.

Refused (exit 1, nothing changed) when a batch named is held by any snapshot: published
records never change.

Examples:
  mmds store drop-unpublished --from 000007-3f2a9c1b04de --dry-run
  mmds store drop-unpublished --from 000007-3f2a9c1b04de --reason "host clock was ahead"
  mmds --json store drop-unpublished --from 000007-3f2a9c1b04de`,
    )
    .action(async (flags: { from: string; reason?: string; dryRun?: boolean }) => {
      const context = getContext();
      if (!BATCH_ID_PATTERN.test(flags.from))
        throw new UsageError(`--from must be a batch id such as 000007-3f2a9c1b04de, got "${flags.from}"`);
      const db = await openDuckDb(pipelineDuckDbOptions(context.config));
      let result: DropResult;
      try {
        result = await withConnection(db, (connection) =>
          dropUnpublished(resolveLayout(context.config.dataDir), connection, {
            from: flags.from,
            now: context.now(),
            reason: flags.reason ?? null,
            dryRun: flags.dryRun === true,
          }),
        );
      } finally {
        db.closeSync();
      }
      context.reporter.result(result);
      for (const batch of result.batches) {
        const options = Object.entries(batch.options).map(([name, value]) => ` ${name}=${value}`);
        context.reporter.line(
          `${result.status === 'dropped' ? 'dropped' : 'would drop'} batch ${batch.id} (${batch.source}, ` +
            `ingested at ${batch.created_at}; ${batch.records} record(s), latest known ${batch.latest_known ?? 'none'}, ` +
            `${batch.ahead_of_clock} after the clock): files ${batch.files.join(', ') || 'none'}${options.join('')}`,
        );
      }
      context.reporter.line(
        result.status === 'dropped'
          ? `dropped ${result.batches.length} batch(es) into ${result.moved_to}; audit line in ${result.audit_file}; ` +
              'ingest those files again with the right times, then publish'
          : `dry run: nothing changed; ${result.batches.length} batch(es) would be dropped`,
      );
    });
}

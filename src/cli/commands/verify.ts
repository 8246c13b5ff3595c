import type { Command } from 'commander';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { resolveLayout } from '../../store/layout.ts';
import { verifyStore } from '../../store/verify-store.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';

/** Registers `mmds verify`. */
export function registerVerify(program: Command, getContext: () => CommandContext): void {
  program
    .command('verify')
    .description(
      'check batches and snapshots: checksums, revision chains, knowledge times, rights, references',
    )
    .addHelpText(
      'after',
      `
Reads every batch and snapshot of MMDS_DATA_DIR and checks file checksums, that revision chains
are whole (revision 1, 2, ... each superseding the one before), that no knowledge time is before
its release or after the snapshot was created, that no batch holds records a publish now would
refuse (known after the clock: the error names the batch and mmds store drop-unpublished), that
every series belongs to a catalog source with a rights class, and that codes refer to the
reference lists. Prints each problem and a summary; exits 1 when it finds an error (warnings alone
exit 0). Changes nothing.

Examples:
  mmds verify
  mmds verify --json`,
    )
    .action(async () => {
      const context = getContext();
      const db = await openDuckDb(pipelineDuckDbOptions(context.config));
      try {
        context.reporter.progress('verifying…');
        const report = await withConnection(db, (connection) =>
          verifyStore(resolveLayout(context.config.dataDir), connection, context.now()),
        );
        // An empty or wrong directory must not pass as "0 errors" (a misspelt MMDS_DATA_DIR).
        if (report.batches === 0 && report.snapshots === 0)
          throw new ReportedFailure(
            `nothing to verify: ${context.config.dataDir} holds no batches and no snapshots; check MMDS_DATA_DIR, or run mmds ingest first`,
          );
        context.reporter.result(report);
        for (const problem of report.problems) {
          context.reporter.line(`${problem.severity}: ${problem.check}: ${problem.message}`);
        }
        const errors = report.problems.filter((p) => p.severity === 'error').length;
        context.reporter.line(
          `verified ${report.batches} batch(es), ${report.snapshots} snapshot(s), current ${report.current ?? 'none'}: ` +
            `${errors} error(s), ${report.problems.length - errors} warning(s)`,
        );
        // The last line a person reads: it says where the fix of each error is, not only how many.
        if (errors > 0) throw new ReportedFailure(verifyFailure(errors));
      } finally {
        db.closeSync();
      }
    });
}

/** The one line verify fails with. */
function verifyFailure(errors: number): string {
  return `verify found ${errors} error(s): each error line names its check and the batch or snapshot; fix each as docs/operations.md ("Snapshots and reloads") says, then run mmds verify again`;
}

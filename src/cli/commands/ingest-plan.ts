import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../ingest/input-error.ts';
import { RevisionRefusedError } from '../../model/revision-refused.ts';
import type { AppendResult } from '../../store/append-batch.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';
import { UsageError } from '../usage-error.ts';
import { describeIngest, ingestFiles } from './ingest.ts';

const STEP = z
  .object({
    source: z.string(),
    files: z.array(z.string()).min(1),
    observed_at: z.string().optional(),
    collected_at: z.string().optional(),
    series: z.string().optional(),
    vintage: z.string().optional(),
  })
  .strict();
const PLAN = z.array(STEP).min(1);
const STEP_SHAPE = '{source, files: [...], observed_at?, collected_at?, series?, vintage?}';

/** One ingest of a plan file. */
export type PlanStep = z.infer<typeof STEP>;

/** Reads a plan file: a JSON array of ingest steps with paths relative to the file. */
export function readPlan(file: string): PlanStep[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`${file}: not a readable JSON plan (${reason})`);
  }
  const parsed = PLAN.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [index, ...field] = issue.path;
    const where =
      typeof index === 'number' ? `step ${index + 1}${field.length ? ` ${field.join('.')}` : ''}` : 'plan';
    throw new UsageError(
      `${file}: ${where}: ${issue.message}; a plan is a JSON array of steps ${STEP_SHAPE}`,
    );
  }
  return parsed.data;
}

/**
 * Ingests every step of a plan in order and returns each step's result; the same plan again
 * adds nothing. A failing step leaves the store as the steps before it left it.
 */
export async function ingestPlan(
  context: CommandContext,
  file: string,
): Promise<Array<{ source: string } & AppendResult>> {
  const base = dirname(resolve(file));
  const steps = readPlan(file);
  const results: Array<{ source: string } & AppendResult> = [];
  for (const [index, step] of steps.entries()) {
    const count = { done: index, total: steps.length };
    // The step's own phases keep the plan's bar on a terminal.
    const reporter = {
      ...context.reporter,
      progress: (message: string) => context.reporter.progress(message, count),
    };
    let result: AppendResult;
    try {
      result = await ingestFiles(
        { ...context, reporter },
        {
          source: step.source,
          files: step.files.map((f) => resolve(base, f)),
          options: {
            observedAt: step.observed_at,
            collectedAt: step.collected_at,
            series: step.series,
            vintage: step.vintage,
          },
        },
      );
    } catch (error) {
      if (
        !(error instanceof InputError || error instanceof UsageError || error instanceof RevisionRefusedError)
      )
        throw error;
      throw new ReportedFailure(
        `step ${index + 1} of ${steps.length} (${step.source}): ${error.message}; this step stored nothing and ` +
          `${index} earlier step(s) are stored: fix it and run the plan again (stored steps add nothing twice)`,
      );
    }
    context.reporter.line(describeIngest(step.source, result));
    results.push({ source: step.source, ...result });
  }
  return results;
}

/** Registers `mmds ingest-plan`. */
export function registerIngestPlan(program: Command, getContext: () => CommandContext): void {
  program
    .command('ingest-plan')
    .description(`ingest the steps of a plan file, a JSON array of ${STEP_SHAPE}, in order`)
    .argument('<plan>', 'plan file; paths in it are relative to the file')
    .addHelpText(
      'after',
      `
Each step is one mmds ingest: source, files, and the flags --observed-at, --collected-at,
--series and --vintage as observed_at, collected_at, series and vintage. Prints one summary line per step and a
total; with --json one document {steps: [...], rows_read, records_added, batches}.

Example plan:
  [{"source": "catalog", "files": ["catalog.yaml"]},
   {"source": "ecb", "files": ["ecb/eurofxref-hist.csv"]}]

Examples:
  mmds ingest-plan data/sample/pipeline.json
  mmds --json ingest-plan plan.json`,
    )
    .action(async (plan: string) => {
      const context = getContext();
      const steps = await ingestPlan(context, plan);
      const added = steps.reduce(
        (sum, step) => sum + Object.values(step.tables).reduce((n, table) => n + table.added, 0),
        0,
      );
      const total = {
        steps,
        rows_read: steps.reduce((sum, step) => sum + step.rows_read, 0),
        records_added: added,
        batches: steps.flatMap((step) => (step.batch_id ? [step.batch_id] : [])),
      };
      context.reporter.result(total);
      context.reporter.line(
        `ingest-plan: ${steps.length} step(s), read ${total.rows_read} rows, added ${added} records in ${total.batches.length} batch(es)`,
      );
    });
}

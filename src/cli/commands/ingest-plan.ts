import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';
import { ingestFiles, reportIngest } from './ingest.ts';

const STEP = z
  .object({
    source: z.string(),
    files: z.array(z.string()).min(1),
    observed_at: z.string().optional(),
    series: z.string().optional(),
    vintage: z.string().optional(),
    sample: z.boolean().optional(),
  })
  .strict();
const PLAN = z.array(STEP).min(1);

/** One ingest of a plan file. */
export type PlanStep = z.infer<typeof STEP>;

/** Reads a plan file: a JSON array of ingest steps with paths relative to the file. */
export function readPlan(file: string): PlanStep[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file}: not a readable JSON plan (${(error as Error).message})`);
  }
  const parsed = PLAN.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${file}: step ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Ingests every step of a plan in order; the same plan again adds nothing. */
export async function ingestPlan(context: CommandContext, file: string): Promise<void> {
  const base = dirname(resolve(file));
  for (const step of readPlan(file)) {
    const result = await ingestFiles(context, {
      source: step.source,
      files: step.files.map((f) => resolve(base, f)),
      options: {
        observedAt: step.observed_at,
        series: step.series,
        vintage: step.vintage,
        sample: step.sample,
      },
    });
    reportIngest(context, step.source, result);
  }
}

/** Registers `mmds ingest-plan`. */
export function registerIngestPlan(program: Command, getContext: () => CommandContext): void {
  program
    .command('ingest-plan')
    .description(
      'ingest the steps of a plan file (JSON array of {source, files, observed_at?, series?, vintage?}) in order',
    )
    .argument('<plan>', 'plan file; paths in it are relative to the file')
    .addHelpText('after', '\nExamples:\n  mmds ingest-plan data/sample/pipeline.json')
    .action(async (plan: string) => ingestPlan(getContext(), plan));
}

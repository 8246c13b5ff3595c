import type { Command } from 'commander';
import type { CommandContext } from '../context.ts';
import { type FetchOutcome, fetchAndIngest } from '../fetch-and-ingest.ts';
import { FETCHABLE_SOURCES, findFetchableSource } from '../fetch-sources.ts';
import { UsageError } from '../usage-error.ts';
import { describeIngest } from './ingest.ts';

/** Flags of `mmds fetch`. */
interface FetchCommandFlags {
  baseUrl?: string;
  report?: string;
  combined?: boolean;
  year?: string;
  since?: string;
  series?: string[];
}

/** One line per ingest, and a closing line when nothing was new. */
export function describeFetch(outcome: FetchOutcome): string[] {
  const lines = outcome.ingests.map((ingest) => describeIngest(ingest.source, ingest.result));
  if (outcome.unchanged.length > 0)
    lines.push(
      `${outcome.source}: ${outcome.unchanged.length} file(s) unchanged at the publisher, not fetched again`,
    );
  if (outcome.ingests.length === 0 && outcome.unchanged.length === 0)
    lines.push(`${outcome.source}: nothing to fetch`);
  return lines;
}

/** Registers `mmds fetch`. */
export function registerFetch(program: Command, getContext: () => CommandContext): void {
  const ids = FETCHABLE_SOURCES.map((source) => source.id);
  program
    .command('fetch')
    .description("download a source's files from its publisher, then ingest them")
    .argument('<source>', `one of: ${ids.join(', ')}`)
    .option('--base-url <url>', "the publisher's root (default: the official one, or MMDS_<SOURCE>_BASE_URL)")
    .option('--report <type>', 'cftc: legacy, disaggregated, tff, cit or all (default all)')
    .option('--combined', 'cftc: futures-and-options combined instead of futures only')
    .option('--year <YYYY>', 'cftc: one year')
    .option('--since <YYYY>', 'cftc: every year from this one on (backfill); bls: first year asked for')
    .option('--series <ids...>', 'bls: series ids (default: the catalog); fred: FREDID=series.key pairs')
    .addHelpText(
      'after',
      `
Downloads into a temporary directory under MMDS_DATA_DIR, ingests exactly as mmds ingest would
(knowledge times from the release calendars; the retrieval time dates corrections), records each
file's URL, retrieval time and SHA-256 in the batch, and removes the download. Retries on 5xx and
time-outs; asks with If-None-Match / If-Modified-Since, so a file unchanged since its last ingest
is neither downloaded nor ingested again. A failed or truncated download leaves the store as it
was. Run mmds publish afterwards (mmds update does all of it).

Sources:
${FETCHABLE_SOURCES.map((source) => `  ${source.id.padEnd(10)} ${source.summary}`).join('\n')}

Examples:
  mmds fetch ecb
  mmds fetch cftc --report legacy --since 2020
  mmds fetch cftc --combined --year 2025
  mmds fetch bls --series CES0000000001 LNS14000000
  mmds fetch fred --series PAYEMS=bls.CES0000000001
  mmds fetch iso4217 --base-url http://mirror.internal/iso4217/ --json`,
    )
    .action(async (id: string, flags: FetchCommandFlags) => {
      const context = getContext();
      const source = findFetchableSource(id);
      if (!source) throw new UsageError(`cannot fetch "${id}"; fetchable sources: ${ids.join(', ')}`);
      const { baseUrl, ...sourceFlags } = flags;
      const outcome = await fetchAndIngest(context, source, {
        flags: sourceFlags,
        ...(baseUrl !== undefined ? { baseUrl } : {}),
      });
      context.reporter.result(outcome);
      for (const line of describeFetch(outcome)) context.reporter.line(line);
    });
}

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Command } from 'commander';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../../calendar/load-calendars.ts';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { assertKnowledgeBounds, futureTimeProblem } from '../../ingest/knowledge-bounds.ts';
import { type IngestOptions, memberName } from '../../ingest/source.ts';
import { findSource, SOURCES } from '../../ingest/sources.ts';
import { type AppendResult, appendBatch } from '../../store/append-batch.ts';
import { type FileOrigin, type InputFile, listBatches } from '../../store/batches.ts';
import {
  findKnowledgeAhead,
  KnowledgeAheadError,
  publishedBatchIds,
  readCurrentManifest,
  snapshotClock,
} from '../../store/knowledge-ahead.ts';
import { resolveLayout, type StoreLayout } from '../../store/layout.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { UsageError } from '../usage-error.ts';

/** What to ingest: a source, its files and the flags a parser may use. */
export interface IngestRequest {
  source: string;
  files: readonly string[];
  options: IngestOptions;
  /** Where fetched files came from (by local path), for the batch's provenance. */
  origins?: ReadonlyMap<string, FileOrigin>;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses source files and appends what is new to the store; the whole of `mmds ingest`. */
export async function ingestFiles(context: CommandContext, request: IngestRequest): Promise<AppendResult> {
  const source = findSource(request.source);
  if (!source) {
    throw new UsageError(`unknown source "${request.source}"; known: ${SOURCES.map((s) => s.id).join(', ')}`);
  }
  assertOptions(request.options, context.now());
  const files = request.files.map((file) => resolve(file));
  for (const file of files) {
    if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
  }
  const layout = resolveLayout(context.config.dataDir);
  const db = await openDuckDb(pipelineDuckDbOptions(context.config));
  try {
    return await withConnection(db, async (connection) => {
      await assertNothingAhead(connection, layout, context.now());
      context.reporter.progress(`${source.id}: reading ${files.length} file(s)…`);
      const calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
      const parsed = await source.parse(files, {
        connection,
        now: context.now,
        options: request.options,
        calendars,
        collectedAt: request.options.collectedAt ?? null,
        archiveMembers: archiveMembers(request.origins),
      });
      await assertKnowledgeBounds(connection, parsed, calendars, context.now());
      context.reporter.progress(`${source.id}: comparing with the store and writing a batch…`);
      return appendBatch(layout, connection, parsed, {
        source: source.id,
        files: files.map((file) => describeFile(file, request.origins?.get(file))),
        options: Object.fromEntries(Object.entries(request.options).filter(([, v]) => v !== undefined)),
        collectorVersion: `mmds/${PIPELINE_VERSION} ${source.id}`,
        now: context.now(),
      });
    });
  } finally {
    db.closeSync();
  }
}

/**
 * Refuses to ingest beside unpublished records a publish would refuse (an earlier ingest under a
 * clock that was ahead): compared against them, what this file says could come out as "nothing
 * new", and the store would stay unpublishable without saying why.
 */
async function assertNothingAhead(
  connection: DuckDBConnection,
  layout: StoreLayout,
  now: Date,
): Promise<void> {
  const published = publishedBatchIds(layout);
  const unpublished = listBatches(layout).filter((batch) => !published.has(batch.id));
  if (unpublished.length === 0) return;
  const clock = snapshotClock(now, readCurrentManifest(layout));
  const found = await findKnowledgeAhead(connection, layout, unpublished, clock);
  if (found.batches.length > 0) throw new KnowledgeAheadError('ingest', found);
}

function assertOptions(options: IngestOptions, now: Date): void {
  if (options.observedAt !== undefined && !TIMESTAMP.test(options.observedAt)) {
    throw new UsageError(
      `--observed-at must be a UTC timestamp YYYY-MM-DDTHH:MM:SSZ, got "${options.observedAt}"`,
    );
  }
  if (options.collectedAt !== undefined && !TIMESTAMP.test(options.collectedAt)) {
    throw new UsageError(
      `--collected-at must be a UTC timestamp YYYY-MM-DDTHH:MM:SSZ, got "${options.collectedAt}"`,
    );
  }
  for (const [flag, value] of [
    ['--observed-at', options.observedAt],
    ['--collected-at', options.collectedAt],
  ] as const) {
    const problem = value === undefined ? null : futureTimeProblem(flag, value, now);
    if (problem !== null) throw new UsageError(problem);
  }
  if (options.vintage !== undefined && !DATE.test(options.vintage)) {
    throw new UsageError(`--vintage must be a date YYYY-MM-DD, got "${options.vintage}"`);
  }
}

/** The fetched files that are members of a downloaded archive, by resolved path: `<archive>!<member>`. */
function archiveMembers(origins: ReadonlyMap<string, FileOrigin> | undefined): Map<string, string> {
  const members = new Map<string, string>();
  for (const [file, origin] of origins ?? []) {
    if (origin.member !== null)
      members.set(resolve(file), memberName(new URL(origin.url).pathname, origin.member));
  }
  return members;
}

function describeFile(file: string, origin: FileOrigin | undefined): InputFile {
  const fetched = origin ? { origin } : {};
  if (!statSync(file).isFile()) return { name: basename(file), sha256: null, bytes: null, ...fetched };
  const content = readFileSync(file);
  return {
    name: basename(file),
    sha256: createHash('sha256').update(content).digest('hex'),
    bytes: content.length,
    ...fetched,
  };
}

/** One line about an ingest: rows read and skipped, records added per table, the batch written. */
export function describeIngest(source: string, result: AppendResult): string {
  const tables = Object.entries(result.tables)
    .map(([name, c]) => {
      const notes = [
        `unchanged ${c.unchanged}`,
        ...(c.backfilled ? [`backfilled ${c.backfilled}`] : []),
        ...(c.corrected ? [`corrections ${c.corrected}`] : []),
      ];
      return `${name} +${c.added} (${notes.join(', ')})`;
    })
    .join('; ');
  return (
    `${source}: read ${result.rows_read} rows, skipped ${result.rows_skipped} missing; ${tables || 'no records'}; ` +
    (result.batch_id ? `batch ${result.batch_id}` : 'nothing new, store unchanged')
  );
}

/** Prints the summary of an ingest. */
export function reportIngest(context: CommandContext, source: string, result: AppendResult): void {
  context.reporter.result({ source, ...result });
  context.reporter.line(describeIngest(source, result));
}

/** Registers `mmds ingest`. */
export function registerIngest(program: Command, getContext: () => CommandContext): void {
  program
    .command('ingest')
    .description("parse a source's files, in the publisher's own format, into the store")
    .argument('<source>', `one of: ${SOURCES.map((s) => s.id).join(', ')}`)
    .argument('<file...>', 'files (or, for research, directories) to read')
    .option('--observed-at <timestamp>', 'knowledge time of every value, UTC (YYYY-MM-DDTHH:MM:SSZ)')
    .option(
      '--collected-at <timestamp>',
      'when the files were retrieved, UTC: dates corrections and values no calendar covers',
    )
    .option('--series <key>', 'series key to file the values under (fred)')
    .option('--vintage <date>', 'vintage date of a FRED/ALFRED download (fred)')
    .addHelpText(
      'after',
      `
Reads the files whole; if any row is malformed nothing is stored and the error names the file and
line. Values already in the store with the same content add nothing; a changed value becomes a
new revision, placed by its knowledge time. Knowledge times come from the publishers' release
calendars (data/calendars/); a value that changes one already stored is a correction and needs
to know when the file was retrieved: --collected-at (mmds fetch records it itself), as does a
BLS API file of a series a later release can revise (a value collected after such a release is
known from it, method later_release). A knowledge or collection time before a value's release,
a correction not later than the value it corrects, or a time more than 5 minutes ahead of the
clock is refused, naming the release. So is any ingest while the store holds unpublished records
known after the clock (an earlier ingest under a clock that was ahead): the line names the batch
and mmds store drop-unpublished. Prints a summary: rows read, records added per table, the batch
written. Run mmds publish afterwards to make the data visible.

Sources:
${SOURCES.map((s) => `  ${s.id.padEnd(10)} ${s.description}`).join('\n')}

Examples:
  mmds ingest ecb eurofxref-hist.csv
  mmds ingest cftc annual.txt FinFutYY.txt
  mmds ingest cftc fut_disagg_txt_2017.zip   (a CFTC zip: its members are read)
  mmds ingest fred PAYEMS.csv --series bls.CES0000000001 --vintage 2025-08-02
  mmds ingest bls response.json --collected-at 2026-01-09T14:05:00Z
  mmds ingest research notes/ --json`,
    )
    .action(
      async (
        source: string,
        files: string[],
        flags: {
          observedAt?: string;
          collectedAt?: string;
          series?: string;
          vintage?: string;
        },
      ) => {
        const context = getContext();
        const result = await ingestFiles(context, { source, files, options: flags });
        reportIngest(context, source, result);
      },
    );
}

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import pLimit from 'p-limit';
import { runStaticBuild } from '../../build/run-static-build.ts';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../../calendar/load-calendars.ts';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../../db/duckdb.ts';
import { formatTimestamp } from '../../lib/zoned-time.ts';
import { listBatches } from '../../store/batches.ts';
import { resolveLayout } from '../../store/layout.ts';
import { withStoreLock } from '../../store/lock.ts';
import type { StorePublishResult } from '../../store/object-store/publish-to-store.ts';
import { readStoreSummary } from '../../store/read-store-summary.ts';
import { type DueDecision, decideDue } from '../../update/due-sources.ts';
import { readUpdateState, recordAttempt, UPDATE_STATE_FILE } from '../../update/update-state.ts';
import { PIPELINE_VERSION } from '../../version.ts';
import type { CommandContext } from '../context.ts';
import { type FetchOutcome, fetchAndIngest } from '../fetch-and-ingest.ts';
import { FETCHABLE_SOURCES, findFetchableSource } from '../fetch-sources.ts';
import {
  describeStored,
  publishStep,
  type Remote,
  snapshotStoreLocation,
  withRemote,
} from '../publish-step.ts';
import { ExitStatus, ReportedFailure } from '../reported-failure.ts';
import { UsageError } from '../usage-error.ts';
import { describeFetch } from './fetch.ts';

/** The project root, where astro.config.mjs and src/pages live. */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Exit status when the run found nothing new (a scheduler can treat it as success). */
export const EXIT_NOTHING_NEW = 3;

/**
 * Sources downloaded at once. Each has its own publisher, so side by side no host sees more than
 * one client; four bound the memory of the large downloads (a COT archive, the ECB history).
 */
export const UPDATE_CONCURRENCY = 4;

/** Flags of `mmds update`. */
interface UpdateFlags {
  dryRun?: boolean;
  force?: boolean;
  source?: string[];
  build?: boolean;
}

/** One source's line in the report: whether it was due, and what its fetch came to. */
type SourceReport = DueDecision & {
  /** `due`/`not_due` in a dry run or for a source not fetched; `fetched` or `failed` after a fetch. */
  result: 'due' | 'not_due' | 'fetched' | 'failed';
  outcome?: FetchOutcome;
  error?: string;
  /** Wall-clock seconds its fetch and ingest took. */
  seconds?: number;
};

/** What one run did, per source and in all. */
interface UpdateReport {
  status: 'updated' | 'nothing_new' | 'failed';
  sources: SourceReport[];
  snapshot: string | null;
  published: boolean;
  built: boolean;
  failed: string[];
  /** Wall-clock seconds the fetches took together (0 when none was due). */
  fetch_seconds: number;
  /** With MMDS_SNAPSHOT_STORE: what the commit to the bucket did (as `mmds publish --json`). */
  store?: StorePublishResult;
}

/** Registers `mmds update`. */
export function registerUpdate(program: Command, getContext: () => CommandContext): void {
  program
    .command('update')
    .description('fetch every source that is due, ingest, publish if anything changed, rebuild dist/')
    .option('--dry-run', 'list what is due and why; fetch nothing')
    .option('--force', 'fetch every source, due or not')
    .option('--source <ids...>', `only these sources (${FETCHABLE_SOURCES.map((s) => s.id).join(', ')})`)
    .option('--no-build', 'publish but do not rebuild dist/')
    .addHelpText(
      'after',
      `
One command for a cron job or a systemd timer (docs/operations.md). A source is due when its
publisher has released something since its last fetch, by the release calendars (data/calendars/)
and the catalog: COT reports after the CFTC's release, ECB rates after about 16:00 Frankfurt,
BLS/FRED after a release of a catalogued series' program; reference lists weekly. Each due source
is fetched and ingested on its own, ${UPDATE_CONCURRENCY} downloads at a time (ingests one at a time): one that
fails is reported in one line and never blocks the others or leaves anything half-written. An
error no retry can mend (a host name that does not resolve, a refused connection, a blocked port,
an HTTP 4xx other than 408/429) fails its source at once; with every publisher unreachable the
run ends within seconds, and says how long the fetches took. Then a snapshot is published if the store holds anything new (also
what an earlier run or a manual ingest left unpublished) and dist/ is rebuilt if it is behind.
Two runs never overlap (a lock in MMDS_DATA_DIR).

The publish is mmds publish's: partitions of about MMDS_PARTITION_ROWS, and with
MMDS_SNAPSHOT_STORE=s3://bucket/prefix the current snapshot is then committed to the bucket unless
its log already names it (also one an earlier run published but did not commit). The bucket is
opened before anything is fetched: unreachable, it ends the run at once (exit 69), nothing written.

Exit status: 0 updated (a new snapshot, or one committed to the bucket), ${EXIT_NOTHING_NEW} nothing new, 1 a
source failed (its name and error on stderr, a failed download included; the others were still
updated and published) or another publisher committed first, 2 a bad MMDS_SNAPSHOT_STORE, 69 the
bucket failed, 75 another run holds the lock, 78 bad configuration (mmds --help lists every code).

Examples:
  mmds update --dry-run
  mmds update
  mmds update --source cftc ecb --json
  mmds update --force --no-build`,
    )
    .action(async (flags: UpdateFlags) => {
      const context = getContext();
      const layout = resolveLayout(context.config.dataDir);
      const lock = join(context.config.dataDir, 'update.lock');
      const report = await withStoreLock(lock, () => runUpdate(context, layout, flags));
      context.reporter.result(report);
      if (report.status === 'failed') {
        throw new ReportedFailure(
          `update: failed: ${report.failed.join(', ')} (${report.failed.length} of ${countFetched(report)} sources in ${report.fetch_seconds.toFixed(1)} s; see the lines above)`,
        );
      }
      if (report.status === 'nothing_new' && !flags.dryRun)
        throw new ExitStatus(EXIT_NOTHING_NEW, 'nothing new');
    });
}

async function runUpdate(
  context: CommandContext,
  layout: ReturnType<typeof resolveLayout>,
  flags: UpdateFlags,
): Promise<UpdateReport> {
  const ids = flags.source ?? FETCHABLE_SOURCES.map((source) => source.id);
  for (const id of ids) {
    if (!findFetchableSource(id)) throw new UsageError(`unknown source "${id}" in --source`);
  }
  const location = snapshotStoreLocation(context);
  const stateFile = join(context.config.dataDir, UPDATE_STATE_FILE);
  const state = readUpdateState(stateFile);
  const decisions = await decide(context, layout, ids, state, flags.force === true);
  const report: UpdateReport = {
    status: 'nothing_new',
    sources: decisions.map((decision) => ({ ...decision, result: decision.due ? 'due' : 'not_due' })),
    snapshot: null,
    published: false,
    built: false,
    failed: [],
    fetch_seconds: 0,
  };
  const listDecisions = () => {
    for (const decision of decisions)
      context.reporter.line(`${decision.source}: ${decision.due ? 'due' : 'not due'} (${decision.reason})`);
  };
  if (flags.dryRun) {
    listDecisions();
    return report;
  }
  // A dry run touches no bucket. With MMDS_SNAPSHOT_STORE the bucket is opened, and its log's end read, before anything is
  // fetched: an unreachable bucket ends the run in a second with nothing written.
  return await withRemote(location, context, async (remote) => {
    listDecisions();
    await fetchDue(context, report, stateFile, state);
    // Always: publish, commit and build are no-ops when up to date, and they catch up after a run
    // that ingested but failed to publish, commit or build (its sources are no longer due).
    if (listBatches(layout).length > 0)
      await publishAndBuild(context, layout, report, remote, flags.build !== false);
    const changed = report.published || report.store?.status === 'committed' || report.built;
    report.status = report.failed.length > 0 ? 'failed' : changed ? 'updated' : 'nothing_new';
    if (report.status === 'nothing_new')
      context.reporter.line('update: nothing new; snapshot and dist/ unchanged');
    return report;
  });
}

/** Fetches and ingests the due sources of `report`, recording each attempt in the state file. */
async function fetchDue(
  context: CommandContext,
  report: UpdateReport,
  stateFile: string,
  state: ReturnType<typeof readUpdateState>,
): Promise<void> {
  const due = report.sources.filter((entry) => entry.due);
  if (due.length === 0) return;
  const started = performance.now();
  const downloads = pLimit(UPDATE_CONCURRENCY);
  const storeWork = pLimit(1);
  const exclusive = <T>(work: () => Promise<T>) => storeWork(work);
  // Each attempt is recorded as it ends (synchronous writes of one shared state), so a run
  // killed halfway still remembers the sources it finished.
  const record = (source: string, at: string, error: string | null) =>
    recordAttempt(stateFile, state, source, at, error);
  await Promise.all(due.map((entry) => downloads(() => updateSource(context, entry, exclusive, record))));
  report.fetch_seconds = seconds(performance.now() - started);
  report.failed = due.filter((entry) => entry.result === 'failed').map((entry) => entry.source);
  context.reporter.line(
    `update: fetched ${due.length - report.failed.length} of ${due.length} due sources in ${report.fetch_seconds.toFixed(1)} s${report.failed.length > 0 ? `, ${report.failed.length} failed` : ''}`,
  );
}

/**
 * Fetches and ingests one due source, recording what came of it on its entry: a failure is its
 * one warning line and never reaches the other sources.
 */
async function updateSource(
  context: CommandContext,
  entry: SourceReport,
  exclusive: <T>(work: () => Promise<T>) => Promise<T>,
  record: (source: string, at: string, error: string | null) => void,
): Promise<void> {
  const source = findFetchableSource(entry.source)!;
  const at = formatTimestamp(context.now());
  const started = performance.now();
  try {
    entry.outcome = await fetchAndIngest(context, source, { flags: {}, exclusive });
    entry.result = 'fetched';
    record(entry.source, at, null);
    for (const line of describeFetch(entry.outcome)) context.reporter.line(line);
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
    entry.result = 'failed';
    record(entry.source, at, entry.error);
    context.reporter.warn(`${entry.source}: failed: ${entry.error}`);
  } finally {
    entry.seconds = seconds(performance.now() - started);
  }
}

/** Milliseconds as seconds to a tenth, as printed. */
function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function countFetched(report: UpdateReport): number {
  return report.sources.filter((entry) => entry.result === 'fetched' || entry.result === 'failed').length;
}

async function decide(
  context: CommandContext,
  layout: ReturnType<typeof resolveLayout>,
  ids: readonly string[],
  state: ReturnType<typeof readUpdateState>,
  force: boolean,
): Promise<DueDecision[]> {
  const db = await openDuckDb(pipelineDuckDbOptions(context.config));
  try {
    return await withConnection(db, async (connection) => {
      const calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
      const summary = await readStoreSummary(layout, connection);
      const unavailable: Record<string, string> = {};
      if (context.config.fredApiKey === null) unavailable.fred = 'skipped: MMDS_FRED_API_KEY is not set';
      else if (summary.fredSeries.length === 0) unavailable.fred = 'skipped: no catalog series has a fred_id';
      if (summary.blsSeries.length === 0) unavailable.bls = 'skipped: no bls series in the catalog';
      const decisions = decideDue(ids, { now: context.now(), summary, state, calendars, unavailable });
      return force
        ? decisions.map((d) =>
            unavailable[d.source] ? d : { ...d, due: true, reason: `--force (${d.reason})` },
          )
        : decisions;
    });
  } finally {
    db.closeSync();
  }
}

async function publishAndBuild(
  context: CommandContext,
  layout: ReturnType<typeof resolveLayout>,
  report: UpdateReport,
  remote: Remote | null,
  build: boolean,
): Promise<void> {
  // The publish step of mmds publish: MMDS_PARTITION_ROWS, then the commit to MMDS_SNAPSHOT_STORE
  // unless the bucket's log already names the snapshot (a failed commit ends the run, before the
  // build; the next run commits it).
  const { published, stored } = await publishStep(context, layout, remote, context.config.keepSnapshots);
  report.snapshot = published.snapshot_id;
  report.published = published.status === 'published';
  if (report.published) context.reporter.line(`published snapshot ${published.snapshot_id}`);
  if (remote !== null && stored !== null) {
    report.store = stored;
    context.reporter.line(describeStored(remote.store.url, stored));
  }
  if (!build || report.snapshot === null) return;
  const result = await runStaticBuild({
    layout,
    snapshotId: report.snapshot,
    root: PROJECT_ROOT,
    outDir: resolve(context.config.distDir),
    now: context.now(),
    pipelineVersion: PIPELINE_VERSION,
    progress: (message, count) => context.reporter.progress(message, count),
  });
  report.built = result.status === 'built';
  if (report.built)
    context.reporter.line(`built dist/ for snapshot ${result.snapshot}: ${result.files} files`);
}

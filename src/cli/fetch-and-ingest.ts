import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../calendar/load-calendars.ts';
import { baseUrlSetting } from '../config/load-config.ts';
import { openDuckDb, pipelineDuckDbOptions, withConnection } from '../db/duckdb.ts';
import { nameMirrorSetting } from '../fetch/fetch-error.ts';
import { FETCH_STATE_FILE, openFetchState } from '../fetch/fetch-state.ts';
import { createHttpOptions } from '../fetch/http-options.ts';
import type { FetchedFile, FetchResult, HttpOptions } from '../fetch/types.ts';
import type { AppendResult } from '../store/append-batch.ts';
import type { FileOrigin } from '../store/batches.ts';
import { resolveLayout } from '../store/layout.ts';
import { readStoreSummary } from '../store/read-store-summary.ts';
import { ingestFiles } from './commands/ingest.ts';
import type { CommandContext } from './context.ts';
import type { FetchableSource, FetchFlags } from './fetch-sources.ts';
import { UsageError } from './usage-error.ts';

/** What one fetch of one source did. */
export interface FetchOutcome {
  source: string;
  base_url: string;
  /** One entry per ingest of downloaded files (a COT zip, the BLS responses, …). */
  ingests: Array<{ source: string; files: string[]; result: AppendResult }>;
  /** URLs the publisher said were unchanged since the last ingest. */
  unchanged: string[];
  notices: string[];
}

/** Options of one fetch beyond the source's own flags. */
export interface FetchAndIngestOptions {
  flags: FetchFlags;
  /** --base-url; else MMDS_<SOURCE>_BASE_URL; else the publisher's official root. */
  baseUrl?: string;
  /** Overrides of the HTTP behaviour (tests make back-off short). */
  http?: Partial<HttpOptions>;
  /**
   * Runs the work that reads or writes the store. `mmds update` passes a one-at-a-time queue, so
   * sources download side by side while their ingests never overlap; alone, it runs at once.
   */
  exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Downloads a source's files from its publisher and ingests them, one ingest per downloaded
 * set, each recorded with the files' URLs, retrieval time and checksums. The conditional-GET
 * validators of a file are remembered only after its ingest succeeded, so a failed ingest is
 * retried in full next time. Downloads go to a temporary directory that is always removed.
 */
export async function fetchAndIngest(
  context: CommandContext,
  source: FetchableSource,
  options: FetchAndIngestOptions,
): Promise<FetchOutcome> {
  const base = options.baseUrl ?? context.config.baseUrls[source.id] ?? source.fetcher.defaultBaseUrl;
  if (!/^https?:\/\//.test(base)) throw new UsageError(`--base-url must be an http(s) URL, got "${base}"`);
  const baseUrl = base.endsWith('/') ? base : `${base}/`;
  const layout = resolveLayout(context.config.dataDir);
  const exclusive = options.exclusive ?? ((work) => work());
  const fetcherOptions = await exclusive(() => readFetcherOptions(context, source, options.flags, layout));
  mkdirSync(context.config.dataDir, { recursive: true });
  const workDir = mkdtempSync(join(context.config.dataDir, '.download-'));
  const state = openFetchState(join(context.config.dataDir, FETCH_STATE_FILE));
  try {
    const fetched: FetchResult = await source.fetcher.fetch(
      {
        baseUrl,
        workDir,
        state,
        now: context.now,
        http: createHttpOptions({ ...context.config.fetch, ...options.http }),
        progress: (message) => context.reporter.progress(`${source.id}: ${message}`),
      },
      fetcherOptions,
    );
    const outcome: FetchOutcome = {
      source: source.id,
      base_url: baseUrl,
      ingests: [],
      unchanged: fetched.unchanged,
      notices: fetched.notices,
    };
    for (const notice of fetched.notices) context.reporter.warn(`${source.id}: ${notice}`);
    await exclusive(async () => {
      for (const ingest of fetched.ingests) {
        const result = await ingestFiles(context, {
          source: ingest.source,
          files: ingest.files.map((file) => file.path),
          options: { ...ingest.options, collectedAt: latestRetrieval(ingest.files) },
          origins: new Map(ingest.files.map((file) => [file.path, originOf(file)])),
        });
        state.commit(ingest.files);
        outcome.ingests.push({ source: ingest.source, files: ingest.files.map((file) => file.url), result });
      }
    });
    return outcome;
  } catch (error) {
    // The hint names how this run chose its root: the flag if given, else the source's setting.
    nameMirrorSetting(error, options.baseUrl !== undefined ? '--base-url' : baseUrlSetting(source.id));
    throw error;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function readFetcherOptions(
  context: CommandContext,
  source: FetchableSource,
  flags: FetchFlags,
  layout: ReturnType<typeof resolveLayout>,
): Promise<unknown> {
  const db = await openDuckDb(pipelineDuckDbOptions(context.config));
  try {
    return await withConnection(db, async (connection) => {
      const calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
      const summary = await readStoreSummary(layout, connection);
      return source.options({ flags, config: context.config, summary, calendars, now: context.now() });
    });
  } finally {
    db.closeSync();
  }
}

/** The files of one ingest were all known by the last of their retrievals. */
function latestRetrieval(files: readonly FetchedFile[]): string {
  // RFC 3339 UTC strings of one format sort as their instants do.
  return files
    .map((file) => file.retrieved_at)
    .sort()
    .at(-1)!;
}

function originOf(file: FetchedFile): FileOrigin {
  return {
    url: file.url,
    retrieved_at: file.retrieved_at,
    member: file.member,
    download_sha256: file.sha256,
    download_bytes: file.bytes,
  };
}

import { basename } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Calendars } from '../calendar/types.ts';
import type { CotScope, ParsedBatch, RecordBatch, Timestamp } from '../model/records.ts';

/** Flags of `mmds ingest` that a parser may use. */
export interface IngestOptions {
  /** Overrides the knowledge time of every fact in the files (RFC 3339 UTC). */
  observedAt?: Timestamp;
  /** When the files were retrieved (RFC 3339 UTC); `mmds fetch` sets it. */
  collectedAt?: Timestamp;
  /** Series key to file the values under (FRED downloads). */
  series?: string;
  /** Vintage date `YYYY-MM-DD` of a FRED/ALFRED download. */
  vintage?: string;
  /**
   * CFTC: the scope of files that cannot say it themselves (the legacy combined file has the
   * very header of the futures-only one); the CFTC's own file names are recognised without it.
   */
  scope?: CotScope;
}

/** What a parser gets besides its files: a DuckDB connection, the clock and the calendars. */
export interface IngestContext {
  connection: DuckDBConnection;
  /** The clock (batch ids, messages); never a knowledge time by itself. */
  now: () => Date;
  options: IngestOptions;
  /** Release calendars for knowledge times (src/calendar). */
  calendars: Calendars;
  /**
   * When the files were collected: the retrieval time of `mmds fetch`, or `--collected-at`.
   * Null for a local file of unknown age: then no knowledge time may be taken from the clock.
   */
  collectedAt: Timestamp | null;
  /**
   * Files that are members of a publisher's archive, unpacked before the parser sees them (by
   * `mmds fetch`), by local path: the name their facts cite (memberName).
   */
  archiveMembers?: ReadonlyMap<string, string>;
}

/**
 * How a fact cites an archive's member in `source_ref` (`fut_disagg_txt_2019.zip!f_year.txt`,
 * then `:<line>` or `#<locator>`): a member's own name does not say which year's archive it was.
 */
export function memberName(archive: string, member: string): string {
  return `${basename(archive)}!${member}`;
}

/** The name a file's facts cite in `source_ref`: its own, or `<archive>!<member>` for an archive's member. */
export function citedName(file: string, context: IngestContext): string {
  return context.archiveMembers?.get(file) ?? basename(file);
}

/**
 * One source format family: reads the publisher's own files into typed records, held in
 * JavaScript (small inputs) or as relations on the context's connection (large tabular ones).
 */
export interface Source<B extends ParsedBatch = ParsedBatch> {
  id: string;
  /** One line for `mmds ingest --help`. */
  description: string;
  /** Parses the files; throws InputError naming file and line on bad input. */
  parse(files: readonly string[], context: IngestContext): Promise<B>;
}

/** Returns an empty batch, for parsers to fill. */
export function createEmptyBatch(): RecordBatch {
  return { rows_read: 0, rows_skipped: 0 };
}

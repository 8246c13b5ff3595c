import type { DuckDBConnection } from '@duckdb/node-api';
import type { ParsedBatch, Timestamp } from '../model/records.ts';

/** Flags of `mmds ingest` that a parser may use. */
export interface IngestOptions {
  /** Overrides the knowledge time of every fact in the files (RFC 3339 UTC). */
  observedAt?: Timestamp;
  /** Series key to file the values under (FRED downloads). */
  series?: string;
  /** Vintage date `YYYY-MM-DD` of a FRED/ALFRED download. */
  vintage?: string;
  /**
   * The files hold invented sample values in the publisher's format (the demo data): facts are
   * stored as unverified with a `sample:` source_ref, whatever the format suggests.
   */
  sample?: boolean;
}

/** What a parser gets besides its files: a DuckDB connection for CSV reading, and the clock. */
export interface IngestContext {
  connection: DuckDBConnection;
  /** The clock; `observed_at` falls back to it when a publication time is unknown. */
  now: () => Date;
  options: IngestOptions;
}

/** Where `mmds fetch` downloads a source's current files from. */
export interface FetchPlan {
  /** The publisher's official base address (overridable with --base-url). */
  defaultBaseUrl: string;
  /** File names relative to the base address; `.zip` files are unpacked to their single member. */
  files: readonly string[];
}

/** One source format family: reads the publisher's own files into typed records. */
export interface Source {
  id: string;
  /** One line for `mmds ingest --help`. */
  description: string;
  /** Parses the files; throws InputError naming file and line on bad input. */
  parse(files: readonly string[], context: IngestContext): Promise<ParsedBatch>;
  fetch?: FetchPlan;
}

/** Returns an empty batch, for parsers to fill. */
export function createEmptyBatch(): ParsedBatch {
  return { rows_read: 0, rows_skipped: 0 };
}

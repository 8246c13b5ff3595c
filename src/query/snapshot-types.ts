/** The shape of an open snapshot (snapshot-db.ts opens one, snapshot-pool.ts runs its queries). */
import type { SqlParams } from '../db/duckdb.ts';
import { MmdsError } from '../lib/errors.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { SnapshotManifest } from '../store/manifest.ts';

/** Options for opening a snapshot for reading. */
export interface OpenSnapshotOptions {
  /** Connections, one per in-flight query (STACK: DuckDB connections are not for sharing). */
  poolSize?: number;
  /** Deadline of one query; past it the query is interrupted and the caller gets QueryTimeoutError. */
  queryTimeoutMs?: number;
  threads?: number;
  /** DuckDB memory_limit of the instance (default 1GB, as MMDS_MEMORY_LIMIT). */
  memoryLimit?: string;
  /**
   * Bytes of series revisions kept in memory for point-in-time pages (revision-cache.ts; default
   * DEFAULT_REVISION_CACHE_MB, as MMDS_REVISION_CACHE_MB); 0 reads every page with DuckDB.
   */
  revisionCacheBytes?: number;
  /**
   * Reads every table once at open, so that a damaged file is refused then, not in a request
   * (default true). The server passes false: it checks every file's checksum as it opens.
   */
  touchFiles?: boolean;
}

/** A query ran past its deadline and was interrupted. */
export class QueryTimeoutError extends MmdsError {
  constructor(ms: number) {
    super('query_timeout', `query exceeded its ${ms} ms deadline`);
    this.name = 'QueryTimeoutError';
  }
}

/** A read-only view of one published snapshot: views over its Parquet files, a connection pool. */
export interface SnapshotDb {
  readonly id: string;
  readonly manifest: SnapshotManifest;
  /** The store the snapshot was opened from (the change feed reads other snapshots' manifests). */
  readonly layout: StoreLayout;
  /** The budget of the snapshot's revision cache in bytes (0: none; see revision-cache.ts). */
  readonly revisionCacheBytes: number;
  /** Runs a read statement with bound values on a pooled connection (prepared once per connection). */
  query<T extends object>(sql: string, params?: SqlParams): Promise<T[]>;
  /**
   * The relation to read one series' facts from: the view over the one partition file that
   * holds every revision of the series (a lookup reads one file's statistics, not every
   * file's), or the whole table when no partition can hold it. Use it `AS <table>`.
   */
  factRelation(table: FactTable, seriesKey: string): string;
  /**
   * Keeps the snapshot open for a piece of work that runs several queries (a request), even if
   * it is retired meanwhile; call the returned function once the work is done.
   */
  lease(): () => void;
  /** Waits for leases and queries in flight, then closes the instance; later queries fail. */
  close(): Promise<void>;
  /** Settings that must hold once the views exist (asserted at server start). */
  readSecuritySettings(): Promise<{ enable_external_access: boolean; lock_configuration: boolean }>;
}

/** The fact tables, partitioned by series key. */
export type FactTable = 'observations' | 'cot_reports' | 'cot_report_columns';

/** One partition's range and the view over its file. */
export interface PartitionView {
  lower: string | null;
  upper: string | null;
  view: string;
}

/** Partition views of one fact table by source, each source's in key order. */
export type PartitionIndex = Map<string, PartitionView[]>;

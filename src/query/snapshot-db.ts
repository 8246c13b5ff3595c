import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import {
  execute,
  openDuckDb,
  quotedIdentifier,
  quotedString,
  readRows,
  type SqlParams,
} from '../db/duckdb.ts';
import { MmdsError } from '../lib/errors.ts';
import { DERIVED_TABLES } from '../store/derived-tables.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readManifest, SCHEMA_VERSION, type SnapshotManifest } from '../store/manifest.ts';
import { relationOf } from '../store/partitions.ts';
import { TABLES } from '../store/tables.ts';
import { createSeriesRights } from './derived-tables.ts';
import { DEFAULT_REVISION_CACHE_MB } from './revision-cache.ts';

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
interface PartitionView {
  lower: string | null;
  upper: string | null;
  view: string;
}

/** Partition views of one fact table by source, each source's in key order. */
type PartitionIndex = Map<string, PartitionView[]>;

interface PooledConnection {
  connection: DuckDBConnection;
  prepared: Map<string, DuckDBPreparedStatement>;
  /** The statement of a query that ran past its deadline: interrupted, but maybe still running. */
  abandoned?: Promise<unknown>;
}

/**
 * Opens a snapshot: one DuckDB instance whose views read the snapshot's Parquet files; file
 * access is then limited to exactly those files and the configuration is locked, so no query
 * can read, write or attach anything else.
 */
export async function openSnapshotDb(
  layout: StoreLayout,
  snapshotId: string,
  options: OpenSnapshotOptions = {},
): Promise<SnapshotDb> {
  const manifest = readManifest(layout, snapshotId);
  const dir = snapshotDir(layout, snapshotId);
  const instance = await openDuckDb({
    threads: options.threads ?? 2,
    memoryLimit: options.memoryLimit ?? '1GB',
  });
  const setup = await instance.connect();
  const files: string[] = [];
  const partitions = new Map<FactTable, PartitionIndex>();
  try {
    if (manifest.schema_version < SCHEMA_VERSION || !manifest.derived) {
      throw new Error(
        `snapshot ${snapshotId} was written by an older mmds (schema ${manifest.schema_version}); run mmds publish`,
      );
    }
    for (const table of TABLES) {
      const entry = manifest.tables[table.name];
      if (!entry) throw new Error(`snapshot ${snapshotId} has no ${table.name} table`);
      const tableFiles = entry.files.map((file) => join(dir, file.file));
      files.push(...tableFiles);
      // Reference tables are small and joined by most requests: held in memory. Fact tables
      // (millions of revisions, partitioned) stay views over their Parquet files, one over all
      // and one per partition for lookups of one series.
      const kind = table.kind === 'reference' ? 'TABLE' : 'VIEW';
      await execute(
        setup,
        `CREATE ${kind} ${quotedIdentifier(table.name)} AS SELECT * FROM ${relationOf(table, tableFiles)}`,
      );
      if (table.kind !== 'fact') continue;
      const index: PartitionIndex = new Map();
      for (const [n, file] of entry.files.entries()) {
        if (file.source === undefined) continue;
        const view = quotedIdentifier(`${table.name}__p${n}`);
        await execute(
          setup,
          `CREATE VIEW ${view} AS SELECT * FROM read_parquet(${quotedString(join(dir, file.file))})`,
        );
        const views = index.get(file.source) ?? [];
        views.push({ lower: file.lower ?? null, upper: file.upper ?? null, view });
        index.set(file.source, views);
      }
      partitions.set(table.name as FactTable, index);
    }
    // Computed at publish: one row per series or market, loaded into memory.
    for (const name of DERIVED_TABLES) {
      const entry = manifest.derived[name];
      if (!entry) throw new Error(`snapshot ${snapshotId} has no derived table ${name}`);
      const file = join(dir, entry.file);
      files.push(file);
      await execute(
        setup,
        `CREATE TABLE ${quotedIdentifier(name)} AS SELECT * FROM read_parquet(${quotedString(file)})`,
      );
    }
    // Parquet footers are parsed once per file, not once per query (a ~1 ms per file and query).
    await execute(setup, 'SET parquet_metadata_cache = true');
    await createSeriesRights(setup);
    await execute(setup, `SET allowed_paths = [${files.map(quotedString).join(', ')}]`);
    await execute(setup, 'SET enable_external_access = false');
    await execute(setup, 'SET lock_configuration = true');
    // Touch every file once so that a damaged snapshot is refused here, not in a request.
    if (options.touchFiles ?? true)
      for (const table of TABLES)
        await readRows(setup, `SELECT count(*) AS n FROM ${quotedIdentifier(table.name)}`);
  } catch (error) {
    setup.closeSync();
    instance.closeSync();
    throw error;
  }
  setup.closeSync();
  return createPool(instance, snapshotId, manifest, options, partitions, layout);
}

function createPool(
  instance: DuckDBInstance,
  id: string,
  manifest: SnapshotManifest,
  options: OpenSnapshotOptions,
  partitions: ReadonlyMap<FactTable, PartitionIndex>,
  layout: StoreLayout,
): SnapshotDb {
  const size = options.poolSize ?? 4;
  const timeoutMs = options.queryTimeoutMs ?? 10_000;
  const idle: PooledConnection[] = [];
  /** Queued acquirers: handed an idle connection, or null for a free slot to connect in. */
  const waiters: Array<(pooled: PooledConnection | null) => void> = [];
  let created = 0;
  let inFlight = 0;
  let leases = 0;
  /** Connections of timed-out queries waiting for their statement to stop (see retire). */
  let retiring = 0;
  let closed = false;
  const idleWaiters: Array<() => void> = [];
  const notifyIfIdle = () => {
    if (inFlight === 0 && leases === 0 && retiring === 0)
      for (const notify of idleWaiters.splice(0)) notify();
  };

  /** A new connection in a slot already counted in `created` (given back if connecting fails). */
  async function connect(): Promise<PooledConnection> {
    try {
      return { connection: await instance.connect(), prepared: new Map() };
    } catch (error) {
      created -= 1;
      throw error;
    }
  }

  async function acquire(): Promise<PooledConnection> {
    const ready = idle.pop();
    if (ready) return ready;
    if (created < size) {
      created += 1;
      return connect();
    }
    const handed = await new Promise<PooledConnection | null>((resolve) => waiters.push(resolve));
    return handed ?? connect();
  }

  function release(pooled: PooledConnection): void {
    const waiter = waiters.shift();
    if (waiter) waiter(pooled);
    else idle.push(pooled);
  }

  /**
   * A connection whose query timed out never goes back to the pool: its interrupted statement
   * may still be running (DuckDB stops at its next check), and a query started on the same
   * connection meanwhile would run beside it or clear its interrupt. The connection is closed
   * once the statement has stopped; only then is its slot free for a new connection.
   */
  function retire(pooled: PooledConnection, running: Promise<unknown>): void {
    retiring += 1;
    const stopped = () => {
      pooled.connection.closeSync();
      retiring -= 1;
      const waiter = waiters.shift();
      if (waiter) waiter(null);
      else created -= 1;
      notifyIfIdle();
    };
    running.then(stopped, stopped);
  }

  async function run<T>(pooled: PooledConnection, sql: string, params?: SqlParams): Promise<T[]> {
    let statement = pooled.prepared.get(sql);
    if (!statement) {
      statement = await pooled.connection.prepare(sql);
      pooled.prepared.set(sql, statement);
    }
    statement.clearBindings();
    if (params) statement.bind(params);
    const running = statement.runAndReadAll();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        pooled.abandoned = running;
        pooled.connection.interrupt();
        reject(new QueryTimeoutError(timeoutMs));
      }, timeoutMs);
    });
    try {
      const reader = await Promise.race([running, deadline]);
      return reader.getRowObjectsJson() as T[];
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    id,
    manifest,
    layout,
    revisionCacheBytes: options.revisionCacheBytes ?? DEFAULT_REVISION_CACHE_MB * 2 ** 20,
    async query<T extends object>(sql: string, params?: SqlParams): Promise<T[]> {
      if (closed) throw new Error('snapshot closed');
      inFlight += 1;
      try {
        const pooled = await acquire();
        try {
          return await run<T>(pooled, sql, params);
        } finally {
          if (pooled.abandoned) retire(pooled, pooled.abandoned);
          else release(pooled);
        }
      } finally {
        inFlight -= 1;
        notifyIfIdle();
      }
    },
    lease() {
      leases += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        leases -= 1;
        notifyIfIdle();
      };
    },
    factRelation(table, seriesKey) {
      return findPartition(partitions.get(table), seriesKey) ?? table;
    },
    async close() {
      if (inFlight > 0 || leases > 0 || retiring > 0)
        await new Promise<void>((resolve) => idleWaiters.push(resolve));
      closed = true;
      for (const pooled of idle) pooled.connection.closeSync();
      idle.length = 0;
      instance.closeSync();
    },
    async readSecuritySettings() {
      const [row] = await this.query<{ e: boolean; l: boolean }>(
        "SELECT current_setting('enable_external_access') AS e, current_setting('lock_configuration') AS l",
      );
      return { enable_external_access: Boolean(row?.e), lock_configuration: Boolean(row?.l) };
    },
  };
}

/**
 * The view of the partition whose range holds `key`, by binary search over the source's
 * partitions. Keys outside ASCII get none (JavaScript and DuckDB order such text differently).
 */
function findPartition(index: PartitionIndex | undefined, key: string): string | null {
  if (!index || !/^[\x20-\x7e]*$/.test(key)) return null;
  const dot = key.indexOf('.');
  const views = index.get(dot === -1 ? key : key.slice(0, dot));
  if (!views) return null;
  let low = 0;
  let high = views.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const lower = views[middle]!.lower;
    if (lower === null || lower <= key) low = middle + 1;
    else high = middle;
  }
  const found = views[low - 1];
  if (!found || (found.upper !== null && key >= found.upper)) return null;
  return found.view;
}

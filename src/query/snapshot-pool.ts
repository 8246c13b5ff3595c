/**
 * The connections of an open snapshot (snapshot-db.ts): a pool of DuckDB connections with a
 * deadline per query, prepared statements kept per connection, and a close that waits for the
 * queries and leases under way.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { SqlParams } from '../db/duckdb.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { SnapshotManifest } from '../store/manifest.ts';
import { DEFAULT_REVISION_CACHE_MB } from './revision-cache.ts';
import {
  type FactTable,
  type OpenSnapshotOptions,
  type PartitionIndex,
  QueryTimeoutError,
  type SnapshotDb,
} from './snapshot-types.ts';

interface PooledConnection {
  connection: DuckDBConnection;
  prepared: Map<string, DuckDBPreparedStatement>;
  /** The statement of a query that ran past its deadline: interrupted, but maybe still running. */
  abandoned?: Promise<unknown>;
}

export function createPool(
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

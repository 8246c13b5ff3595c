import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';
import { openDuckDb } from '../../src/db/duckdb.ts';
import { createTempDir } from './temp-dir.ts';

/** What a property test's stores are written with: one DuckDB connection and a temporary folder. */
export interface ScratchDuckDb {
  readonly connection: DuckDBConnection;
  readonly dir: string;
}

/**
 * Opens an in-memory DuckDB (one thread) and a temporary folder before the tests of the calling
 * `describe`, and closes and removes them after: the setup every property test over random stores
 * shares. Read `connection` and `dir` inside tests, not when the `describe` is declared.
 */
export function useScratchDuckDb(prefix: string): ScratchDuckDb {
  let duck: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let temp: ReturnType<typeof createTempDir> | undefined;
  beforeAll(async () => {
    duck = await openDuckDb({ threads: 1 });
    connection = await duck.connect();
    temp = createTempDir(prefix);
  });
  afterAll(() => {
    connection?.closeSync();
    duck?.closeSync();
    temp?.remove();
  });
  return {
    get connection() {
      if (!connection) throw new Error('the scratch DuckDB opens in beforeAll');
      return connection;
    },
    get dir() {
      if (!temp) throw new Error('the scratch folder is made in beforeAll');
      return temp.dir;
    },
  };
}

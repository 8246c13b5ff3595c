import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, expect } from 'vitest';
import { DEFAULT_CALENDAR_DIR, loadCalendars } from '../../src/calendar/load-calendars.ts';
import type { Calendars } from '../../src/calendar/types.ts';
import { openDuckDb } from '../../src/db/duckdb.ts';
import { InputError } from '../../src/ingest/input-error.ts';
import type { IngestContext, IngestOptions } from '../../src/ingest/source.ts';
import { createTempDir } from './temp-dir.ts';

/** The fixed clock of every ingest test: what `now()` returns in the context. */
export const INGEST_NOW = '2026-11-23T12:00:00Z';

export interface IngestFixture {
  /** The temporary directory; removed by close(). */
  readonly dir: string;
  /** The DuckDB connection; open between the file's beforeAll and afterAll. */
  readonly connection: DuckDBConnection;
  /**
   * An ingest context on the connection, with the fixed clock INGEST_NOW, the shipped calendars,
   * and `collectedAt` from options.collectedAt (null when absent, as for a local file).
   */
  context(options?: IngestOptions): IngestContext;
  /** Writes a file below dir (creating its folders); an object is written as JSON. Returns its path. */
  writeTemp(name: string, content: string | object): string;
  /** Closes the connection and removes dir. */
  close(): void;
}

/**
 * The shared setup of the ingest tests: an in-memory DuckDB connection (opened in beforeAll),
 * a temporary directory, and a context with a fixed clock; afterAll closes it all.
 * Call it at the top level of a test file, before the file's own hooks that use the connection.
 */
export function createIngestFixture(prefix = 'ingest-test-'): IngestFixture {
  const temp = createTempDir(prefix);
  let connection: DuckDBConnection | undefined;
  let calendars: Calendars | undefined;

  const fixture: IngestFixture = {
    dir: temp.dir,
    get connection(): DuckDBConnection {
      if (connection === undefined)
        throw new Error('ingest fixture: the connection is open only inside tests');
      return connection;
    },
    context: (options: IngestOptions = {}) => {
      if (calendars === undefined) throw new Error('ingest fixture: the calendars load in beforeAll');
      return {
        connection: fixture.connection,
        now: () => new Date(INGEST_NOW),
        options,
        calendars,
        collectedAt: options.collectedAt ?? null,
      };
    },
    writeTemp: (name, content) => {
      const file = join(temp.dir, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    },
    close: () => {
      connection?.closeSync();
      connection = undefined;
      temp.remove();
    },
  };

  beforeAll(async () => {
    const db = await openDuckDb();
    connection = await db.connect();
    calendars = await loadCalendars(connection, DEFAULT_CALENDAR_DIR);
  });
  afterAll(() => fixture.close());
  return fixture;
}

/**
 * Awaits a parse that must fail and returns its error, after checking that it is an InputError
 * and, when fileName is given, that its message names the file.
 */
export async function expectInputError(promise: Promise<unknown>, fileName?: string): Promise<InputError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InputError);
  if (fileName !== undefined) expect((error as Error).message).toContain(fileName);
  return error as InputError;
}

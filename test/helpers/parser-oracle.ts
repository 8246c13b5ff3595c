import { join } from 'node:path';
import { readRows } from '../../src/db/duckdb.ts';
import type { IngestOptions, Source } from '../../src/ingest/source.ts';
import type { ParsedBatch } from '../../src/model/records.ts';
import { appendBatch } from '../../src/store/append-batch.ts';
import { resolveLayout } from '../../src/store/layout.ts';
import type { IngestFixture } from './ingest-fixture.ts';

/** The error a parse ends with, as `name: message`, or 'no error'. */
export async function errorOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
  );
}

/**
 * Appends what the DuckDB parser and its JavaScript oracle give for the same ingest steps to two
 * stores of their own; returns each side's append summaries and the records stored in `table`
 * (every column, by id), for the caller to compare.
 */
export async function appendWithBoth(
  fixture: IngestFixture,
  parsers: { duckdb: Source<ParsedBatch>; oracle: Source<ParsedBatch> },
  steps: ReadonlyArray<readonly [string[], IngestOptions]>,
  table: 'observations' | 'cot_reports',
  /** Further tables whose records to read back too (`also`, by table name). */
  alsoTables: readonly string[] = [],
) {
  const source = parsers.duckdb.id;
  const meta = {
    source,
    files: [],
    options: {},
    collectorVersion: `mmds/test ${source}`,
    now: new Date('2026-11-23T12:00:00Z'),
  };
  const sides = ['duckdb', 'oracle'] as const;
  const stores = {
    duckdb: resolveLayout(join(fixture.dir, `store-${source}-duckdb`)),
    oracle: resolveLayout(join(fixture.dir, `store-${source}-js`)),
  };
  const summaries: Record<(typeof sides)[number], unknown[]> = { duckdb: [], oracle: [] };
  for (const [files, options] of steps) {
    for (const side of sides) {
      const parsed = await parsers[side].parse(files, fixture.context(options));
      summaries[side].push(await appendBatch(stores[side], fixture.connection, parsed, meta));
    }
  }
  const read = (side: (typeof sides)[number], name: string = table) =>
    readRows(
      fixture.connection,
      `SELECT * EXCLUDE (filename) FROM read_parquet('${stores[side].batchesDir}/*/${name}.parquet', filename = true)
        ORDER BY id`,
    );
  const also: Record<string, { duckdb: unknown[]; oracle: unknown[] }> = {};
  for (const name of alsoTables)
    also[name] = { duckdb: await read('duckdb', name), oracle: await read('oracle', name) };
  return { summaries, records: { duckdb: await read('duckdb'), oracle: await read('oracle') }, also };
}

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { fsyncPath } from '../lib/durable-fs.ts';
import type { TableDefinition } from './tables.ts';

/** What the manifest records of one written file. */
export interface FileStats {
  rows: number;
  bytes: number;
  sha256: string;
}

/** The order rows are written in: facts by series, period and revision (as-of scans read less). */
export function orderClause(table: TableDefinition): string {
  const columns = table.kind === 'fact' ? [...table.key, 'revision_number'] : table.key;
  return columns.map(quotedIdentifier).join(', ');
}

/** Creates (or empties) a typed temporary table shaped like `table`. */
export async function createScratchTable(
  connection: DuckDBConnection,
  table: TableDefinition,
): Promise<string> {
  const name = `scratch_${table.name}`;
  const columns = Object.entries(table.columns)
    .map(([column, type]) => `${quotedIdentifier(column)} ${type}`)
    .join(', ');
  await execute(connection, `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(name)} (${columns})`);
  return name;
}

/** Loads JS rows into the scratch table through a newline-delimited JSON file. */
export async function loadRows(
  connection: DuckDBConnection,
  table: TableDefinition,
  scratch: string,
  rows: readonly object[],
  ndjsonFile: string,
): Promise<void> {
  if (rows.length === 0) return;
  const stream = createWriteStream(ndjsonFile);
  for (const row of rows) {
    if (!stream.write(`${JSON.stringify(row)}\n`)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  const columns = Object.keys(table.columns).map(quotedIdentifier).join(', ');
  const types = `{${Object.entries(table.columns)
    .map(([column, type]) => `${quotedString(column)}: ${quotedString(type)}`)
    .join(', ')}}`;
  try {
    await execute(
      connection,
      `INSERT INTO ${quotedIdentifier(scratch)} SELECT ${columns} FROM read_json(${quotedString(ndjsonFile)}, ` +
        `format = 'newline_delimited', columns = ${types}, maximum_object_size = 67108864)`,
    );
  } finally {
    rmSync(ndjsonFile, { force: true });
  }
}

/** Rows per row group unless a caller asks otherwise (batch files, reference tables). */
const ROW_GROUP_SIZE = 122_880;

/** Writes the scratch table to a zstd Parquet file in table order, flushes it, and describes it. */
export async function copyToParquet(
  connection: DuckDBConnection,
  table: TableDefinition,
  scratch: string,
  file: string,
): Promise<FileStats> {
  return copySelectToParquet(connection, `SELECT * FROM ${quotedIdentifier(scratch)}`, table, file);
}

/**
 * Writes what a SELECT yields to a zstd Parquet file in table order (creating its folder),
 * flushes it, and describes it: rows as COPY counted them, bytes, SHA-256.
 */
export async function copySelectToParquet(
  connection: DuckDBConnection,
  select: string,
  table: TableDefinition,
  file: string,
  rowGroupSize = ROW_GROUP_SIZE,
): Promise<FileStats> {
  mkdirSync(dirname(file), { recursive: true });
  const [result] = await readRows<{ Count: string | number }>(
    connection,
    `COPY (${select} ORDER BY ${orderClause(table)}) TO ${quotedString(file)}
       (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSize})`,
  );
  fsyncPath(file);
  return { rows: Number(result?.Count ?? 0), bytes: statSync(file).size, sha256: await hashFile(file) };
}

/** SHA-256 of a file, streamed. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

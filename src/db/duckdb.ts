import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBValue,
  quotedIdentifier,
  quotedString,
} from '@duckdb/node-api';

export { quotedIdentifier, quotedString };

/** Options for an embedded DuckDB instance. */
export interface OpenDuckDbOptions {
  /** Worker threads; defaults to DuckDB's own choice. */
  threads?: number;
  /** DuckDB memory_limit, e.g. '1GB' (MMDS_MEMORY_LIMIT). */
  memoryLimit?: string;
  /** Where sorts, joins and windows spill past the limit (default: DuckDB's `.tmp` in the working directory). */
  tempDirectory?: string;
}

/** Opens an in-memory DuckDB instance (the pipeline's and the query layer's engine). */
export async function openDuckDb(options: OpenDuckDbOptions = {}): Promise<DuckDBInstance> {
  const config: Record<string, string> = {};
  if (options.threads !== undefined) config.threads = String(options.threads);
  if (options.memoryLimit !== undefined) config.memory_limit = options.memoryLimit;
  if (options.tempDirectory !== undefined) {
    // DuckDB creates the directory itself, but not its parents.
    mkdirSync(dirname(options.tempDirectory), { recursive: true });
    config.temp_directory = options.tempDirectory;
  }
  return DuckDBInstance.create(':memory:', config);
}

/**
 * The DuckDB settings of a pipeline command: the configured memory limit, spilling into the
 * data directory (the same disk the store is on, cleared by DuckDB when the instance closes).
 */
export function pipelineDuckDbOptions(config: { memoryLimit: string; dataDir: string }): OpenDuckDbOptions {
  return { memoryLimit: config.memoryLimit, tempDirectory: join(config.dataDir, 'tmp', 'duckdb') };
}

export type SqlParams = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

/**
 * Runs one statement with bound values and returns its rows as JSON-friendly objects
 * (BIGINT, DECIMAL and TIMESTAMP come back as strings; format them at the edge).
 */
export async function readRows<T extends object = Row>(
  connection: DuckDBConnection,
  sql: string,
  params?: SqlParams,
): Promise<T[]> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJson() as T[];
}

/** Runs one statement with bound values, ignoring its result. */
export async function execute(connection: DuckDBConnection, sql: string, params?: SqlParams): Promise<void> {
  await connection.run(sql, params);
}

/** Runs `fn` with a fresh connection of `instance` and closes the connection afterwards. */
export async function withConnection<T>(
  instance: DuckDBInstance,
  fn: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
  }
}

/** A CSV row read as text, with the line it came from (1-based, header is line 1). */
export interface CsvRow {
  line: number;
  values: Record<string, string | null>;
}

/** Options for reading a CSV file as text through DuckDB. */
export interface ReadCsvOptions {
  delimiter?: string;
  /** Header row present (default true). */
  header?: boolean;
  /** Explicit column names when the file has none. */
  columnNames?: string[];
  /** Character that starts a comment line. */
  comment?: string;
  /** Lines to skip before the header. */
  skip?: number;
  quote?: string;
  /** Escape character inside quoted fields; defaults to the quote (a doubled quote). */
  escape?: string;
}

/**
 * The `read_csv(...)` call that reads a file as all-text columns, in file order, with the
 * options every publisher format needs; parsers that type and check the values in SQL select
 * from it, readCsvFile returns its rows.
 */
export function readCsvSql(file: string, options: ReadCsvOptions = {}): string {
  const header = options.header !== false;
  const args = [
    quotedString(file),
    'all_varchar = true',
    `header = ${header}`,
    'strict_mode = false',
    'null_padding = true',
    `delim = ${quotedString(options.delimiter ?? ',')}`,
    `quote = ${quotedString(options.quote ?? '"')}`,
    // Every publisher we read doubles a quote inside a quoted field (RFC 4180). Left to the
    // sniffer, DuckDB once picked ' as the escape and dropped the apostrophes of CFTC names.
    `escape = ${quotedString(options.escape ?? options.quote ?? '"')}`,
  ];
  if (options.comment !== undefined) args.push(`comment = ${quotedString(options.comment)}`);
  if (options.skip !== undefined) args.push(`skip = ${Math.trunc(options.skip)}`);
  if (options.columnNames !== undefined) {
    args.push(`names = [${options.columnNames.map(quotedString).join(', ')}]`);
  }
  return `read_csv(${args.join(', ')})`;
}

/**
 * Reads a CSV file with DuckDB's reader as all-text columns, preserving file order, so that
 * parsers do the typing themselves and can name the line of a bad value. Line numbers assume
 * one physical line per record, which holds for every publisher format we read.
 */
export async function readCsvFile(
  connection: DuckDBConnection,
  file: string,
  options: ReadCsvOptions = {},
): Promise<CsvRow[]> {
  const reader = await connection.runAndReadAll(`SELECT * FROM ${readCsvSql(file, options)}`);
  const firstDataLine = (options.skip ?? 0) + (options.header !== false ? 2 : 1);
  return (reader.getRowObjectsJson() as Record<string, string | null>[]).map((values, index) => ({
    line: firstDataLine + index,
    values,
  }));
}

import { once } from 'node:events';
import { createWriteStream, rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { type FactRelation, isFactRelation } from '../model/records.ts';
import { FIRST_RELEASE_METHODS, hashCanonical, METHOD_RANK, STATED_METHODS } from './revisions.ts';
import type { TableDefinition } from './tables.ts';

/** The temporary tables that hold one fact table's plan while an ingest runs. */
export interface PlanTables {
  /** The candidate rows as parsed, typed like the table, plus candidate_index and correction. */
  input: string;
  /** Per candidate what planning needs: key, fingerprint text, knowledge time and its rank. */
  candidates: string;
  /** The stored records of the candidates' (series, period) keys. */
  stored: string;
  /** Per candidate its decision: kind, knowledge time, backfill, corrected, refusal. */
  decisions: string;
}

/** Names the plan tables of one fact table. */
export function definePlanTables(table: TableDefinition): PlanTables {
  const name = (part: string) => `plan_${table.name}_${part}`;
  return {
    input: name('input'),
    candidates: name('candidates'),
    stored: name('stored'),
    decisions: name('decisions'),
  };
}

/** Fields a parser supplies that say where and how a fact became known, not what it says. */
const PROVENANCE_ONLY = new Set([
  'source_ref',
  'observed_at',
  'observed_at_method',
  'correction',
  'verification_status',
  'confidence',
  'data_class',
]);

const CORRECTION_TYPE = 'STRUCT(observed_at TIMESTAMP, method VARCHAR)';

/** SQL text of a method's rank (revisions.ts METHOD_RANK), NULL for an unknown method. */
export function methodRankSql(method: string): string {
  const cases = Object.entries(METHOD_RANK).map(([name, rank]) => `WHEN ${quotedString(name)} THEN ${rank}`);
  return `CASE ${method} ${cases.join(' ')} END`;
}

function methodListSql(methods: ReadonlySet<string>): string {
  return `(${[...methods].map(quotedString).join(', ')})`;
}

/**
 * Defines mmds_number_text(x DOUBLE): the text JavaScript's String(x) gives, which fact ids of
 * numeric fingerprints hash. DuckDB prints the same shortest round-trip digits, only laid out
 * differently (`1.0`, `1e-07`, `-0.0`): the macro takes digits and decimal exponent apart and
 * lays them out by ECMAScript's Number::toString rules.
 */
export async function defineNumberText(connection: DuckDBConnection): Promise<void> {
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_js_digits(d, n) AS CASE
       WHEN length(d) <= n AND n <= 21 THEN d || repeat('0', n - length(d))
       WHEN 0 < n AND n <= 21 THEN left(d, n) || '.' || substr(d, n + 1)
       WHEN -6 < n AND n <= 0 THEN '0.' || repeat('0', -n) || d
       ELSE left(d, 1) || CASE WHEN length(d) > 1 THEN '.' || substr(d, 2) ELSE '' END
            || 'e' || CASE WHEN n > 0 THEN '+' ELSE '-' END || abs(n - 1)::VARCHAR
     END`,
  );
  // For text s = abs(x)::VARCHAR: its mantissa without the point, and that without leading zeros.
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_mantissa(s) AS replace(split_part(s, 'e', 1), '.', '')`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_js_number(s) AS mmds_js_digits(
       rtrim(ltrim(mmds_mantissa(s), '0'), '0'),
       length(split_part(split_part(s, 'e', 1), '.', 1))
         + coalesce(TRY_CAST(nullif(split_part(s, 'e', 2), '') AS INTEGER), 0)
         - (length(mmds_mantissa(s)) - length(ltrim(mmds_mantissa(s), '0'))))`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_number_text(x) AS CASE
       WHEN x IS NULL THEN 'null'
       WHEN isnan(x) THEN 'NaN'
       WHEN isinf(x) THEN CASE WHEN x > 0 THEN 'Infinity' ELSE '-Infinity' END
       WHEN x = 0 THEN '0'
       -- Without an exponent the layouts agree, but for DuckDB's '.0' on whole numbers.
       WHEN NOT contains(x::VARCHAR, 'e') THEN
         CASE WHEN ends_with(x::VARCHAR, '.0') THEN left(x::VARCHAR, length(x::VARCHAR) - 2) ELSE x::VARCHAR END
       ELSE CASE WHEN x < 0 THEN '-' ELSE '' END || mmds_js_number(abs(x)::VARCHAR)
     END`,
  );
}

/**
 * SQL text of a record's fingerprint as the reference planner (revisions.ts) compares and hashes
 * it: String() of the column's value, so numbers print as JavaScript prints them.
 */
export function fingerprintSql(table: TableDefinition, alias: string): string {
  const column = table.fingerprint?.[0] ?? 'id';
  const value = `${quotedIdentifier(alias)}.${quotedIdentifier(column)}`;
  return table.columns[column] === 'DOUBLE'
    ? `mmds_number_text(${value})`
    : `coalesce(${value}::VARCHAR, 'null')`;
}

/**
 * Loads a parser's fact rows into the plan's input and candidates tables: a relation straight
 * from its SELECT, JavaScript rows through one newline-delimited JSON file (removed afterwards).
 * A cot_reports row's content_hash is computed here, from every field but its provenance. Each
 * row gets its index in input order, which orders candidates of one key at the same instant, and
 * the refusals.
 */
export async function loadFactCandidates(
  connection: DuckDBConnection,
  table: TableDefinition,
  tables: PlanTables,
  rows: readonly object[] | FactRelation,
  ndjsonFile: string,
): Promise<void> {
  const columns: Record<string, string> = {
    candidate_index: 'BIGINT',
    ...table.columns,
    correction: CORRECTION_TYPE,
  };
  if (isFactRelation(rows)) await loadRelationInput(connection, table, tables, rows, columns);
  else await loadJsonInput(connection, table, tables, rows, ndjsonFile, columns);
  // Candidates of one key, instant and method that all say the same (the same file twice, or
  // overlapping files) are planned once: planning sees them one after the other, and after the
  // first the others change nothing, so each takes the first one's decision (an append: unchanged).
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.candidates)} AS
       WITH c AS (
         SELECT candidate_index, series_key, period, ${fingerprintSql(table, 'i')} AS fp,
                observed_at, observed_at_method AS method, ${methodRankSql('observed_at_method')} AS method_rank,
                observed_at_method IN ${methodListSql(FIRST_RELEASE_METHODS)} AS first_release,
                correction.observed_at AS correction_at, correction.method AS correction_method
           FROM ${quotedIdentifier(tables.input)} AS i
       ),
       said AS (
         SELECT *, concat_ws(chr(0), fp, coalesce(correction_at::VARCHAR, ''), coalesce(correction_method, ''))
                     AS statement
           FROM c
       )
       SELECT * EXCLUDE (statement),
              CASE WHEN min(statement) OVER same = max(statement) OVER same
                        AND candidate_index > min(candidate_index) OVER same
                   THEN min(candidate_index) OVER same END AS duplicate_of
         FROM said
       WINDOW same AS (PARTITION BY series_key, period, observed_at, method)`,
  );
}

async function loadJsonInput(
  connection: DuckDBConnection,
  table: TableDefinition,
  tables: PlanTables,
  rows: readonly object[],
  ndjsonFile: string,
  columns: Record<string, string>,
): Promise<void> {
  const hashContent = table.fingerprint?.[0] === 'content_hash';
  const stream = createWriteStream(ndjsonFile);
  let index = 0;
  for (const row of rows) {
    let body = JSON.stringify(row).slice(1, -1);
    if (hashContent) {
      const hash = hashCanonical(contentOf(row));
      // A parser never sets content_hash; if one did, the computed hash replaces it.
      body =
        'content_hash' in row
          ? JSON.stringify({ ...row, content_hash: hash }).slice(1, -1)
          : `${body},"content_hash":${JSON.stringify(hash)}`;
    }
    const line = `{"candidate_index":${index}${body === '' ? '' : `,${body}`}}\n`;
    index += 1;
    if (!stream.write(line)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  const names = Object.keys(columns).map(quotedIdentifier).join(', ');
  const types = `{${Object.entries(columns)
    .map(([column, type]) => `${quotedString(column)}: ${quotedString(type)}`)
    .join(', ')}}`;
  try {
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.input)} AS
         SELECT ${names} FROM read_json(${quotedString(ndjsonFile)}, format = 'newline_delimited',
           columns = ${types}, maximum_object_size = 67108864)`,
    );
  } finally {
    rmSync(ndjsonFile, { force: true });
  }
}

/**
 * Inserts a relation's rows, cast to the table's types (a column it lacks is NULL), numbered
 * in its input order. The content hash of a cot_reports row is computed in JavaScript, so a
 * relation cannot carry such a table yet.
 */
async function loadRelationInput(
  connection: DuckDBConnection,
  table: TableDefinition,
  tables: PlanTables,
  relation: FactRelation,
  columns: Record<string, string>,
): Promise<void> {
  if (table.fingerprint?.[0] === 'content_hash') {
    throw new Error(`${table.name}: a relation cannot carry rows whose content hash JavaScript computes`);
  }
  const described = await readRows<{ column_name: string }>(connection, `DESCRIBE ${relation.sql}`);
  const present = new Set(described.map((row) => row.column_name));
  const unknown = [...present].find((column) => !(column in columns) || column === 'candidate_index');
  if (unknown !== undefined) throw new Error(`${table.name}: the relation has no such column "${unknown}"`);
  const select = Object.entries(columns).map(([column, type]) => {
    const name = quotedIdentifier(column);
    if (column === 'candidate_index')
      return `row_number() OVER (ORDER BY ${relation.orderBy}) - 1 AS ${name}`;
    return present.has(column) ? `CAST(r.${name} AS ${type}) AS ${name}` : `CAST(NULL AS ${type}) AS ${name}`;
  });
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.input)} AS
       SELECT ${select.join(', ')} FROM (${relation.sql}) AS r`,
  );
}

/**
 * Reads every stored record of the candidates' (series, period) keys from the batch files
 * into the plan's stored table (a semi-join on the candidates table).
 */
export async function loadStoredFacts(
  connection: DuckDBConnection,
  table: TableDefinition,
  tables: PlanTables,
  files: readonly string[],
): Promise<void> {
  const stored = quotedIdentifier(tables.stored);
  if (files.length === 0) {
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${stored} (series_key VARCHAR, period VARCHAR, fp VARCHAR,
         observed_at TIMESTAMP, method_rank INTEGER, batch_id VARCHAR)`,
    );
    return;
  }
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${stored} AS
       SELECT s.series_key, s.period, ${fingerprintSql(table, 's')} AS fp, s.observed_at,
              ${methodRankSql("coalesce(s.observed_at_method, 'collected')")} AS method_rank, s.batch_id
         FROM read_parquet([${files.map(quotedString).join(', ')}], union_by_name = true) AS s
         SEMI JOIN ${quotedIdentifier(tables.candidates)} AS c
           ON c.series_key = s.series_key AND c.period = s.period`,
  );
}

/** SQL: whether a method keeps repeats of the value in force (revisions.ts STATED_METHODS). */
export function statedSql(method: string): string {
  return `(${method} IN ${methodListSql(STATED_METHODS)})`;
}

function contentOf(fact: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fact).filter(([key]) => !PROVENANCE_ONLY.has(key)));
}

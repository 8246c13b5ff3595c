import { once } from 'node:events';
import { createWriteStream, rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString, readRows } from '../db/duckdb.ts';
import { defineNumberText } from '../db/number-text.ts';
import { type FactRelation, isFactRelation } from '../model/records.ts';
import { contentHashSql, defineJsonText } from './content-hash-sql.ts';
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
 * in its input order. A cot_reports row's content_hash is computed in SQL from the cast values,
 * byte for byte the hash loadJsonInput computes in JavaScript: the columns the relation has (a
 * column it lacks is a key the JavaScript record lacks), provenance left out.
 */
async function loadRelationInput(
  connection: DuckDBConnection,
  table: TableDefinition,
  tables: PlanTables,
  relation: FactRelation,
  columns: Record<string, string>,
): Promise<void> {
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
  let body = `SELECT ${select.join(', ')} FROM (${relation.sql}) AS r`;
  if (table.fingerprint?.[0] === 'content_hash') {
    await defineNumberText(connection);
    await defineJsonText(connection);
    const content = Object.entries(columns).filter(
      ([column]) => present.has(column) && !PROVENANCE_ONLY.has(column),
    );
    // A relation never carries content_hash; if one did, the computed hash replaces it.
    body = `SELECT * REPLACE (${contentHashSql(content, 'c')} AS content_hash) FROM (${body}) AS c`;
  }
  await execute(connection, `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.input)} AS ${body}`);
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

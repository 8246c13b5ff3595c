import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { execute, quotedIdentifier, readRows } from '../db/duckdb.ts';
import type { FactRelation, ParsedBatch } from '../model/records.ts';
import { stageApiResponse } from './bls-api.ts';
import { type BlsKnowledgeContext, blsNeedsCollection, resolveBlsKnowledge } from './bls-knowledge-time.ts';
import { CPI_HEADER, readCpiCsv, readVintages } from './bls-small-files.ts';
import { type BlsTables, STAGED_COLUMNS, stageValues } from './bls-staging.ts';
import { countedFactRelation } from './fact-relation.ts';
import { InputError } from './input-error.ts';
import type { Source } from './source.ts';
import { defineTextMacros } from './sql-text.ts';

/** The BLS parser's batch: its observations stay in DuckDB. */
export type BlsBatch = ParsedBatch & { observations?: FactRelation };

/**
 * BLS data: Public Data API v2 JSON responses, the third-party CES release-vintage compilation
 * (JSON) and the datahub CPI-U CSV; the format of each file is detected from its content.
 * No fetch plan: the API is a POST with a registration key, not a file download.
 * The API responses are checked against their schema in JavaScript, and their values built and
 * checked in DuckDB from the JSON text; the small vintage JSON and the CPI CSV are read in
 * JavaScript and their values inserted. Knowledge times are worked out once per distinct
 * (series, period) and joined; the observations are handed on as a relation on the connection.
 */
export const blsSource: Source<BlsBatch> = {
  id: 'bls',
  description: 'BLS API v2 JSON responses, CES release-vintage JSON, datahub CPI-U CSV',
  async parse(files, context) {
    const { connection } = context;
    const prefix = `bls_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const tables: BlsTables = {
      connection,
      staged: quotedIdentifier(`${prefix}_staged`),
      rows: quotedIdentifier(`${prefix}_rows`),
      known: quotedIdentifier(`${prefix}_known`),
      observations: quotedIdentifier(`${prefix}_observations`),
    };
    const knowledge: BlsKnowledgeContext = {
      calendar: context.calendars.bls,
      override: context.options.observedAt,
      collectedAt: context.collectedAt,
    };
    await defineTextMacros(connection);
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${tables.rows} (file_index INTEGER, file VARCHAR, ${STAGED_COLUMNS})`,
    );
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${tables.known} (knowledge_id VARCHAR, period VARCHAR, known BOOLEAN,
         observed_at TIMESTAMP, method VARCHAR, correction STRUCT(observed_at TIMESTAMP, method VARCHAR))`,
    );
    try {
      const batch: BlsBatch = { rows_read: 0, rows_skipped: 0 };
      for (const [fileIndex, file] of files.entries()) {
        await execute(connection, `CREATE OR REPLACE TEMP TABLE ${tables.staged} (${STAGED_COLUMNS})`);
        const text = await readText(file);
        const start = text.replace(/^\uFEFF/, '').trimStart();
        if (start === '') throw new InputError(file, null, 'file is empty');
        if (start.startsWith('{')) await readJson(text, file, tables, knowledge);
        else if (start.split(/\r?\n/, 1)[0]?.trimEnd() === CPI_HEADER)
          await readCpiCsv(context, file, tables);
        else throw new InputError(file, 1, `not a BLS format this parser knows (${EXPECTED_FORMATS})`);
        const counts = await keepFileValues(file, fileIndex, tables, knowledge);
        batch.rows_read += counts.read;
        batch.rows_skipped += counts.skipped;
      }
      batch.observations = await createObservations(tables);
      return batch;
    } finally {
      await execute(connection, `DROP TABLE IF EXISTS ${tables.staged}`);
      await execute(connection, `DROP TABLE IF EXISTS ${tables.rows}`);
      await execute(connection, `DROP TABLE IF EXISTS ${tables.known}`);
    }
  },
};

const EXPECTED_FORMATS = `BLS API v2 JSON, the CES release-vintage JSON, or a CSV with header ${CPI_HEADER}`;

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
}

async function readJson(
  text: string,
  file: string,
  tables: BlsTables,
  knowledge: BlsKnowledgeContext,
): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new InputError(file, null, `invalid JSON: ${(error as Error).message}`);
  }
  if (json !== null && typeof json === 'object' && ('Results' in json || 'status' in json)) {
    await stageApiResponse(json, file, tables);
  } else if (json !== null && typeof json === 'object' && 'records' in json) {
    await stageValues(tables, readVintages(json, file, knowledge));
  } else {
    throw new InputError(file, null, `JSON is not a format this parser knows (${EXPECTED_FORMATS})`);
  }
}

/**
 * Works out the knowledge times of the file's new (series, period) pairs, refuses the first bad
 * value in file order (its own problem, or no knowledge time), keeps the good values and returns
 * the values read and skipped.
 */
async function keepFileValues(
  file: string,
  fileIndex: number,
  tables: BlsTables,
  knowledge: BlsKnowledgeContext,
): Promise<{ read: number; skipped: number }> {
  const { connection, staged, known } = tables;
  const pairs = await readRows<{ knowledge_id: string; period: string }>(
    connection,
    `SELECT DISTINCT knowledge_id, period FROM ${staged} AS s
      WHERE NOT skipped AND problem IS NULL AND knowledge_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${known} AS k WHERE k.knowledge_id = s.knowledge_id AND k.period = s.period)`,
  );
  const times = pairs.map(({ knowledge_id, period }) => {
    const time = resolveBlsKnowledge(knowledge_id, period, knowledge);
    return {
      knowledge_id,
      period,
      known: time !== null,
      observed_at: time?.observed_at ?? null,
      method: time?.method ?? null,
      correction: time?.correction
        ? { observed_at: time.correction.observed_at, method: time.correction.method }
        : null,
    };
  });
  if (times.length > 0) {
    await execute(
      connection,
      `INSERT INTO ${known}
         SELECT t.knowledge_id, t.period, t.known, t.observed_at::TIMESTAMP, t.method,
                CASE WHEN t.correction IS NOT NULL
                  THEN {'observed_at': t.correction.observed_at::TIMESTAMP, 'method': t.correction.method} END
           FROM (SELECT unnest(from_json($times::JSON, '[{"knowledge_id":"VARCHAR","period":"VARCHAR","known":"BOOLEAN",
             "observed_at":"VARCHAR","method":"VARCHAR","correction":{"observed_at":"VARCHAR","method":"VARCHAR"}}]')) AS t)`,
      { times: JSON.stringify(times) },
    );
  }
  const [problem] = await readRows<{
    problem: string | null;
    problem_line: number | null;
    knowledge_id: string;
    period: string;
    locator: string;
  }>(
    connection,
    `SELECT s.problem, s.problem_line, s.knowledge_id, s.period, s.locator
       FROM ${staged} AS s LEFT JOIN ${known} AS k USING (knowledge_id, period)
      WHERE NOT s.skipped AND (s.problem IS NOT NULL OR (s.knowledge_id IS NOT NULL AND NOT k.known))
      ORDER BY s.ordinal LIMIT 1`,
  );
  if (problem !== undefined) {
    if (problem.problem !== null) throw new InputError(file, problem.problem_line, problem.problem);
    const why = blsNeedsCollection(problem.knowledge_id, problem.period, knowledge.calendar)
      ? `a later release may have revised ${problem.knowledge_id} ${problem.period} since its first release`
      : `no BLS release calendar entry dates ${problem.knowledge_id} ${problem.period}`;
    throw new InputError(
      file,
      null,
      `${problem.locator}: ${why}, and the file carries no time it was collected; ` +
        'pass --collected-at (when the file was retrieved) or --observed-at',
    );
  }
  await execute(
    connection,
    `INSERT INTO ${tables.rows} BY NAME SELECT $fileIndex AS file_index, $file AS file, * FROM ${staged} WHERE NOT skipped`,
    { fileIndex, file },
  );
  const [counts] = await readRows<{ read: number; skipped: number }>(
    connection,
    `SELECT count(*)::INTEGER AS read, count(*) FILTER (skipped)::INTEGER AS skipped FROM ${staged}`,
  );
  return counts ?? { read: 0, skipped: 0 };
}

/**
 * The observations as a temporary table read by the relation, sorted by series, period and
 * knowledge time; two values of one series and period at one knowledge time are refused (the
 * second in input order is reported).
 */
async function createObservations(tables: BlsTables): Promise<FactRelation> {
  const { connection, observations } = tables;
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${observations} AS
       SELECT r.series_key, r.period, r.value, r.footnotes, r.source_ref,
              coalesce(r.given_at, k.observed_at) AS observed_at,
              coalesce(r.given_method, k.method) AS observed_at_method, k.correction,
              r.verification_status, r.confidence, 'official' AS data_class,
              r.file, r.line, r.file_index, r.ordinal
         FROM ${tables.rows} AS r LEFT JOIN ${tables.known} AS k USING (knowledge_id, period)`,
  );
  const [duplicate] = await readRows<Record<string, unknown>>(
    connection,
    `SELECT file, line, series_key, period, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_text,
            lag(source_ref) OVER w AS previous_ref, row_number() OVER w AS position
       FROM ${observations}
     WINDOW w AS (PARTITION BY series_key, period, observed_at ORDER BY file_index, ordinal)
     QUALIFY position = 2
      ORDER BY series_key, period, observed_at LIMIT 1`,
  );
  if (duplicate !== undefined) {
    const { file, line, series_key, period, observed_text, previous_ref } = duplicate;
    throw new InputError(
      String(file),
      line === null ? null : Number(line),
      `duplicate value for ${series_key} ${period} observed at ${observed_text} (also ${previous_ref})`,
    );
  }
  return countedFactRelation(
    connection,
    observations,
    'series_key, period, observed_at',
    '* EXCLUDE (file, line, file_index, ordinal)',
  );
}

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { execute, quotedIdentifier, readCsvFile, readRows } from '../db/duckdb.ts';
import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import type { FactRelation, ParsedBatch } from '../model/records.ts';
import { type BlsKnowledgeContext, resolveBlsKnowledge } from './bls-knowledge-time.ts';
import { InputError } from './input-error.ts';
import { formatMonthPeriod, isMonthPeriod, parseIsoDate } from './periods.ts';
import type { IngestContext, Source } from './source.ts';
import { defineTextMacros } from './sql-text.ts';
import { validateJson } from './validate-json.ts';
import { cleanText, parseNumber } from './values.ts';

/** The BLS parser's batch: its observations stay in DuckDB. */
export type BlsBatch = ParsedBatch & { observations?: FactRelation };

const CPI_HEADER = 'Date,Index,Inflation';
const CPI_SERIES_KEY = 'bls.CUUR0000SA0';
/** The Employment Situation is released at 08:30 Eastern. */
const RELEASE_TIME = '08:30';
const RELEASE_ZONE = 'America/New_York';

const apiStatusSchema = z.object({ status: z.string(), message: z.array(z.string()).optional() });

// Objects are not strict: `catalog`, `calculations` and `latest` are ignored.
const apiResponseSchema = z.object({
  status: z.literal('REQUEST_SUCCEEDED'),
  Results: z.object({
    series: z.array(
      z.object({
        seriesID: z.string().regex(/^[A-Z0-9]+$/, 'expected a BLS series id'),
        data: z.array(
          z.object({
            year: z.string().regex(/^\d{4}$/, 'expected a four-digit year'),
            period: z.string(),
            value: z.string(),
            // Empty objects stand for "no footnote" in the API's output.
            footnotes: z
              .array(z.object({ code: z.string().optional(), text: z.string().optional() }))
              .optional(),
          }),
        ),
      }),
    ),
  }),
});

const vintageSchema = z.object({
  dataset_id: z.string(),
  series_id: z.string().regex(/^[A-Z0-9]+$/, 'expected a BLS series id'),
  records: z.array(
    z.object({
      observation_month: z.string().refine(isMonthPeriod, 'expected YYYY-MM'),
      release_date: z.string().refine((text) => parseIsoDate(text) !== null, 'expected a date YYYY-MM-DD'),
      revision_stage: z.string(),
      value_thousands: z.number().nullable(),
      source_document_id: z.string().min(1),
    }),
  ),
});

/**
 * The scratch tables of one parse: `staged` holds the values of the file being read (with their
 * problems), `rows` the good values of all files, `known` the knowledge times per distinct
 * (series id, period), computed in JavaScript from the release calendar.
 */
interface BlsTables {
  connection: DuckDBConnection;
  staged: string;
  rows: string;
  known: string;
  observations: string;
}

/** Columns of the staged values (`problem`: the value's own error, `problem_line` its line). */
const STAGED_COLUMNS = `ordinal BIGINT, line INTEGER, skipped BOOLEAN, problem VARCHAR, problem_line INTEGER,
  series_key VARCHAR, knowledge_id VARCHAR, period VARCHAR, value DOUBLE,
  footnotes STRUCT(code VARCHAR, text VARCHAR)[], source_ref VARCHAR, locator VARCHAR,
  given_at TIMESTAMP, given_method VARCHAR, verification_status VARCHAR, confidence DOUBLE`;

/** A staged value built in JavaScript (the vintage JSON and the CPI CSV). */
interface StagedValue {
  ordinal: number;
  line: number | null;
  skipped: boolean;
  problem: string | null;
  problem_line: number | null;
  series_key: string | null;
  knowledge_id: string | null;
  period: string | null;
  value: number | null;
  source_ref: string | null;
  locator: string | null;
  given_at: string | null;
  given_method: string | null;
  verification_status: string;
  confidence: number;
}

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
 * Checks an API response's shape (JSON-path messages) and stages its values, built in SQL from
 * the JSON text: M13/S01/S02 and missing (`-`, empty) values skipped, the period converted
 * (convertBlsPeriod), the value read as a number, the non-empty footnotes kept.
 */
async function stageApiResponse(json: object, file: string, tables: BlsTables): Promise<void> {
  const status = validateJson(apiStatusSchema, json, file);
  if (status.status !== 'REQUEST_SUCCEEDED') {
    const message = status.message?.join(' ') || 'no message';
    throw new InputError(file, null, `BLS API request failed (${status.status}): ${message}`);
  }
  const response = validateJson(apiResponseSchema, json, file);
  const shape =
    '[{"seriesID":"VARCHAR","data":[{"year":"VARCHAR","period":"VARCHAR","value":"VARCHAR",' +
    '"footnotes":[{"code":"VARCHAR","text":"VARCHAR"}]}]}]';
  await execute(
    tables.connection,
    `INSERT INTO ${tables.staged} BY NAME
     WITH series AS (
       SELECT unnest(list) AS s, generate_subscripts(list, 1) AS series_index
         FROM (SELECT from_json($series::JSON, '${shape}') AS list)
     ),
     points AS (
       SELECT series_index, s.seriesID AS id, unnest(s.data) AS p, generate_subscripts(s.data, 1) AS point_index
         FROM series
     ),
     read AS (
       SELECT *, mmds_clean_text(p.value) AS text, regexp_extract(p.period, '^([MQA])(\\d{2})$', ['kind', 'number']) AS code,
              id || '/' || p.year || p.period AS locator
         FROM points
     ),
     converted AS (
       SELECT *, CASE
                 WHEN code.kind = 'M' AND TRY_CAST(code.number AS INTEGER) BETWEEN 1 AND 12
                   THEN p.year || '-' || code.number
                 WHEN code.kind = 'Q' AND TRY_CAST(code.number AS INTEGER) BETWEEN 1 AND 4
                   THEN p.year || '-Q' || TRY_CAST(code.number AS INTEGER)
                 WHEN code.kind = 'A' AND TRY_CAST(code.number AS INTEGER) = 1 THEN p.year END AS converted,
              replace(text, ',', '') AS normalised
         FROM read
     ),
     numbered AS (
       SELECT *, CASE WHEN normalised = '' THEN 0::DOUBLE ELSE mmds_number_value(normalised) END AS number
         FROM converted
     )
     SELECT series_index::BIGINT * 100000000 + point_index AS ordinal, NULL AS line,
            p.period IN ('M13', 'S01', 'S02') OR text IS NULL OR text = '-' AS skipped,
            CASE WHEN converted IS NULL THEN locator || ': unknown BLS period "' || p.period || '"'
                 WHEN number IS NULL OR NOT isfinite(number)
                   THEN locator || ': value "' || text || '" is not a number' END AS problem,
            NULL AS problem_line,
            'bls.' || id AS series_key, id AS knowledge_id, converted AS period, number AS value,
            list_transform(
              list_filter(coalesce(p.footnotes, []), note -> coalesce(note.code, '') <> '' OR coalesce(note.text, '') <> ''),
              note -> {'code': note.code, 'text': note.text}) AS footnotes,
            $name || '#' || locator AS source_ref, locator, NULL AS given_at, NULL AS given_method,
            'verified' AS verification_status, 1::DOUBLE AS confidence
       FROM numbered`,
    { series: JSON.stringify(response.Results.series), name: basename(file) },
  );
}

function readVintages(json: object, file: string, knowledge: BlsKnowledgeContext): StagedValue[] {
  const compilation = validateJson(vintageSchema, json, file);
  const name = basename(file);
  return compilation.records.map((record, ordinal) => ({
    ordinal,
    line: null,
    skipped: record.value_thousands === null,
    problem: null,
    problem_line: null,
    series_key: `bls.${compilation.series_id}.change`,
    knowledge_id: null,
    period: record.observation_month,
    value: record.value_thousands,
    source_ref: `${name}#${record.source_document_id}`,
    locator: null,
    // The compilation prints the release date of each figure beside it.
    given_at: knowledge.override ?? zonedTimeToUtc(record.release_date, RELEASE_TIME, RELEASE_ZONE),
    given_method: knowledge.override !== undefined ? 'collected' : 'publisher_timestamp',
    // A third party copied these from the news releases by hand.
    verification_status: 'unverified',
    confidence: 0.8,
  }));
}

/** Reads the CPI CSV; a line's problem is staged with it, to be reported in file order. */
async function readCpiCsv(context: IngestContext, file: string, tables: BlsTables): Promise<void> {
  const rows = await readCsvFile(context.connection, file);
  if (rows.length === 0) throw new InputError(file, 1, 'header only, no data rows');
  const name = basename(file);
  const values = rows.map((row, ordinal): StagedValue => {
    const staged: StagedValue = {
      ordinal,
      line: row.line,
      skipped: false,
      problem: null,
      problem_line: row.line,
      series_key: CPI_SERIES_KEY,
      knowledge_id: CPI_SERIES_KEY.slice('bls.'.length),
      period: null,
      value: null,
      source_ref: `${name}:${row.line}`,
      locator: `line ${row.line}`,
      given_at: null,
      given_method: null,
      verification_status: 'unverified',
      confidence: 0.9,
    };
    const text = cleanText(row.values.Date) ?? '';
    const date = parseIsoDate(text);
    if (date === null || date.day !== 1) {
      return { ...staged, problem: `column "Date": expected the first of a month, got "${text}"` };
    }
    // Inflation is datahub's own month-on-month computation, not a BLS figure.
    let value: number | null;
    try {
      value = parseNumber(row.values.Index, { file, line: row.line, column: 'Index' });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      return { ...staged, problem: error.message.slice(`${basename(file)}:${row.line}: `.length) };
    }
    if (value === null) return { ...staged, skipped: true };
    return { ...staged, period: formatMonthPeriod(date.year, date.month), value };
  });
  await stageValues(tables, values);
}

async function stageValues(tables: BlsTables, values: readonly StagedValue[]): Promise<void> {
  await execute(
    tables.connection,
    `INSERT INTO ${tables.staged} BY NAME
       SELECT * REPLACE (given_at::TIMESTAMP AS given_at), NULL AS footnotes
         FROM (SELECT unnest(from_json($values::JSON, '[{"ordinal":"BIGINT","line":"INTEGER","skipped":"BOOLEAN",
           "problem":"VARCHAR","problem_line":"INTEGER","series_key":"VARCHAR","knowledge_id":"VARCHAR",
           "period":"VARCHAR","value":"DOUBLE","source_ref":"VARCHAR","locator":"VARCHAR","given_at":"VARCHAR",
           "given_method":"VARCHAR","verification_status":"VARCHAR","confidence":"DOUBLE"}]'), recursive := true))`,
    { values: JSON.stringify(values) },
  );
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
    throw new InputError(
      file,
      null,
      `${problem.locator}: no BLS release calendar entry dates ${problem.knowledge_id} ${problem.period}, and the file carries no ` +
        'time it was collected; pass --collected-at (when the file was retrieved) or --observed-at',
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
  const [count] = await readRows<{ rows: number }>(
    connection,
    `SELECT count(*)::INTEGER AS rows FROM ${observations}`,
  );
  return {
    kind: 'relation',
    sql: `SELECT * EXCLUDE (file, line, file_index, ordinal) FROM ${observations}`,
    orderBy: 'series_key, period, observed_at',
    rows: count?.rows ?? 0,
  };
}

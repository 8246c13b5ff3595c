import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { execute, quotedIdentifier, readRows } from '../db/duckdb.ts';
import type { FactRelation, KnowledgeTime, ParsedBatch } from '../model/records.ts';
import { countedFactRelation } from './fact-relation.ts';
import { insertAlfredJsonValues } from './fred-alfred-json.ts';
import { loadFredCsvValues } from './fred-csv.ts';
import type { FredKnowledge, FredTables } from './fred-tables.ts';
import { InputError } from './input-error.ts';
import { parseIsoDate } from './periods.ts';
import type { IngestContext, Source } from './source.ts';
import { createKnowledgeTable, defineTextMacros } from './sql-text.ts';
import { resolveVintageTime } from './vintage-time.ts';

/** `<source>.<native id>` (CONTRACT section 5), e.g. `bls.CES0000000001`. */
const SERIES_KEY = /^[a-z0-9]+\.[A-Za-z0-9_.-]+$/;

/** The FRED parser's batch: its observations stay in DuckDB. */
export type FredBatch = ParsedBatch & { observations?: FactRelation };

/**
 * FRED/ALFRED downloads: series CSV files (`observation_date,<ID>`, `DATE,<ID>`, `date,value`)
 * and the ALFRED JSON observations responses `mmds fetch` saves; the format is read from the
 * content. No fetch plan: both come one series per request, which a file list cannot express.
 * The CSV files are read and checked by DuckDB, knowledge times are computed once per vintage
 * and joined from a small table, and the observations are handed on as a relation on the
 * context's connection (the small JSON responses are checked in JavaScript and inserted).
 */
export const fredSource: Source<FredBatch> = {
  id: 'fred',
  description: 'FRED/ALFRED series CSV downloads and ALFRED JSON observations (realtime periods)',
  async parse(files, context) {
    checkOptions(files, context);
    const csvFiles: string[] = [];
    const jsonFiles: string[] = [];
    for (const file of files) {
      if ((await sniffFormat(file)) === 'json') jsonFiles.push(file);
      else csvFiles.push(file);
    }
    const { connection } = context;
    const prefix = `fred_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const tables: FredTables = { connection, prefix, values: `${prefix}_values` };
    await defineTextMacros(connection);
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.values)} (ordinal BIGINT, file_group INTEGER,
         file VARCHAR, line INTEGER, series_key VARCHAR, date VARCHAR, knowledge VARCHAR, value DOUBLE,
         source_ref VARCHAR, hint VARCHAR)`,
    );
    const knowledge: FredKnowledge = new Map();
    try {
      const batch: FredBatch = { rows_read: 0, rows_skipped: 0 };
      if (csvFiles.length > 0) {
        knowledge.set('csv', resolveCsvKnowledgeTime(csvFiles, context));
        for (const [index, file] of csvFiles.entries()) {
          const counts = await loadFredCsvValues(file, index, 'csv', context.options.series, tables);
          batch.rows_read += counts.read;
          batch.rows_skipped += counts.skipped;
        }
      }
      if (jsonFiles.length > 0) {
        const counts = await insertAlfredJsonValues(jsonFiles, csvFiles.length, context, tables, knowledge);
        batch.rows_read += counts.read;
        batch.rows_skipped += counts.skipped;
      }
      batch.observations = await createObservations(tables, knowledge);
      return batch;
    } finally {
      for (const suffix of ['values', 'known', 'located']) {
        await execute(connection, `DROP TABLE IF EXISTS ${quotedIdentifier(`${prefix}_${suffix}`)}`);
      }
    }
  },
};

function checkOptions(files: readonly string[], context: IngestContext): void {
  const { vintage, series } = context.options;
  const where = files[0] ?? '(options)';
  if (series !== undefined && !SERIES_KEY.test(series)) {
    throw new InputError(where, null, `--series "${series}" is not a series key like bls.CES0000000001`);
  }
  if (vintage !== undefined && parseIsoDate(vintage) === null) {
    throw new InputError(where, null, `--vintage "${vintage}" is not a date YYYY-MM-DD`);
  }
}

/**
 * The knowledge time of every value of a CSV download: --observed-at, else the vintage date,
 * else when the file was collected. A file of unknown age is refused rather than stamped with
 * the clock, which would make `as_of` see revised values at times they were not yet known.
 */
function resolveCsvKnowledgeTime(files: readonly string[], context: IngestContext): KnowledgeTime {
  const { observedAt, vintage } = context.options;
  if (observedAt !== undefined) return { observed_at: observedAt, method: 'collected' };
  if (vintage !== undefined)
    return resolveVintageTime(vintage, context.options.series ?? '', context.calendars);
  if (context.collectedAt !== null) return { observed_at: context.collectedAt, method: 'collected' };
  throw new InputError(
    files[0] ?? '(options)',
    null,
    'when these values were known is not recorded: pass --vintage YYYY-MM-DD (the FRED/ALFRED ' +
      'vintage date of the download) or --observed-at <RFC 3339 time>',
  );
}

/**
 * SQL: the period of `date` in its file group's frequency (periods.ts inferDateFrequency, missing
 * values included): first-of-month dates of at least two months are annual when all are
 * Januaries, quarterly when all start a quarter, else monthly; anything else is daily. (Whole
 * steps follow: differences of Januaries are whole years, of quarter starts whole quarters.)
 */
function periodSql(values: string): string {
  return `WITH dates AS (SELECT file_group, date, CAST(substr(date, 1, 4) AS INTEGER) AS year,
              CAST(substr(date, 6, 2) AS INTEGER) AS month, CAST(substr(date, 9, 2) AS INTEGER) AS day
              FROM ${values}),
         frequencies AS (
           SELECT file_group, CASE
                    WHEN bool_or(day <> 1) OR count(DISTINCT year * 12 + month) < 2 THEN 'daily'
                    WHEN bool_and(month = 1) THEN 'annual'
                    WHEN bool_and((month - 1) % 3 = 0) THEN 'quarterly'
                    ELSE 'monthly' END AS frequency
             FROM dates GROUP BY file_group
         )
    SELECT DISTINCT d.file_group, d.date, CASE f.frequency
             WHEN 'annual' THEN d.year::VARCHAR
             WHEN 'quarterly' THEN d.year::VARCHAR || '-Q' || ((d.month - 1) // 3 + 1)::VARCHAR
             WHEN 'monthly' THEN d.year::VARCHAR || '-' || lpad(d.month::VARCHAR, 2, '0')
             ELSE d.year::VARCHAR || substr(d.date, 5) END AS period
      FROM dates AS d JOIN frequencies AS f USING (file_group)`;
}

/**
 * The observations, sorted by series, period and knowledge time: records that share all three
 * are kept once when their values agree (overlapping downloads), else the first disagreement in
 * that order is refused, as sortLocatedObservations did. Values of one period are revisions
 * only at different knowledge times.
 */
async function createObservations(tables: FredTables, knowledge: FredKnowledge): Promise<FactRelation> {
  const { connection, prefix } = tables;
  const values = quotedIdentifier(tables.values);
  const known = quotedIdentifier(`${prefix}_known`);
  const located = quotedIdentifier(`${prefix}_located`);
  const observations = quotedIdentifier(`${prefix}_observations`);
  await createKnowledgeTable(
    connection,
    known,
    [...knowledge].map(([key, time]) => ({
      period: key,
      observed_at: time.observed_at,
      method: time.method,
    })),
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${located} AS
       WITH periods AS (${periodSql(values)})
       SELECT v.ordinal, v.file, v.line, v.series_key, p.period, v.value, v.source_ref, v.knowledge,
              t.observed_at, t.method, v.hint,
              lag(v.value) OVER w AS previous_value, lag(v.source_ref) OVER w AS previous_ref,
              row_number() OVER w AS nth
         FROM ${values} AS v JOIN periods AS p USING (file_group, date)
         JOIN ${known} AS t ON t.period = v.knowledge
        WHERE v.value IS NOT NULL
       WINDOW w AS (PARTITION BY v.series_key, p.period, t.observed_at ORDER BY v.ordinal)`,
  );
  const [clash] = await readRows<Record<string, unknown>>(
    connection,
    `SELECT file, line, series_key, period, knowledge, value, previous_value, previous_ref, hint
       FROM ${located} WHERE value <> previous_value
      ORDER BY series_key, period, observed_at, ordinal LIMIT 1`,
  );
  if (clash !== undefined) {
    const observedAt = knowledge.get(String(clash.knowledge))?.observed_at;
    throw new InputError(
      String(clash.file),
      clash.line === null ? null : Number(clash.line),
      `${clash.series_key} ${clash.period} observed at ${observedAt} is also in ${clash.previous_ref} ` +
        `with a different value (${Number(clash.value)} here, ${Number(clash.previous_value)} there)` +
        (clash.hint === null ? '' : `: ${clash.hint}`),
    );
  }
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${observations} AS
       SELECT series_key, period, value, source_ref, observed_at, method AS observed_at_method,
              {'observed_at': observed_at, 'method': method} AS correction,
              -- FRED redistributes other publishers' data.
              'unverified' AS verification_status, 0.9::DOUBLE AS confidence, 'official' AS data_class
         FROM ${located} WHERE nth = 1`,
  );
  return countedFactRelation(connection, observations, 'series_key, period, observed_at');
}

/** JSON starts with `{` (after a BOM and blanks); everything else is read as CSV. */
async function sniffFormat(file: string): Promise<'json' | 'csv'> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const start = buffer
      .toString('utf8', 0, bytesRead)
      .replace(/^\uFEFF/, '')
      .trimStart();
    return start.startsWith('{') ? 'json' : 'csv';
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

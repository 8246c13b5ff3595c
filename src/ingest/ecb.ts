import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ecbReleaseTime } from '../calendar/ecb-calendar.ts';
import { execute, quotedIdentifier, readRows } from '../db/duckdb.ts';
import type { FactRelation, ParsedBatch } from '../model/records.ts';
import { loadEcbCsvRates } from './ecb-csv.ts';
import { readEcbXmlRates } from './ecb-xml.ts';
import { countedFactRelation } from './fact-relation.ts';
import { InputError } from './input-error.ts';
import { citedName, type IngestContext, type Source } from './source.ts';
import { correctionSql, createKnowledgeTable, defineTextMacros } from './sql-text.ts';

/** The ECB parser's batch: its observations stay in DuckDB. */
export type EcbBatch = ParsedBatch & { observations?: FactRelation };

/** The scratch tables of one parse, named apart from any other parse on the connection. */
interface EcbTables {
  connection: DuckDBConnection;
  prefix: string;
  /** Every rate read: file_index, ordinal (order within the file), date, currency, value, source_ref, line. */
  rates: string;
}

const EXPECTED_FORMATS =
  'expected eurofxref-hist.csv ("Date,USD,..."), eurofxref.csv ("Date, USD, ...") or the gesmes XML';

/**
 * ECB euro foreign exchange reference rates as `ecb.<CUR>` observations (units of currency per
 * 1 EUR, period = rate date), from the full-history CSV, the single-day CSV, or the gesmes XML
 * (daily, 90-day or full history); the format is told by the content, not the file name.
 * rows_read counts (date, currency) cells, `N/A` included, and rows_skipped the `N/A` cells.
 * A rate found in two files (e.g. the daily and the 90-day XML) is kept once if the values agree.
 * The CSV files are read and checked by DuckDB, and the observations are handed on as a relation
 * on the context's connection: no JavaScript object per rate (the small XML files are parsed in
 * JavaScript and their rates inserted).
 */
export const ecbSource: Source<EcbBatch> = {
  id: 'ecb',
  description:
    'ECB euro reference rates: eurofxref-hist.csv, eurofxref.csv, eurofxref-daily/hist/hist-90d XML',
  async parse(files, context) {
    const { connection } = context;
    const prefix = `ecb_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const tables: EcbTables = { connection, prefix, rates: `${prefix}_rates` };
    const rates = quotedIdentifier(tables.rates);
    await defineTextMacros(connection);
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${rates} (file_index INTEGER, ordinal BIGINT, date VARCHAR,
         currency VARCHAR, value DOUBLE, source_ref VARCHAR, line INTEGER)`,
    );
    try {
      const batch: EcbBatch = { rows_read: 0, rows_skipped: 0 };
      for (const [fileIndex, file] of files.entries()) {
        const counts = await loadFileRates(file, fileIndex, tables, citedName(file, context));
        batch.rows_read += counts.read;
        batch.rows_skipped += counts.skipped;
        await assertAgreesWithEarlier(file, fileIndex, tables);
      }
      batch.observations = await createObservations(tables, context);
      return batch;
    } finally {
      await execute(connection, `DROP TABLE IF EXISTS ${rates}`);
      await execute(connection, `DROP TABLE IF EXISTS ${quotedIdentifier(`${prefix}_released`)}`);
    }
  },
};

async function loadFileRates(
  file: string,
  fileIndex: number,
  tables: EcbTables,
  name: string,
): Promise<{ read: number; skipped: number }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
  const content = text.replace(/^\uFEFF/, '');
  if (content.trim() === '') throw new InputError(file, null, 'file is empty');
  const target = { ...tables, fileIndex, name };
  if (content.trimStart().startsWith('<')) return insertXmlRates(file, content, target);
  const header = content.split('\n', 1)[0] ?? '';
  if (/^Date,[A-Z]{3}(,|\r?$)/.test(header)) return loadEcbCsvRates(file, 'iso', target);
  if (/^Date, [A-Z]{3}(,|\r?$)/.test(header)) return loadEcbCsvRates(file, 'long', target);
  throw new InputError(file, 1, `not an ECB reference-rate file: ${EXPECTED_FORMATS}`);
}

/** Parses an XML file (small: at most the full history as XML) and inserts its rates. */
async function insertXmlRates(
  file: string,
  content: string,
  target: EcbTables & { fileIndex: number; name: string },
): Promise<{ read: number; skipped: number }> {
  const { rates, read, skipped } = readEcbXmlRates(file, content, target.name);
  await execute(
    target.connection,
    `INSERT INTO ${quotedIdentifier(target.rates)}
       SELECT $fileIndex, ordinal, date, currency, value, source_ref, NULL
         FROM (SELECT unnest(from_json($rates::JSON,
           '[{"ordinal":"BIGINT","date":"VARCHAR","currency":"VARCHAR","value":"DOUBLE","source_ref":"VARCHAR"}]'),
           recursive := true))`,
    {
      fileIndex: target.fileIndex,
      rates: JSON.stringify(rates.map((rate, ordinal) => ({ ordinal, ...rate }))),
    },
  );
  return { read, skipped };
}

/**
 * Refuses a rate of the file that differs from the first one read for its (currency, date), in
 * this or an earlier file; the first such rate in file order is reported.
 */
async function assertAgreesWithEarlier(file: string, fileIndex: number, tables: EcbTables): Promise<void> {
  const [clash] = await readRows<{ message: string; line: number | null }>(
    tables.connection,
    `WITH first AS (
       SELECT currency, date, arg_min(value, {'f': file_index, 'o': ordinal}) AS value,
              arg_min(source_ref, {'f': file_index, 'o': ordinal}) AS source_ref
         FROM ${quotedIdentifier(tables.rates)} GROUP BY currency, date
     )
     SELECT r.currency, r.date, r.value, f.value AS first_value, f.source_ref AS first_ref, r.line
       FROM ${quotedIdentifier(tables.rates)} AS r JOIN first AS f USING (currency, date)
      WHERE r.file_index = $fileIndex AND r.value <> f.value
      ORDER BY r.ordinal LIMIT 1`,
    { fileIndex },
  );
  if (clash === undefined) return;
  const { currency, date, value, first_value, first_ref, line } = clash as unknown as Record<string, unknown>;
  throw new InputError(
    file,
    line === null ? null : Number(line),
    `${currency} ${date} is ${value} here but ${first_value} in ${first_ref}`,
  );
}

/**
 * The observations, one per (currency, date), as a temporary table read by the relation. The ECB
 * publishes the day's rates at about 16:00 Frankfurt time, before 1 July 2016 at about 14:30
 * (src/calendar/ecb-calendar.ts, computed once per date). A rate that changes a stored one is a
 * correction, dated when the file was collected.
 */
async function createObservations(tables: EcbTables, context: IngestContext): Promise<FactRelation> {
  const { connection, prefix } = tables;
  const released = quotedIdentifier(`${prefix}_released`);
  const observations = quotedIdentifier(`${prefix}_observations`);
  const override = context.options.observedAt;
  const dates = await readRows<{ date: string }>(
    connection,
    `SELECT DISTINCT date FROM ${quotedIdentifier(tables.rates)}`,
  );
  const times = dates.map(({ date }) => {
    if (override !== undefined) return { period: date, observed_at: override, method: 'collected' };
    const release = ecbReleaseTime(date);
    return { period: date, observed_at: release.observed_at, method: release.method };
  });
  await createKnowledgeTable(connection, released, times);
  const correction = correctionSql(context.collectedAt);
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${observations} AS
       SELECT 'ecb.' || r.currency AS series_key, r.date AS period, r.value, r.source_ref,
              t.observed_at, t.method AS observed_at_method, ${correction} AS correction,
              'verified' AS verification_status, 1::DOUBLE AS confidence, 'official' AS data_class
         FROM ${quotedIdentifier(tables.rates)} AS r JOIN ${released} AS t ON t.period = r.date
      QUALIFY row_number() OVER (PARTITION BY r.currency, r.date ORDER BY r.file_index, r.ordinal) = 1`,
    context.collectedAt === null ? undefined : { collectedAt: context.collectedAt },
  );
  return countedFactRelation(connection, observations, 'series_key, period');
}

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, readCsvSql, readRows } from '../db/duckdb.ts';
import { defineNumberText } from '../db/number-text.ts';
import { unpackZip } from '../fetch/unzip.ts';
import type { CotScope, FactRelation, ParsedBatch } from '../model/records.ts';
import { NET_FIELDS, REPORT_LAYOUTS } from './cftc-columns.ts';
import { resolveCftcHeader } from './cftc-headers.ts';
import { createCftcKnowledge, resolveFileScope } from './cftc-knowledge.ts';
import { createCftcRows } from './cftc-rows.ts';
import { assertNonEmptyFile, InputError } from './input-error.ts';
import { citedName, type IngestContext, memberName, type Source } from './source.ts';
import { correctionSql, createKnowledgeTable, defineTextMacros } from './sql-text.ts';

/** The CFTC parser's batch: its reports stay in DuckDB. */
export type CftcBatch = ParsedBatch & { cot_reports?: FactRelation; cot_report_columns?: FactRelation };

/** The columns of a report stored beside it (cot_report_columns), not in cot_reports. */
const EXTRA_COLUMNS = [...NET_FIELDS, 'crop_years'];

/** The report types whose files carry extras (every one but CIT). */
const TYPES_WITH_EXTRAS = REPORT_LAYOUTS.filter((layout) => layout.extras !== null).map(
  (layout) => layout.reportType,
);

const EXTRA_COLUMN = /^column\d+$/;

/** The scratch tables of one parse, named apart from any other parse on the connection. */
interface CftcTables {
  connection: DuckDBConnection;
  prefix: string;
  /** Every report read so far: file_index, line, the report's columns, source_ref. */
  reports: string;
}

/**
 * CFTC Commitments of Traders: the legacy, disaggregated, Traders in Financial Futures and
 * Commodity Index Trader text files (or the CFTC's zips of them), futures only or combined, told
 * apart by their header (the legacy combined file only by its name or `scope`), whose every
 * column must be in the table of known headers of its family and era (cftc-headers.ts). The
 * knowledge time of a report is its release in the CFTC calendar (published exceptions, holiday
 * shifts, else Friday 15:30 New York), computed once per report date. The files are read, mapped and checked by DuckDB, and the
 * reports are handed on as a relation on the context's connection: no JavaScript object per row.
 * The first bad row in file order is an InputError naming its line, as the JavaScript parser did.
 */
export const cftcSource: Source<CftcBatch> = {
  id: 'cftc',
  description:
    'CFTC Commitments of Traders: legacy, disaggregated, TFF and CIT text files, futures only or combined',
  async parse(files, context) {
    const { connection } = context;
    const prefix = `cftc_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const tables: CftcTables = { connection, prefix, reports: `${prefix}_reports` };
    await defineTextMacros(connection);
    await defineNumberText(connection);
    const batch: CftcBatch = { rows_read: 0, rows_skipped: 0 };
    if (files.length === 0) return batch;
    const unpacked = mkdtempSync(join(tmpdir(), 'mmds-cftc-'));
    try {
      for (const [fileIndex, file] of expandArchives(files, unpacked, context).entries()) {
        const counts = await loadFileReports(file, fileIndex, tables, context);
        batch.rows_read += counts.read;
        batch.rows_skipped += counts.skipped;
      }
      const reports = await createReports(tables, context);
      batch.cot_reports = reports.cot_reports;
      if (reports.cot_report_columns.rows > 0) batch.cot_report_columns = reports.cot_report_columns;
      return batch;
    } finally {
      rmSync(unpacked, { recursive: true, force: true });
      for (const part of ['raw', 'rows', 'reports', 'released']) {
        await execute(connection, `DROP TABLE IF EXISTS ${quotedIdentifier(`${prefix}_${part}`)}`);
      }
    }
  },
};

/** A file to read, and the name its reports cite in source_ref. */
interface CftcFile {
  path: string;
  name: string;
}

/**
 * The files to read: a zip (the CFTC's `deacot2004.zip`, `fut_disagg_txt_2017.zip`, …) stands
 * for its members, unpacked below `dir` in archive order and cited as `<zip>!<member>`; any
 * other file for itself.
 */
function expandArchives(files: readonly string[], dir: string, context: IngestContext): CftcFile[] {
  return files.flatMap((file, index) => {
    if (!/\.zip$/i.test(file)) return [{ path: file, name: citedName(file, context) }];
    try {
      return unpackZip(file, file, join(dir, String(index))).map((member) => ({
        path: member.path,
        name: memberName(file, member.member),
      }));
    } catch (error) {
      const reason = (error as Error).message.replace(`${file}: `, '');
      throw new InputError(file, null, `not a readable zip archive: ${reason}`);
    }
  });
}

/**
 * Reads one file into the rows table, checks its header and rows, and appends its reports to
 * the reports table; a report whose (series, period) an earlier row had is refused.
 */
async function loadFileReports(
  { path: file, name }: CftcFile,
  fileIndex: number,
  tables: CftcTables,
  context: IngestContext,
): Promise<{ read: number; skipped: number }> {
  const { connection, prefix } = tables;
  const raw = `${prefix}_raw`;
  const rows = `${prefix}_rows`;
  await assertNonEmptyFile(file);
  try {
    await execute(
      connection,
      `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(raw)} AS SELECT * FROM ${readCsvSql(file)}`,
    );
  } catch (error) {
    // DuckDB's first line says what failed; an open quote usually means a file cut short.
    const reason = (error as Error).message.split('\n')[0];
    throw new InputError(file, null, `not readable as comma-separated text (truncated file?): ${reason}`);
  }
  const [count] = await readRows<{ rows: number }>(
    connection,
    `SELECT count(*)::INTEGER AS rows FROM ${quotedIdentifier(raw)}`,
  );
  if ((count?.rows ?? 0) === 0) throw new InputError(file, 1, 'no data rows (header only?)');
  const columns = (
    await readRows<{ column_name: string }>(connection, `DESCRIBE ${quotedIdentifier(raw)}`)
  ).map((column) => column.column_name);
  const { layout, keys } = resolveCftcHeader(file, columns);
  const scope: CotScope | null = resolveFileScope(file, layout, context);
  await assertNoExtraFields(connection, file, raw, columns);
  await createCftcRows(connection, { raw, rows, columns, keys, layout, scope });
  await assertRowsValid(tables, { path: file, name }, fileIndex);
  await execute(
    connection,
    `${fileIndex === 0 ? `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(tables.reports)} AS` : `INSERT INTO ${quotedIdentifier(tables.reports)}`}
       SELECT $fileIndex::INTEGER AS file_index, * EXCLUDE (problem, skipped), $name || ':' || line AS source_ref
         FROM ${quotedIdentifier(rows)}`,
    { fileIndex, name },
  );
  const [counts] = await readRows<{ read: number; skipped: number }>(
    connection,
    `SELECT count(*)::INTEGER AS read, coalesce(sum(skipped), 0)::INTEGER AS skipped FROM ${quotedIdentifier(rows)}`,
  );
  return counts ?? { read: 0, skipped: 0 };
}

/**
 * DuckDB names the fields beyond the header `column<n>`; a row that fills one is malformed. The
 * first such row is named (none when only the header has them).
 */
async function assertNoExtraFields(
  connection: DuckDBConnection,
  file: string,
  raw: string,
  columns: readonly string[],
): Promise<void> {
  const extra = columns.filter((column) => EXTRA_COLUMN.test(column));
  if (extra.length === 0) return;
  const filled = extra.map((column) => `${quotedIdentifier(column)} IS NOT NULL`).join(' OR ');
  const [row] = await readRows<{ line: number }>(
    connection,
    `SELECT (rowid + 2)::INTEGER AS line FROM ${quotedIdentifier(raw)} WHERE ${filled} ORDER BY rowid LIMIT 1`,
  );
  const header = columns.length - extra.length;
  throw new InputError(file, row?.line ?? null, `row has more fields than the header (${header})`);
}

/**
 * Throws the InputError of the file's first bad row: its own first problem (cftc-rows.ts), else
 * a (series, period) that an earlier row of this or an earlier file already had.
 */
async function assertRowsValid(
  tables: CftcTables,
  { path: file, name }: CftcFile,
  fileIndex: number,
): Promise<void> {
  const { connection, prefix } = tables;
  const earlier =
    fileIndex === 0
      ? ''
      : `SELECT file_index, line, series_key, period, source_ref FROM ${quotedIdentifier(tables.reports)} UNION ALL`;
  const [problem] = await readRows<{ line: number; message: string }>(
    connection,
    `WITH keyed AS (
       ${earlier}
       SELECT $fileIndex::INTEGER AS file_index, line, series_key, period, $name || ':' || line AS source_ref
         FROM ${quotedIdentifier(`${prefix}_rows`)} WHERE problem IS NULL
     ),
     repeated AS (
       SELECT file_index, line, series_key || ' ' || period AS key,
              arg_min(source_ref, {'f': file_index, 'l': line}) OVER same AS first_ref,
              min({'f': file_index, 'l': line}) OVER same AS first
         FROM keyed WINDOW same AS (PARTITION BY series_key, period)
     )
     SELECT line, message FROM (
       SELECT line, problem AS message FROM ${quotedIdentifier(`${prefix}_rows`)} WHERE problem IS NOT NULL
       UNION ALL
       SELECT line, 'duplicate report ' || key || ': also at ' || first_ref FROM repeated
        WHERE file_index = $fileIndex AND first <> {'f': file_index, 'l': line}
     ) ORDER BY line LIMIT 1`,
    { fileIndex, name },
  );
  if (problem !== undefined) throw new InputError(file, Number(problem.line), problem.message);
}

/**
 * The reports, with their knowledge times computed in JavaScript once per report date and
 * joined from a small table, as a temporary table read by two relations: the reports
 * (cot_reports) and, for the families that have them, the columns stored beside them
 * (cot_report_columns), with the same provenance and knowledge time.
 */
async function createReports(
  tables: CftcTables,
  context: IngestContext,
): Promise<{ cot_reports: FactRelation; cot_report_columns: FactRelation }> {
  const { connection, prefix } = tables;
  const released = quotedIdentifier(`${prefix}_released`);
  const reports = quotedIdentifier(`${prefix}_cot_reports`);
  const knowledge = createCftcKnowledge(context);
  const periods = await readRows<{ period: string }>(
    connection,
    `SELECT DISTINCT period FROM ${quotedIdentifier(tables.reports)}`,
  );
  const times = periods.map(({ period }) => {
    const known = knowledge(period);
    return { period, observed_at: known.observed_at, method: known.observed_at_method };
  });
  await createKnowledgeTable(connection, released, times);
  const correction = correctionSql(context.collectedAt);
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${reports} AS
       SELECT r.* EXCLUDE (file_index, line, source_ref), r.source_ref,
              t.observed_at, t.method AS observed_at_method, ${correction} AS correction,
              'verified' AS verification_status, 1::DOUBLE AS confidence, 'official' AS data_class
         FROM ${quotedIdentifier(tables.reports)} AS r JOIN ${released} AS t USING (period)
        ORDER BY r.file_index, r.line`,
    context.collectedAt === null ? undefined : { collectedAt: context.collectedAt },
  );
  const withExtras = `report_type IN (${TYPES_WITH_EXTRAS.map((type) => `'${type}'`).join(', ')})`;
  const [count] = await readRows<{ rows: number; extras: number }>(
    connection,
    `SELECT count(*)::INTEGER AS rows, (count(*) FILTER (WHERE ${withExtras}))::INTEGER AS extras FROM ${reports}`,
  );
  const provenance =
    'source_ref, observed_at, observed_at_method, correction, verification_status, confidence, data_class';
  return {
    cot_reports: {
      kind: 'relation',
      sql: `SELECT * EXCLUDE (${EXTRA_COLUMNS.join(', ')}) FROM ${reports}`,
      orderBy: 'series_key, period',
      rows: count?.rows ?? 0,
    },
    cot_report_columns: {
      kind: 'relation',
      sql: `SELECT series_key, period, ${EXTRA_COLUMNS.join(', ')}, ${provenance} FROM ${reports} WHERE ${withExtras}`,
      orderBy: 'series_key, period',
      rows: count?.extras ?? 0,
    },
  };
}

import { basename } from 'node:path';
import { type CsvRow, readCsvFile } from '../../src/db/duckdb.ts';
import {
  CROP_FIELDS,
  type CropField,
  isPercentField,
  NET_FIELDS,
  type PositionField,
  type ReportField,
  type ReportLayout,
} from '../../src/ingest/cftc-columns.ts';
import { resolveCftcHeader } from '../../src/ingest/cftc-headers.ts';
import {
  type CftcKnowledge,
  createCftcKnowledge,
  readRowScope,
  resolveFileScope,
} from '../../src/ingest/cftc-knowledge.ts';
import { assertNonEmptyFile, InputError } from '../../src/ingest/input-error.ts';
import { parseIsoDate } from '../../src/ingest/periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from '../../src/ingest/source.ts';
import { cleanText, parseNumber } from '../../src/ingest/values.ts';
import type {
  CotCropYear,
  CotNetConcentration,
  CotPosition,
  CotReportColumnsInput,
  CotReportInput,
  CotScope,
  RecordBatch,
} from '../../src/model/records.ts';

/** Codes are zero-padded alphanumerics; consolidated markets end in `+` (`13874+`). */
const MARKET_CODE = /^[0-9A-Z]+\+?$/;
const EXTRA_COLUMN = /^column\d+$/;

/** One data row being read: where it is, its values, and the file's column names after trimming. */
interface RowReader {
  file: string;
  line: number;
  values: Record<string, string | null>;
  keys: ReadonlyMap<string, string>;
  /** Counts the missing-value markers (`.`) read as null. */
  onMissing: () => void;
  /** Throws an InputError naming the file and line. */
  fail: (message: string) => never;
}

/** How one file is read: its layout, the scope it was declared in, and the knowledge times. */
interface FileReading {
  layout: ReportLayout;
  scope: CotScope | null;
  knowledge: (period: string) => CftcKnowledge;
}

/**
 * The former JavaScript CFTC parser (src/ingest/cftc.ts before it read and checked the files in
 * DuckDB), kept as the oracle the DuckDB parser is tested against (test/unit/ingest/cftc-duckdb.test.ts).
 *
 * CFTC Commitments of Traders: the legacy, disaggregated, Traders in Financial Futures and
 * Commodity Index Trader text files, futures only or combined, told apart by their header (the
 * legacy combined file only by its name or `scope`). The knowledge time of a report is its
 * release in the CFTC calendar (published exceptions, holiday shifts, else Friday 15:30 New York).
 */
export const cftcJsOracleSource: Source<RecordBatch> = {
  id: 'cftc',
  description:
    'CFTC Commitments of Traders: legacy, disaggregated, TFF and CIT text files, futures only or combined',
  async parse(files, context) {
    const batch = createEmptyBatch();
    const reports: CotReportInput[] = [];
    const extras: CotReportColumnsInput[] = [];
    const seen = new Map<string, string>();
    const knowledge = createCftcKnowledge(context);
    const onMissing = () => {
      batch.rows_skipped++;
    };
    for (const file of files) {
      const rows = await readRows(file, context);
      const columns = Object.keys(rows[0]?.values ?? {});
      const { layout, keys } = resolveCftcHeader(file, columns);
      const reading: FileReading = { layout, scope: resolveFileScope(file, layout, context), knowledge };
      assertNoExtraFields(file, rows, columns);
      const lastColumn = columns[columns.length - 1] ?? '';
      for (const row of rows) {
        batch.rows_read++;
        assertComplete(file, row, columns, lastColumn);
        const fail = (message: string): never => {
          throw new InputError(file, row.line, message);
        };
        const reader: RowReader = { file, line: row.line, values: row.values, keys, onMissing, fail };
        const report = readReport(reader, reading);
        const extra = readExtras(reader, layout, report);
        const key = `${report.series_key} ${report.period}`;
        const previous = seen.get(key);
        if (previous !== undefined) {
          throw new InputError(file, row.line, `duplicate report ${key}: also at ${previous}`);
        }
        seen.set(key, report.source_ref);
        reports.push(report);
        if (extra !== null) extras.push(extra);
      }
    }
    batch.cot_reports = reports;
    if (extras.length > 0) batch.cot_report_columns = extras;
    return batch;
  },
};

async function readRows(file: string, context: IngestContext): Promise<CsvRow[]> {
  await assertNonEmptyFile(file);
  let rows: CsvRow[];
  try {
    rows = await readCsvFile(context.connection, file);
  } catch (error) {
    // DuckDB's first line says what failed; an open quote usually means a file cut short.
    const reason = (error as Error).message.split('\n')[0];
    throw new InputError(file, null, `not readable as comma-separated text (truncated file?): ${reason}`);
  }
  if (rows.length === 0) throw new InputError(file, 1, 'no data rows (header only?)');
  return rows;
}

/** DuckDB names the fields beyond the header `column<n>`; a row that fills one is malformed. */
function assertNoExtraFields(file: string, rows: readonly CsvRow[], columns: readonly string[]): void {
  const extra = columns.filter((column) => EXTRA_COLUMN.test(column));
  if (extra.length === 0) return;
  const row = rows.find((candidate) => extra.some((column) => candidate.values[column] !== null));
  const header = columns.length - extra.length;
  throw new InputError(file, row?.line ?? null, `row has more fields than the header (${header})`);
}

/** DuckDB pads a short row with nulls, so an empty last column means the line ends early. */
function assertComplete(file: string, row: CsvRow, columns: readonly string[], lastColumn: string): void {
  if (row.values[lastColumn] !== null && row.values[lastColumn] !== undefined) return;
  let fields = columns.length;
  while (fields > 0 && row.values[columns[fields - 1] ?? ''] === null) fields--;
  throw new InputError(
    file,
    row.line,
    `row ends early: ${fields} of ${columns.length} fields, "${lastColumn.trim()}" missing (truncated file?)`,
  );
}

function readReport(row: RowReader, { layout, scope: declared, knowledge }: FileReading): CotReportInput {
  const period = readPeriod(row, layout);
  const marketCode = readText(row, layout.marketCode, true);
  if (!MARKET_CODE.test(marketCode)) {
    row.fail(`column "${layout.marketCode}": not a market code: "${marketCode}"`);
  }
  const scope = readScope(row, layout, declared);
  const total = (field: ReportField) => {
    const column = layout.totals[field];
    return column === null ? null : readNumber(row, column, field);
  };
  // Futures-only keys stay as they always were; the combined figures are another series.
  const suffix = scope === 'combined' ? '.combined' : '';
  return {
    series_key: `cftc.${marketCode}.${layout.reportType}${suffix}`,
    report_type: layout.reportType,
    scope,
    market_code: marketCode,
    exchange_code: readText(row, layout.exchangeCode, false),
    region_code: readText(row, layout.regionCode, false),
    commodity_code: readText(row, layout.commodityCode, false),
    subgroup_code: layout.subgroupCode === null ? null : readText(row, layout.subgroupCode, false),
    period,
    market_name: readText(row, layout.marketName, true),
    contract_units: readText(row, layout.contractUnits, false),
    open_interest: total('open_interest'),
    change_open_interest: total('change_open_interest'),
    traders_total: total('traders_total'),
    conc_gross_le4_long: total('conc_gross_le4_long'),
    conc_gross_le4_short: total('conc_gross_le4_short'),
    conc_gross_le8_long: total('conc_gross_le8_long'),
    conc_gross_le8_short: total('conc_gross_le8_short'),
    positions: layout.categories.map(({ category, columns }) => readPosition(row, category, columns)),
    source_ref: `${basename(row.file)}:${row.line}`,
    ...knowledge(period),
    verification_status: 'verified',
    confidence: 1,
    data_class: 'official',
  };
}

/**
 * The columns stored beside a report (cot_report_columns), read after the report's own: the net
 * concentration ratios, then per crop year its totals and categories. Null for CIT.
 */
function readExtras(
  row: RowReader,
  layout: ReportLayout,
  report: CotReportInput,
): CotReportColumnsInput | null {
  const { extras } = layout;
  if (extras === null) return null;
  const net = Object.fromEntries(
    NET_FIELDS.map((field) => [field, readNumber(row, extras.net[field], field)]),
  ) as unknown as CotNetConcentration;
  const cropYears = extras.cropYears.map((crop): CotCropYear => {
    const totals = Object.fromEntries(
      CROP_FIELDS.map((field) => [field, readNumber(row, crop.totals[field], field)]),
    ) as Record<CropField, number | null>;
    return {
      crop: crop.crop,
      ...totals,
      positions: crop.categories.map(({ category, columns }) => readPosition(row, category, columns)),
    };
  });
  const { series_key, period, source_ref, observed_at, observed_at_method } = report;
  return {
    series_key,
    period,
    ...net,
    crop_years: cropYears.length === 0 ? null : cropYears,
    source_ref,
    observed_at,
    observed_at_method,
    ...(report.correction === undefined ? {} : { correction: report.correction }),
    verification_status: report.verification_status,
    confidence: report.confidence,
    data_class: report.data_class,
  };
}

function readPosition(
  row: RowReader,
  category: string,
  columns: Partial<Record<PositionField, string>>,
): CotPosition {
  // A field without a column is one the CFTC does not publish for this category.
  const value = (field: PositionField) => {
    const column = columns[field];
    return column === undefined ? null : readNumber(row, column, field);
  };
  return {
    category,
    long: value('long'),
    short: value('short'),
    spread: value('spread'),
    change_long: value('change_long'),
    change_short: value('change_short'),
    change_spread: value('change_spread'),
    pct_oi_long: value('pct_oi_long'),
    pct_oi_short: value('pct_oi_short'),
    pct_oi_spread: value('pct_oi_spread'),
    traders_long: value('traders_long'),
    traders_short: value('traders_short'),
    traders_spread: value('traders_spread'),
  };
}

/** The row's scope: from its `FutOnly_or_Combined` column where the layout has one. */
function readScope(row: RowReader, layout: ReportLayout, declared: CotScope | null): CotScope {
  if (layout.scope === null) return declared ?? 'futures_only';
  const scope = readRowScope(readText(row, layout.scope, true), declared);
  if (scope !== 'futures_only' && scope !== 'combined') row.fail(`column "${layout.scope}": ${scope}`);
  return scope as CotScope;
}

/** The report date, which must agree with the YYMMDD copy the CFTC publishes beside it. */
function readPeriod(row: RowReader, layout: ReportLayout): string {
  const period = readText(row, layout.dateIso, true);
  if (parseIsoDate(period) === null) {
    row.fail(`column "${layout.dateIso}": expected a date YYYY-MM-DD, got "${period}"`);
  }
  const yymmdd = readText(row, layout.dateYymmdd, true);
  if (yymmdd !== period.slice(2).replaceAll('-', '')) {
    row.fail(`column "${layout.dateYymmdd}" says ${yymmdd} but "${layout.dateIso}" says ${period}`);
  }
  return period;
}

function readText(row: RowReader, column: string, required: true): string;
function readText(row: RowReader, column: string, required: false): string | null;
function readText(row: RowReader, column: string, required: boolean): string | null {
  const text = cleanText(row.values[row.keys.get(column) ?? column]);
  if (text === null && required) row.fail(`column "${column}": value missing`);
  return text;
}

function readNumber(
  row: RowReader,
  column: string,
  field: PositionField | ReportField | CropField,
): number | null {
  const value = parseNumber(row.values[row.keys.get(column) ?? column], {
    file: row.file,
    line: row.line,
    column,
  });
  if (value === null) {
    row.onMissing();
  } else if (!isPercentField(field) && !Number.isInteger(value)) {
    row.fail(`column "${column}": expected a whole number, got ${value}`);
  }
  return value;
}

import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString } from '../db/duckdb.ts';
import { COT_POSITION_FIELDS, type CotScope } from '../model/records.ts';
import {
  type CategoryColumns,
  CROP_FIELDS,
  type CropField,
  isPercentField,
  NET_FIELDS,
  type PositionField,
  type ReportField,
  type ReportLayout,
} from './cftc-columns.ts';

/** The order the former parser read a category's fields in (CotPosition's order). */
const POSITION_FIELDS: readonly PositionField[] = COT_POSITION_FIELDS;
const TOTAL_FIELDS: readonly ReportField[] = [
  'open_interest',
  'change_open_interest',
  'traders_total',
  'conc_gross_le4_long',
  'conc_gross_le4_short',
  'conc_gross_le8_long',
  'conc_gross_le8_short',
];

/** One CFTC file loaded as text, with what its header said. */
export interface CftcRowsSpec {
  /** The table of the file's rows as read_csv gave them (all text, file order). */
  raw: string;
  /** The table to create: one row per data line, its first problem, and its typed values. */
  rows: string;
  /** Every column of the file, as DuckDB names it, in order. */
  columns: readonly string[];
  /** Published (trimmed) column name to the name DuckDB gave it. */
  keys: ReadonlyMap<string, string>;
  layout: ReportLayout;
  /** The scope the file was declared in, or null when its rows say it. */
  scope: CotScope | null;
}

/**
 * Creates the rows table of one CFTC file: per line its number (the header is line 1), the first
 * problem the former JavaScript parser would have thrown for it, with its precedence (a short
 * row, the dates, market code, scope, market name, the totals, then the categories field by
 * field), the report's values (numbers as DOUBLE, as JavaScript held them; NULL where a problem
 * is), and how many missing-value markers it held.
 */
export async function createCftcRows(connection: DuckDBConnection, spec: CftcRowsSpec): Promise<void> {
  const { layout } = spec;
  const texts: string[] = [];
  const numbers: string[] = [];
  const problems: string[] = [];
  // The value of the first count with a fraction, printed once: mmds_number_text is a large macro.
  const fractions: string[] = [];
  const textOf = new Map<string, string>();
  // Cleaned text of a published column, computed once per column as t<i>.
  const text = (column: string): string => {
    let alias = textOf.get(column);
    if (alias === undefined) {
      alias = `mmds_t${textOf.size}`;
      textOf.set(column, alias);
      const raw = quotedIdentifier(spec.keys.get(column) ?? column);
      texts.push(raw);
    }
    return alias;
  };
  const label = (column: string) => `column "${column}": `;
  const required = (column: string) => {
    problems.push(`WHEN ${text(column)} IS NULL THEN ${quotedString(`${label(column)}value missing`)}`);
    return text(column);
  };
  const numberAliases: string[] = [];
  const number = (column: string, field: PositionField | ReportField | CropField): string => {
    const t = text(column);
    const alias = `mmds_n${numberAliases.length}`;
    numberAliases.push(t);
    numbers.push(t);
    const present = `NOT mmds_m${numberAliases.length - 1}`;
    problems.push(
      `WHEN ${present} AND (${alias} IS NULL OR NOT isfinite(${alias}))
         THEN ${quotedString(`${label(column)}expected a number, got "`)} || ${t} || '"'`,
    );
    if (!isPercentField(field)) {
      const fraction = `${present} AND ${alias} <> trunc(${alias})`;
      problems.push(`WHEN ${fraction} THEN ${quotedString(`${label(column)}expected a whole number, got `)}`);
      fractions.push(`WHEN ${fraction} THEN ${alias}`);
    }
    // Counts stay DOUBLE here: the store casts them, and refuses one out of range, as it did.
    return alias;
  };

  const columnList = spec.columns.map(quotedIdentifier);
  const lastColumn = spec.columns[spec.columns.length - 1] ?? '';
  const filled = `list_position(list_reverse([${columnList.map((c) => `${c} IS NOT NULL`).join(', ')}]), true)`;
  problems.push(
    `WHEN ${quotedIdentifier(lastColumn)} IS NULL THEN 'row ends early: '
       || CASE WHEN ${filled} IS NULL THEN 0 ELSE ${spec.columns.length} - ${filled} + 1 END
       || ${quotedString(` of ${spec.columns.length} fields, "${lastColumn.trim()}" missing (truncated file?)`)}`,
  );
  const period = required(layout.dateIso);
  problems.push(
    `WHEN mmds_iso_date(${period}) IS NULL
       THEN ${quotedString(`${label(layout.dateIso)}expected a date YYYY-MM-DD, got "`)} || ${period} || '"'`,
  );
  const yymmdd = required(layout.dateYymmdd);
  problems.push(
    `WHEN ${yymmdd} <> replace(substr(${period}, 3), '-', '')
       THEN ${quotedString(`column "${layout.dateYymmdd}" says `)} || ${yymmdd}
         || ${quotedString(` but "${layout.dateIso}" says `)} || ${period}`,
  );
  const marketCode = required(layout.marketCode);
  problems.push(
    `WHEN NOT regexp_full_match(${marketCode}, '[0-9A-Z]+\\+?')
       THEN ${quotedString(`${label(layout.marketCode)}not a market code: "`)} || ${marketCode} || '"'`,
  );
  const scope = scopeSql(layout, spec.scope, required, problems);
  const marketName = required(layout.marketName);
  const totals = TOTAL_FIELDS.map((field) => {
    const column = layout.totals[field];
    return `${column === null ? 'CAST(NULL AS DOUBLE)' : number(column, field)} AS ${field}`;
  });
  const positionList = (categories: readonly CategoryColumns[]) =>
    `[${categories
      .map(({ category, columns }) => {
        const fields = POSITION_FIELDS.map((field) => {
          const column = columns[field];
          return `${quotedString(field)}: ${column === undefined ? 'CAST(NULL AS DOUBLE)' : number(column, field)}`;
        });
        return `{'category': ${quotedString(category)}, ${fields.join(', ')}}`;
      })
      .join(', ')}]`;
  const positions = positionList(layout.categories);
  // The extras (cot_report_columns) come after the report's own columns, as the oracle reads them.
  const { extras } = layout;
  const net = NET_FIELDS.map(
    (field) => `${extras === null ? 'CAST(NULL AS DOUBLE)' : number(extras.net[field], field)} AS ${field}`,
  );
  const cropYears =
    extras === null || extras.cropYears.length === 0
      ? 'NULL'
      : `[${extras.cropYears
          .map(({ crop, totals: columns, categories }) => {
            const fields = CROP_FIELDS.map(
              (field) => `${quotedString(field)}: ${number(columns[field], field)}`,
            );
            return `{'crop': ${quotedString(crop)}, ${fields.join(', ')}, 'positions': ${positionList(categories)}}`;
          })
          .join(', ')}]`;
  const optional = (column: string | null) => (column === null ? 'CAST(NULL AS VARCHAR)' : text(column));
  // Every text alias is taken before the SQL is laid out.
  const identity = [
    `${optional(layout.exchangeCode)} AS exchange_code`,
    `${optional(layout.regionCode)} AS region_code`,
    `${optional(layout.commodityCode)} AS commodity_code`,
    `${optional(layout.subgroupCode)} AS subgroup_code`,
    `${period} AS period`,
    `${marketName} AS market_name`,
    `${optional(layout.contractUnits)} AS contract_units`,
  ];
  const suffix = `CASE WHEN ${scope} = 'combined' THEN '.combined' ELSE '' END`;
  // Each macro is applied to a list of the row's cells, so that it is expanded (bound) once.
  const items = (list: string, prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${list}[${index + 1}] AS ${prefix}${index}`).join(', ');
  const cleaned = `list_transform([${texts.join(', ')}], lambda s: mmds_clean_text(s))`;
  const missing = `list_transform([${numbers.join(', ')}], lambda t: mmds_missing_value(t))`;
  const parsed = `list_transform([${numbers.join(', ')}],
    lambda t: CASE WHEN NOT mmds_missing_value(t) THEN mmds_number_value(replace(t, ',', '')) END)`;
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE ${quotedIdentifier(spec.rows)} AS
       WITH cleaned AS (
         SELECT rowid + 2 AS mmds_line, *, ${cleaned} AS mmds_texts FROM ${quotedIdentifier(spec.raw)}
       ),
       texts AS (SELECT *, ${items('mmds_texts', 'mmds_t', texts.length)} FROM cleaned),
       parsed AS (SELECT *, ${missing} AS mmds_missing, ${parsed} AS mmds_numbers FROM texts),
       numbers AS (
         SELECT *, ${items('mmds_missing', 'mmds_m', numbers.length)}, ${items('mmds_numbers', 'mmds_n', numbers.length)}
           FROM parsed
       ),
       checked AS (
         SELECT *, CASE ${problems.join('\n')} END AS mmds_problem,
                ${fractions.length === 0 ? 'CAST(NULL AS DOUBLE)' : `CASE ${fractions.join('\n')} END`} AS mmds_fraction
           FROM numbers
       )
       SELECT mmds_line::INTEGER AS line,
              CASE WHEN ends_with(mmds_problem, ': expected a whole number, got ')
                   THEN mmds_problem || mmds_number_text(mmds_fraction) ELSE mmds_problem END AS problem,
              'cftc.' || ${marketCode} || '.' || ${quotedString(layout.reportType)} || ${suffix} AS series_key,
              ${quotedString(layout.reportType)} AS report_type, ${scope} AS scope,
              ${marketCode} AS market_code, ${identity.join(', ')},
              ${totals.join(', ')},
              ${positions} AS positions,
              ${net.join(', ')}, ${cropYears} AS crop_years,
              len(list_filter(mmds_missing, lambda m: m))::INTEGER AS skipped
         FROM checked`,
  );
}

/** SQL of a row's scope, adding the checks of its scope column where the layout has one. */
function scopeSql(
  layout: ReportLayout,
  declared: CotScope | null,
  required: (column: string) => string,
  problems: string[],
): string {
  if (layout.scope === null) return quotedString(declared ?? 'futures_only');
  const value = required(layout.scope);
  const label = `column "${layout.scope}": `;
  problems.push(
    `WHEN ${value} NOT IN ('FutOnly', 'Combined')
       THEN ${quotedString(`${label}expected FutOnly or Combined, got "`)} || ${value} || '"'`,
  );
  const scope = `CASE ${value} WHEN 'FutOnly' THEN 'futures_only' WHEN 'Combined' THEN 'combined' END`;
  if (declared !== null) {
    problems.push(
      `WHEN ${scope} <> ${quotedString(declared)}
         THEN ${quotedString(label)} || 'says ' || ${value} || ${quotedString(` but the files were declared ${declared}`)}`,
    );
  }
  return scope;
}

/**
 * The one rule that keeps a CSV cell from running as a spreadsheet formula (OWASP CSV Injection,
 * https://owasp.org/www-community/attacks/CSV_Injection), for the API's CSV (api/v1/csv.ts) and
 * the bulk export's csv.gz (query/bulk-export.ts, as a DuckDB expression from the same patterns):
 * a text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'`, unless the text is
 * just a decimal number (`-1.5`, `+2`), which cannot call anything. Number cells are never altered.
 */

/** OWASP's list of first characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START_SOURCE = '^[=+\\-@\\t\\r]';
/** A plain decimal number (`-1.5`, `+2`, `1e-3`): read as a number, never as a formula call. */
const NUMBER_TEXT_SOURCE = '^[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?$';

const FORMULA_START = new RegExp(FORMULA_START_SOURCE);
const NUMBER_TEXT = new RegExp(NUMBER_TEXT_SOURCE);

/** The prefix a neutralised cell gets: spreadsheets show the rest as text. */
export const FORMULA_PREFIX = "'";

/** Whether a text cell must be prefixed (it starts like a formula and is not a decimal number). */
export function startsLikeFormula(text: string): boolean {
  return FORMULA_START.test(text) && !NUMBER_TEXT.test(text);
}

/**
 * The same rule as a DuckDB SQL expression over a VARCHAR expression: the text, prefixed where
 * `startsLikeFormula` would prefix it (RE2 reads the patterns as JavaScript does; SQL string
 * literals keep their backslashes).
 */
export function neutraliseFormulaSql(expression: string): string {
  return (
    `CASE WHEN regexp_matches(${expression}, '${FORMULA_START_SOURCE}') ` +
    `AND NOT regexp_matches(${expression}, '${NUMBER_TEXT_SOURCE}') ` +
    `THEN '${FORMULA_PREFIX}${FORMULA_PREFIX}' || ${expression} ELSE ${expression} END`
  );
}

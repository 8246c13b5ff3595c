import { FORMULA_PREFIX, startsLikeFormula } from '../../lib/csv-formula.ts';

/**
 * CSV rendering of a payload's `data` array for `format=csv` (CONTRACT section 6): RFC 4180 with
 * a header row and CRLF line ends. Nested objects become dotted column names
 * (`categories.noncommercial.long`), arrays are joined with `;`, null is an empty field.
 * Text that a spreadsheet would run as a formula is neutralised by the rule the bulk export
 * shares (lib/csv-formula.ts); numbers are written unchanged.
 */

const CRLF = '\r\n';
const NEEDS_QUOTES = /[",\r\n]/;

/** One rendered field: its text, and whether it is a number (or a list of numbers) only. */
interface Cell {
  text: string;
  numeric: boolean;
}

const EMPTY: Cell = { text: '', numeric: false };

/**
 * Renders an array of rows as RFC 4180 CSV; columns are the union of the rows' fields in
 * first-seen order. Without rows the header is `columnsIfEmpty` (csv-columns.ts), so that an
 * empty answer still has its header row.
 */
export function renderCsv(data: unknown[], columnsIfEmpty: readonly string[] = []): string {
  const rows = data.map(flattenRow);
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const column of row.keys()) {
      if (!seen.has(column)) {
        seen.add(column);
        columns.push(column);
      }
    }
  }
  const kept = rows.length
    ? columns.filter((column) => !isEmptyParent(column, columns, rows))
    : [...columnsIfEmpty];
  if (kept.length === 0) return '';
  const lines = [kept.map((column) => renderField({ text: column, numeric: false }))];
  for (const row of rows) lines.push(kept.map((column) => renderField(row.get(column) ?? EMPTY)));
  return lines.map((fields) => fields.join(',') + CRLF).join('');
}

/**
 * One field of a data line as renderCsv writes a scalar or list value (quoted and neutralised
 * alike): what a page put together from cells (history-field-bytes.ts) writes per field.
 */
export function renderCsvCell(value: unknown): string {
  return renderField(formatScalar(value));
}

/** The CSV columns one row gives (its fields flattened as renderCsv names them), in order. */
export function listCsvColumns(row: unknown): string[] {
  return [...flattenRow(row).keys()];
}

/**
 * A field that is null in some rows and an object in others (`latest: null`) would give both a
 * `latest` and `latest.period` column; the bare one carries nothing, so it is left out.
 */
function isEmptyParent(column: string, columns: readonly string[], rows: ReadonlyArray<Map<string, Cell>>) {
  const prefix = `${column}.`;
  return (
    columns.some((c) => c.startsWith(prefix)) && rows.every((row) => (row.get(column) ?? EMPTY).text === '')
  );
}

/** A row that is not an object (a bare number or string) is a single `value` column. */
function flattenRow(item: unknown): Map<string, Cell> {
  const out = new Map<string, Cell>();
  if (isPlainObject(item)) flattenInto(out, '', item);
  else out.set('value', formatScalar(item));
  return out;
}

function flattenInto(out: Map<string, Cell>, prefix: string, value: Record<string, unknown>): void {
  for (const [key, child] of Object.entries(value)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(child)) flattenInto(out, name, child);
    else out.set(name, formatScalar(child));
  }
}

function formatScalar(value: unknown): Cell {
  if (value === null || value === undefined) return EMPTY;
  if (Array.isArray(value)) {
    // `-1;2` from [-1, 2] holds no text a formula could call, so it stays as written too.
    const numeric = value.length > 0 && value.every((element) => isNumber(element) || element === null);
    return { text: value.map(formatElement).join(';'), numeric };
  }
  if (isPlainObject(value)) return { text: JSON.stringify(value), numeric: false };
  return { text: String(value), numeric: isNumber(value) };
}

/** Objects inside arrays have no column of their own: they stay JSON within the joined field. */
function formatElement(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint';
}

/**
 * Quotes a field where RFC 4180 needs it. Text starting like a formula (OWASP: `=`, `+`, `-`,
 * `@`, tab, CR) is prefixed with `'` and always quoted, so a spreadsheet shows it as text; a
 * number, or text that is just a decimal number (`-1.5`), cannot run anything and is kept.
 */
function renderField(cell: Cell): string {
  const { text } = cell;
  if (!cell.numeric && startsLikeFormula(text)) {
    return `"${FORMULA_PREFIX}${text.replaceAll('"', '""')}"`;
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

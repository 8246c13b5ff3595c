/**
 * CSV rendering of a payload's `data` array for `format=csv` (CONTRACT section 6): RFC 4180 with
 * a header row and CRLF line ends. Nested objects become dotted column names
 * (`categories.noncommercial.long`), arrays are joined with `;`, null is an empty field.
 */

const CRLF = '\r\n';
const NEEDS_QUOTES = /[",\r\n]/;

/** Renders an array of rows as RFC 4180 CSV; columns are the union of the rows' fields in first-seen order. */
export function renderCsv(data: unknown[]): string {
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
  const kept = columns.filter((column) => !isEmptyParent(column, columns, rows));
  if (kept.length === 0) return '';
  const lines = [kept.map(quoteField)];
  for (const row of rows) lines.push(kept.map((column) => quoteField(row.get(column) ?? '')));
  return lines.map((fields) => fields.join(',') + CRLF).join('');
}

/**
 * A field that is null in some rows and an object in others (`latest: null`) would give both a
 * `latest` and `latest.period` column; the bare one carries nothing, so it is left out.
 */
function isEmptyParent(column: string, columns: readonly string[], rows: ReadonlyArray<Map<string, string>>) {
  const prefix = `${column}.`;
  return columns.some((c) => c.startsWith(prefix)) && rows.every((row) => (row.get(column) ?? '') === '');
}

/** A row that is not an object (a bare number or string) is a single `value` column. */
function flattenRow(item: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (isPlainObject(item)) flattenInto(out, '', item);
  else out.set('value', formatScalar(item));
  return out;
}

function flattenInto(out: Map<string, string>, prefix: string, value: Record<string, unknown>): void {
  for (const [key, child] of Object.entries(value)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(child)) flattenInto(out, name, child);
    else out.set(name, formatScalar(child));
  }
}

function formatScalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(formatElement).join(';');
  if (isPlainObject(value)) return JSON.stringify(value);
  return String(value);
}

/** Objects inside arrays have no column of their own: they stay JSON within the joined field. */
function formatElement(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function quoteField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

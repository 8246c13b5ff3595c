import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { splitCsvLine } from '../e2e/pipeline/store-files.ts';

/** One data line of a CFTC file as written: its line number and its fields, unquoted and trimmed. */
export interface CftcFileLine {
  line: number;
  fields: string[];
}

/** A CFTC file read without the parser: the trimmed header and every data line. */
export interface CftcFileReading {
  header: string[];
  lines: CftcFileLine[];
}

/** The fields of one CSV line: quotes removed (`""` is a quote), every field trimmed. */
function splitFields(text: string): string[] {
  return splitCsvLine(text).map((field) => field.trim());
}

/**
 * Reads a CFTC COT text file, or the one member of a CFTC zip, by hand: split into CRLF or LF
 * lines and comma-separated fields, with no use of the parser's column table or of DuckDB. The
 * independent reading the history tests compare the stored reports with, number for number.
 */
export function readCftcFileByHand(path: string): CftcFileReading {
  let bytes: Uint8Array = readFileSync(path);
  if (path.endsWith('.zip')) {
    const members = Object.values(unzipSync(bytes));
    if (members.length !== 1) throw new Error(`${path}: expected one member, found ${members.length}`);
    bytes = members[0]!;
  }
  const text = Buffer.from(bytes).toString('utf8');
  const rows = text.split(/\r?\n/);
  const header = splitFields(rows[0] ?? '');
  const lines: CftcFileLine[] = [];
  rows.slice(1).forEach((row, index) => {
    if (row.trim() !== '') lines.push({ line: index + 2, fields: splitFields(row) });
  });
  return { header, lines };
}

/** Whether a field as written is a number the CFTC left out: `.` (suppressed, from 2015) or empty. */
export function isSuppressed(field: string): boolean {
  return field === '' || field === '.';
}

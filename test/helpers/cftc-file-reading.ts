import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { unzipSync } from 'fflate';
import { splitCsvLine } from '../e2e/pipeline/store-files.ts';

/** One data line of a CFTC file as written: its line number and its fields, unquoted and trimmed. */
export interface CftcFileLine {
  line: number;
  fields: string[];
}

/** A CFTC file read without the parser: the trimmed header and every data line. */
export interface CftcFileReading {
  /** What its reports must cite before `:<line>`: the file's name, or `<zip>!<member>` (docs/data-model.md). */
  source: string;
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
  let source = basename(path);
  if (path.endsWith('.zip')) {
    const members = Object.entries(unzipSync(bytes));
    if (members.length !== 1) throw new Error(`${path}: expected one member, found ${members.length}`);
    const [member, content] = members[0]!;
    source = `${source}!${member}`;
    bytes = content;
  }
  const text = Buffer.from(bytes).toString('utf8');
  const rows = text.split(/\r?\n/);
  const header = splitFields(rows[0] ?? '');
  const lines: CftcFileLine[] = [];
  rows.slice(1).forEach((row, index) => {
    if (row.trim() !== '') lines.push({ line: index + 2, fields: splitFields(row) });
  });
  return { source, header, lines };
}

/** Whether a field as written is a number the CFTC left out: `.` (suppressed, from 2015) or empty. */
export function isSuppressed(field: string): boolean {
  return field === '' || field === '.';
}

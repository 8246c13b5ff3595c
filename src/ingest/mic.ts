import type { CsvRow } from '../db/duckdb.ts';
import type { ParsedBatch, Venue } from '../model/records.ts';
import { readCsvWithColumns } from './csv-with-columns.ts';
import { InputError } from './input-error.ts';
import { parseIsoDate } from './periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText, publishedText } from './values.ts';

const COLUMNS = {
  mic: 'MIC',
  operatingMic: 'OPERATING MIC',
  kind: 'OPRT/SGMT',
  name: 'MARKET NAME-INSTITUTION DESCRIPTION',
  legalName: 'LEGAL ENTITY NAME',
  lei: 'LEI',
  category: 'MARKET CATEGORY CODE',
  acronym: 'ACRONYM',
  country: 'ISO COUNTRY CODE (ISO 3166)',
  city: 'CITY',
  website: 'WEBSITE',
  status: 'STATUS',
  created: 'CREATION DATE',
  updated: 'LAST UPDATE DATE',
  expiry: 'EXPIRY DATE',
  comments: 'COMMENTS',
} as const;

type Column = keyof typeof COLUMNS;

const MIC = /^[A-Z0-9]{4}$/;
const KINDS = new Set(['OPRT', 'SGMT']);

/** ISO 10383 market identifier codes, as published by SWIFT (the registration authority). */
export const micSource: Source = {
  id: 'mic',
  description: 'ISO 10383 MIC CSV (exchanges and trading venues)',
  parse: parseMicFiles,
};

/** Parses ISO 10383 MIC CSV files into venues, sorted by MIC (ISO's file is not sorted). */
export async function parseMicFiles(files: readonly string[], context: IngestContext): Promise<ParsedBatch> {
  const batch = createEmptyBatch();
  const venues = new Map<string, { venue: Venue; file: string; line: number }>();
  for (const file of files) {
    const rows = await readCsvWithColumns(context, file, Object.values(COLUMNS), 'an ISO 10383 MIC CSV');
    for (const row of rows) {
      batch.rows_read += 1;
      const venue = readVenue(file, row);
      const previous = venues.get(venue.mic);
      if (previous !== undefined) {
        const where = previous.file === file ? `line ${previous.line}` : `${previous.file}:${previous.line}`;
        throw new InputError(file, row.line, `duplicate MIC ${venue.mic} (first on ${where})`);
      }
      venues.set(venue.mic, { venue, file, line: row.line });
    }
  }
  batch.venues = [...venues.values()].map((entry) => entry.venue).sort((a, b) => (a.mic < b.mic ? -1 : 1));
  return batch;
}

function readVenue(file: string, row: CsvRow): Venue {
  const text = (column: Column): string | null => cleanText(row.values[COLUMNS[column]]);
  // Names and descriptions as published: ISO writes TECO's name with a leading space.
  const published = (column: Column): string | null => publishedText(row.values[COLUMNS[column]]);
  const required = (column: Column): string => {
    const value = text(column);
    if (value === null) {
      throw new InputError(file, row.line, `column "${COLUMNS[column]}": value missing (truncated line?)`);
    }
    return value;
  };
  const code = (column: Column, pattern: RegExp, expected: string): string => {
    const value = required(column);
    if (!pattern.test(value)) {
      throw new InputError(
        file,
        row.line,
        `column "${COLUMNS[column]}": expected ${expected}, got "${value}"`,
      );
    }
    return value;
  };
  const kind = required('kind');
  if (!KINDS.has(kind)) {
    throw new InputError(file, row.line, `column "${COLUMNS.kind}": expected OPRT or SGMT, got "${kind}"`);
  }
  return {
    mic: code('mic', MIC, '4 letters or digits'),
    operating_mic: code('operatingMic', MIC, '4 letters or digits'),
    kind,
    name: published('name') ?? required('name'),
    legal_name: published('legalName'),
    lei: text('lei'),
    category: text('category'),
    acronym: published('acronym'),
    country: code('country', /^[A-Z]{2}$/, 'an ISO 3166 alpha-2 code'),
    city: published('city'),
    website: published('website'),
    status: code('status', /^[A-Z]+$/, 'a status such as ACTIVE'),
    created: readDate(file, row, 'created', text('created')),
    updated: readDate(file, row, 'updated', text('updated')),
    expiry: readDate(file, row, 'expiry', text('expiry')),
    comments: published('comments'),
  };
}

/** ISO writes dates as `YYYYMMDD`; the data model uses `YYYY-MM-DD`. */
function readDate(file: string, row: CsvRow, column: Column, value: string | null): string | null {
  if (value === null) return null;
  const date = /^\d{8}$/.test(value) ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}` : '';
  if (parseIsoDate(date) === null) {
    throw new InputError(
      file,
      row.line,
      `column "${COLUMNS[column]}": expected a YYYYMMDD date, got "${value}"`,
    );
  }
  return date;
}

import { readFile } from 'node:fs/promises';
import { type CsvRow, readCsvFile } from '../db/duckdb.ts';
import type { ParsedBatch, TimeZone } from '../model/records.ts';
import { InputError } from './input-error.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText } from './values.ts';

/** The tables have no header; these are the four columns the files' own comments describe. */
const COLUMN_NAMES = ['codes', 'coordinates', 'zone', 'comment'];

/** ISO 6709 sign-degrees-minutes[-seconds] latitude followed by longitude. */
const COORDINATES = /^[+-]\d{4}(\d{2})?[+-]\d{5}(\d{2})?$/;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/;

/**
 * IANA tz database tables `zone1970.tab` (several countries per zone) and `zone.tab` (one
 * country per row). There is no fetch plan: tzdata reaches a machine through the operating
 * system's package or the IANA release tarball, not as a standalone file at a stable address.
 */
export const tzSource: Source = {
  id: 'tz',
  description: 'IANA tz zone1970.tab / zone.tab (time zones and the countries they cover)',
  parse: parseTimeZoneFiles,
};

/** Parses zone1970.tab and/or zone.tab files into time zones, merging zones by name. */
export async function parseTimeZoneFiles(
  files: readonly string[],
  context: IngestContext,
): Promise<ParsedBatch> {
  const batch = createEmptyBatch();
  const zones = new Map<string, TimeZone>();
  for (const file of files) {
    const rows = await readZoneRows(context, file);
    for (const row of rows) {
      batch.rows_read += 1;
      const zone = readZone(file, row);
      const known = zones.get(zone.zone);
      if (known === undefined) {
        zones.set(zone.zone, zone);
        continue;
      }
      // Both tables describe the same zone; the country lists differ, so keep their union.
      for (const country of zone.countries) {
        if (!known.countries.includes(country)) known.countries.push(country);
      }
      known.comment ??= zone.comment;
    }
  }
  batch.time_zones = [...zones.values()];
  return batch;
}

async function readZoneRows(context: IngestContext, file: string): Promise<CsvRow[]> {
  let rows: CsvRow[];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
    rows = await readCsvFile(context.connection, file, {
      delimiter: '\t',
      comment: '#',
      header: false,
      columnNames: COLUMN_NAMES,
    });
  } catch (error) {
    throw new InputError(file, null, `cannot read as a tab-separated table: ${firstLine(error)}`);
  }
  if (rows.length === 0) throw new InputError(file, null, 'no zone rows (empty or truncated file)');
  // The reader skips comment and blank lines, which appear between data lines too, so its row
  // numbers are not file lines; recover the physical line of each data row for error messages.
  const dataLines = text.split(/\r?\n/).flatMap((line, index) => (/^\s*(#|$)/.test(line) ? [] : [index + 1]));
  if (dataLines.length !== rows.length) return rows;
  return rows.map((row, index) => ({ ...row, line: dataLines[index] ?? row.line }));
}

function readZone(file: string, row: CsvRow): TimeZone {
  const codes = cleanText(row.values.codes);
  const coordinates = cleanText(row.values.coordinates);
  const zone = cleanText(row.values.zone);
  if (codes === null || coordinates === null || zone === null) {
    throw new InputError(
      file,
      row.line,
      'expected tab-separated country codes, coordinates and zone name (not a zone.tab / zone1970.tab file, or truncated)',
    );
  }
  const countries = codes.split(',').map((code) => code.trim());
  const badCode = countries.find((code) => !/^[A-Z]{2}$/.test(code));
  if (badCode !== undefined) {
    throw new InputError(file, row.line, `expected ISO 3166 alpha-2 country codes, got "${codes}"`);
  }
  if (!COORDINATES.test(coordinates)) {
    throw new InputError(file, row.line, `expected ISO 6709 coordinates, got "${coordinates}"`);
  }
  if (!ZONE_NAME.test(zone))
    throw new InputError(file, row.line, `expected a zone name like Area/City, got "${zone}"`);
  return { zone, countries, coordinates, comment: cleanText(row.values.comment) };
}

/** DuckDB's messages run over several lines of hints; an InputError is one line. */
function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';
}

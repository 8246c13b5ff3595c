import type { CsvRow } from '../db/duckdb.ts';
import type { Country, ParsedBatch, Region } from '../model/records.ts';
import { readCsvWithColumns } from './csv-with-columns.ts';
import { InputError } from './input-error.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText, publishedText } from './values.ts';

const COLUMNS = {
  globalCode: 'Global Code',
  globalName: 'Global Name',
  regionCode: 'Region Code',
  regionName: 'Region Name',
  subRegionCode: 'Sub-region Code',
  subRegionName: 'Sub-region Name',
  intermediateCode: 'Intermediate Region Code',
  intermediateName: 'Intermediate Region Name',
  name: 'Country or Area',
  m49: 'M49 Code',
  iso2: 'ISO-alpha2 Code',
  iso3: 'ISO-alpha3 Code',
  ldc: 'Least Developed Countries (LDC)',
  lldc: 'Land Locked Developing Countries (LLDC)',
  sids: 'Small Island Developing States (SIDS)',
} as const;

type Column = keyof typeof COLUMNS;

/** A record with the line it was first read from, to name both lines when rows disagree. */
interface Located<T> {
  record: T;
  line: number;
}

/** The area levels above country, from the widest down, with the columns that name them. */
const LEVELS = [
  { level: 'global', code: 'globalCode', name: 'globalName' },
  { level: 'region', code: 'regionCode', name: 'regionName' },
  { level: 'sub-region', code: 'subRegionCode', name: 'subRegionName' },
  { level: 'intermediate-region', code: 'intermediateCode', name: 'intermediateName' },
] as const satisfies readonly { level: Region['level']; code: Column; name: Column }[];

/** UN M49 overview download (English): regions and countries with their classification. */
export const m49Source: Source = {
  id: 'm49',
  description: 'UN M49 overview CSV (regions, sub-regions and countries with LDC/LLDC/SIDS flags)',
  parse: parseM49Files,
  // The UN serves this CSV only from a download button on the overview page, with no stable
  // file address, so operators point --base-url at a mirror that holds the downloaded file.
};

/** Parses UN M49 overview CSV files into regions and countries. */
export async function parseM49Files(files: readonly string[], context: IngestContext): Promise<ParsedBatch> {
  const batch = createEmptyBatch();
  const regions = new Map<string, Located<Region>>();
  const countries = new Map<string, Located<Country>>();
  const slugs = new Map<string, string>();
  for (const file of files) {
    const rows = await readCsvWithColumns(context, file, Object.values(COLUMNS), 'a UN M49 overview CSV');
    for (const row of rows) {
      batch.rows_read += 1;
      addRegions(file, row, regions, slugs);
      const country = readCountry(file, row);
      const previous = countries.get(country.iso2);
      if (previous !== undefined) {
        throw new InputError(
          file,
          row.line,
          `duplicate country ${country.iso2} (first on line ${previous.line})`,
        );
      }
      countries.set(country.iso2, { record: country, line: row.line });
    }
  }
  batch.regions = [...regions.values()].map((entry) => entry.record);
  batch.countries = [...countries.values()].map((entry) => entry.record);
  return batch;
}

/** Turns an English area name into a kebab-case slug (`Latin America and the Caribbean`). */
export function slugifyName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

function value(row: CsvRow, column: Column): string | null {
  return cleanText(row.values[COLUMNS[column]]);
}

/** Reads an M49 code; spreadsheets sometimes drop the leading zeros, so pad them back. */
function readCode(file: string, row: CsvRow, column: Column): string | null {
  const text = value(row, column);
  if (text === null) return null;
  if (!/^\d{1,3}$/.test(text)) {
    throw new InputError(file, row.line, `column "${COLUMNS[column]}": expected an M49 code, got "${text}"`);
  }
  return text.padStart(3, '0');
}

/** Records the row's areas, checking that they agree with what earlier rows said about them. */
function addRegions(
  file: string,
  row: CsvRow,
  regions: Map<string, Located<Region>>,
  slugs: Map<string, string>,
): void {
  let parent: string | null = null;
  for (const level of LEVELS) {
    const code = readCode(file, row, level.code);
    const name = value(row, level.name);
    if (code === null && name === null) continue;
    if (code === null || name === null) {
      throw new InputError(file, row.line, `${level.level} needs both a code and a name`);
    }
    const area: Region = { code, name, slug: slugifyName(name), level: level.level, parent_code: parent };
    const known = regions.get(code);
    if (known === undefined) {
      const slugOwner = slugs.get(area.slug);
      if (slugOwner !== undefined) {
        throw new InputError(
          file,
          row.line,
          `area ${code} has the same slug "${area.slug}" as area ${slugOwner}`,
        );
      }
      slugs.set(area.slug, code);
      regions.set(code, { record: area, line: row.line });
    } else if (
      known.record.name !== name ||
      known.record.level !== area.level ||
      known.record.parent_code !== parent
    ) {
      throw new InputError(file, row.line, `area ${code} disagrees with line ${known.line}`);
    }
    parent = code;
  }
  if (parent === null) throw new InputError(file, row.line, 'row has no global area (truncated line?)');
}

function readCountry(file: string, row: CsvRow): Country {
  const iso2 = value(row, 'iso2');
  const iso3 = value(row, 'iso3');
  // The one field of a country's own, served as published; region names are compared across rows.
  const name = publishedText(row.values[COLUMNS.name]);
  const numeric = readCode(file, row, 'm49');
  if (name === null || numeric === null) {
    throw new InputError(
      file,
      row.line,
      `"${COLUMNS.name}" and "${COLUMNS.m49}" are required (truncated line?)`,
    );
  }
  // Every area in the overview has ISO codes; a row without them is cut short or not M49's.
  if (iso2 === null || !/^[A-Z]{2}$/.test(iso2)) {
    throw new InputError(
      file,
      row.line,
      `column "${COLUMNS.iso2}": expected two letters, got "${iso2 ?? ''}"`,
    );
  }
  if (iso3 === null || !/^[A-Z]{3}$/.test(iso3)) {
    throw new InputError(
      file,
      row.line,
      `column "${COLUMNS.iso3}": expected three letters, got "${iso3 ?? ''}"`,
    );
  }
  return {
    iso2,
    iso3,
    numeric,
    name,
    region_code: readCode(file, row, 'regionCode'),
    region_name: value(row, 'regionName'),
    sub_region_code: readCode(file, row, 'subRegionCode'),
    sub_region_name: value(row, 'subRegionName'),
    intermediate_region_code: readCode(file, row, 'intermediateCode'),
    intermediate_region_name: value(row, 'intermediateName'),
    ldc: readFlag(file, row, 'ldc'),
    lldc: readFlag(file, row, 'lldc'),
    sids: readFlag(file, row, 'sids'),
  };
}

/** The UN marks membership of a group with `x` and leaves the field empty otherwise. */
function readFlag(file: string, row: CsvRow, column: Column): boolean {
  const text = value(row, column);
  if (text === null) return false;
  if (text.toLowerCase() === 'x') return true;
  throw new InputError(file, row.line, `column "${COLUMNS[column]}": expected "x" or empty, got "${text}"`);
}

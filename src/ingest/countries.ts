import type { CsvRow } from '../db/duckdb.ts';
import type { CountryCurrencies, ParsedBatch } from '../model/records.ts';
import { readCsvWithColumns } from './csv-with-columns.ts';
import { InputError } from './input-error.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText } from './values.ts';

const ISO2_COLUMN = 'ISO3166-1-Alpha-2';
const CURRENCY_COLUMN = 'ISO4217-currency_alphabetic_code';
const REQUIRED_COLUMNS = [ISO2_COLUMN, CURRENCY_COLUMN] as const;

/**
 * datahub.io `core/country-codes`: the currencies each country uses. It is a secondary join of
 * ISO 3166 and ISO 4217, so it has no fetch plan; operators ingest a downloaded copy.
 */
export const countriesSource: Source = {
  id: 'countries',
  description: 'datahub country-codes CSV (ISO 3166 country -> ISO 4217 currencies)',
  parse: parseCountryCodesFiles,
};

/** Parses datahub country-codes CSV files into the currencies of each country. */
export async function parseCountryCodesFiles(
  files: readonly string[],
  context: IngestContext,
): Promise<ParsedBatch> {
  const batch = createEmptyBatch();
  const byCountry = new Map<string, { line: number; currencies: string[] }>();
  for (const file of files) {
    const rows = await readCsvWithColumns(context, file, REQUIRED_COLUMNS, 'a datahub country-codes CSV');
    for (const row of rows) {
      batch.rows_read += 1;
      const iso2 = cleanText(row.values[ISO2_COLUMN]);
      if (iso2 !== null && !/^[A-Z]{2}$/.test(iso2)) {
        throw new InputError(file, row.line, `column "${ISO2_COLUMN}": expected two letters, got "${iso2}"`);
      }
      const currencies = readCurrencies(file, row);
      // Rows without a country code (none today) or without a currency (datahub's join leaves
      // a few countries blank, e.g. Antarctica) carry nothing to key or to say: skip them.
      if (iso2 === null || currencies.length === 0) {
        batch.rows_skipped += 1;
        continue;
      }
      const previous = byCountry.get(iso2);
      if (previous !== undefined) {
        throw new InputError(file, row.line, `duplicate country ${iso2} (first on line ${previous.line})`);
      }
      byCountry.set(iso2, { line: row.line, currencies });
    }
  }
  batch.country_currencies = [...byCountry].map(
    ([iso2, entry]): CountryCurrencies => ({
      iso2,
      currencies: entry.currencies,
    }),
  );
  return batch;
}

/** The column lists several codes as `INR,BTN`; an empty one may be a lone no-break space. */
function readCurrencies(file: string, row: CsvRow): string[] {
  const text = cleanText(row.values[CURRENCY_COLUMN]);
  if (text === null) return [];
  const codes: string[] = [];
  for (const part of text.split(',')) {
    const code = cleanText(part);
    if (code === null) continue;
    if (!/^[A-Z]{3}$/.test(code)) {
      throw new InputError(
        file,
        row.line,
        `column "${CURRENCY_COLUMN}": expected ISO 4217 codes, got "${text}"`,
      );
    }
    if (!codes.includes(code)) codes.push(code);
  }
  return codes;
}

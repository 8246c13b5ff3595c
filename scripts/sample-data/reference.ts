import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type ReadCsvOptions, readCsvFile } from '../../src/db/duckdb.ts';

/** Countries the reference subsets keep (ISO 3166-1 alpha-2). */
export const SAMPLE_COUNTRIES = new Set(
  'US CA MX GB DE FR IT ES NL CH SE NO PL JP CN AU BR ZA IN HK SG AQ'.split(' '),
);
/** Currencies kept besides those of the sample countries: the euro, gold, and withdrawn/new guilders and kuna. */
const EXTRA_CURRENCIES = ['EUR', 'XAU', 'HRK', 'ANG', 'XCG'];

/** Every currency the catalog names (ECB series), so that the sample snapshot verifies. */
function readCatalogCurrencies(): string[] {
  const catalog = readFileSync(new URL('../../data/catalog/catalog.yaml', import.meta.url), 'utf8');
  return [...catalog.matchAll(/currency:\s*"?([A-Z]{3})"?/g)].map((match) => match[1]!);
}
/** Venues kept, plus XOCH (OneChicago) as one EXPIRED row. */
const SAMPLE_MICS = new Set(
  'XNYS XNAS XCME XCBT XCEC XNYM IFUS XLON XETR XEUR XPAR XJPX XTKS XSWX XHKG XASX XOCH'.split(' '),
);

type Values = Record<string, string | null>;

/**
 * Keeps the header (and comment lines) of a real file plus the data lines whose parsed row
 * passes `keep`, byte for byte: BOM, quoting, line endings and final newline stay as they were.
 */
async function keepVerbatimLines(
  connection: DuckDBConnection,
  file: string,
  keep: (values: Values) => boolean,
  options: ReadCsvOptions = {},
): Promise<string> {
  const text = readFileSync(file, 'utf8');
  const endsWithNewline = text.endsWith('\n');
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const isComment = (line: string): boolean =>
    options.comment !== undefined && line.startsWith(options.comment);
  const headerLines = options.header === false ? 0 : 1;
  const dataIndexes = lines.flatMap((line, index) =>
    index >= headerLines && !isComment(line) ? [index] : [],
  );
  const rows = await readCsvFile(connection, file, options);
  // Copying lines by position is only right if every record sits on one physical line.
  if (rows.length !== dataIndexes.length) {
    throw new Error(`${file}: ${rows.length} records but ${dataIndexes.length} data lines`);
  }
  const kept = new Set(rows.flatMap((row, i) => (keep(row.values) ? [dataIndexes[i]!] : [])));
  const output = lines.filter((line, index) => index < headerLines || isComment(line) || kept.has(index));
  return output.join('\n') + (endsWithNewline ? '\n' : '');
}

/** Builds the reference-list subsets from the real files under `sharedData`; returns sample path -> content. */
export async function makeReferenceSubsets(
  connection: DuckDBConnection,
  sharedData: string,
): Promise<Map<string, string>> {
  const inCountries = (code: string | null | undefined): boolean => SAMPLE_COUNTRIES.has(code ?? '');
  const currencies = new Set([...EXTRA_CURRENCIES, ...readCatalogCurrencies()]);
  const countryCodes = await keepVerbatimLines(
    connection,
    join(sharedData, 'iso/country-codes.csv'),
    (values) => {
      if (!inCountries(values['ISO3166-1-Alpha-2'])) return false;
      for (const code of (values['ISO4217-currency_alphabetic_code'] ?? '').split(',')) {
        if (code.trim() !== '') currencies.add(code.trim());
      }
      return true;
    },
  );
  const tzOptions: ReadCsvOptions = {
    delimiter: '\t',
    header: false,
    comment: '#',
    columnNames: ['codes', 'coordinates', 'zone', 'comments'],
  };
  return new Map([
    [
      'reference/unsd_m49_overview_en.csv',
      await keepVerbatimLines(connection, join(sharedData, 'iso/unsd_m49_overview_en.csv'), (values) =>
        inCountries(values['ISO-alpha2 Code']),
      ),
    ],
    ['reference/country-codes.csv', countryCodes],
    [
      'reference/zone1970.tab',
      await keepVerbatimLines(
        connection,
        join(sharedData, 'tz/zone1970.tab'),
        (values) => (values.codes ?? '').split(',').some(inCountries),
        tzOptions,
      ),
    ],
    [
      'reference/iso4217_codes-all.csv',
      await keepVerbatimLines(
        connection,
        join(sharedData, 'iso/iso4217_codes-all.csv'),
        (values) => currencies.has(values.AlphabeticCode ?? '') || values.Entity === 'ANTARCTICA',
      ),
    ],
    [
      'reference/ISO10383_MIC.csv',
      await keepVerbatimLines(connection, join(sharedData, 'mic/ISO10383_MIC.csv'), (values) =>
        SAMPLE_MICS.has(values.MIC ?? ''),
      ),
    ],
  ]);
}

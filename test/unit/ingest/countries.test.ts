import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countriesSource } from '../../../src/ingest/countries.ts';
import type { CountryCurrencies } from '../../../src/model/records.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const COUNTRY_CODES = join(SHARED_DATA, 'iso', 'country-codes.csv');
const M49 = join(SHARED_DATA, 'iso', 'unsd_m49_overview_en.csv');

const fixture = createIngestFixture('countries-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[]) {
  const batch = await countriesSource.parse(files, context());
  return { batch, rows: batch.country_currencies ?? [] };
}

function currenciesOf(rows: CountryCurrencies[], iso2: string): string[] | undefined {
  return rows.find((row) => row.iso2 === iso2)?.currencies;
}

/** A small file with only the two columns the parser reads. */
function miniCsv(...rows: string[]): string {
  return ['ISO3166-1-Alpha-2,ISO4217-currency_alphabetic_code', ...rows].join('\n');
}

describe('countriesSource: the real datahub country-codes CSV', () => {
  it('reads 249 rows; the 4 without a currency (AQ, GS, PS, TR) are skipped and counted', async () => {
    const { batch, rows } = await parse([COUNTRY_CODES]);
    expect(batch.rows_read).toBe(249);
    expect(batch.rows_skipped).toBe(4);
    expect(rows).toHaveLength(245);
    for (const iso2 of ['AQ', 'GS', 'PS', 'TR']) expect(currenciesOf(rows, iso2)).toBeUndefined();
  });

  it('maps US to USD', async () => {
    const { rows } = await parse([COUNTRY_CODES]);
    expect(currenciesOf(rows, 'US')).toEqual(['USD']);
  });

  it('splits multi-currency rows in the published order (Bhutan, Panama, Namibia)', async () => {
    const { rows } = await parse([COUNTRY_CODES]);
    expect(currenciesOf(rows, 'BT')).toEqual(['INR', 'BTN']);
    expect(currenciesOf(rows, 'PA')).toEqual(['PAB', 'USD']);
    // Namibia's alpha-2 code `NA` is a code, not a missing-value marker.
    expect(currenciesOf(rows, 'NA')).toEqual(['NAD', 'ZAR']);
    expect(rows.filter((row) => row.currencies.length > 1)).toHaveLength(8);
  });

  it('reads the Åland row, whose empty fields are lone no-break spaces', async () => {
    const line = readFileSync(COUNTRY_CODES, 'utf8').split('\n')[2] ?? '';
    expect(line).toContain('ALA');
    expect(line).toContain('\u00a0');
    const { rows } = await parse([COUNTRY_CODES]);
    expect(rows[1]).toEqual({ iso2: 'AX', currencies: ['EUR'] });
  });

  it('treats a currency cell holding only a no-break space as empty', async () => {
    const file = writeTemp('nbsp.csv', miniCsv('AX,\u00a0', 'AF,AFN'));
    const { batch, rows } = await parse([file]);
    expect(rows).toEqual([{ iso2: 'AF', currencies: ['AFN'] }]);
    expect(batch.rows_skipped).toBe(1);
  });

  it('skips and counts rows without an alpha-2 code', async () => {
    const file = writeTemp('no-iso2.csv', miniCsv(',EUR', 'FR,EUR'));
    const { batch, rows } = await parse([file]);
    expect(rows).toEqual([{ iso2: 'FR', currencies: ['EUR'] }]);
    expect(batch.rows_read).toBe(2);
    expect(batch.rows_skipped).toBe(1);
  });
});

describe('countriesSource: bad input', () => {
  it('refuses a file of another format (the M49 overview)', async () => {
    await expect(parse([M49])).rejects.toThrow(
      /unsd_m49_overview_en\.csv:1: not a datahub country-codes CSV: missing columns ISO3166-1-Alpha-2/,
    );
  });

  it('refuses a file missing the currency column', async () => {
    const file = writeTemp('no-currency.csv', 'ISO3166-1-Alpha-2,ISO3166-1-Alpha-3\nFR,FRA\n');
    await expect(parse([file])).rejects.toThrow(/missing columns ISO4217-currency_alphabetic_code/);
  });

  it('refuses a malformed alpha-2 code', async () => {
    const file = writeTemp('bad-iso2.csv', miniCsv('FR,EUR', 'FRA,EUR'));
    await expect(parse([file])).rejects.toThrow(
      /bad-iso2\.csv:3: column "ISO3166-1-Alpha-2": expected two letters/,
    );
  });

  it('refuses a malformed currency code', async () => {
    const file = writeTemp('bad-currency.csv', miniCsv('BT,"INR,BT1"'));
    await expect(parse([file])).rejects.toThrow(
      /bad-currency\.csv:2: .*expected ISO 4217 codes, got "INR,BT1"/,
    );
  });

  it('refuses a duplicate country', async () => {
    const file = writeTemp('duplicate.csv', miniCsv('FR,EUR', 'DE,EUR', 'FR,EUR'));
    await expect(parse([file])).rejects.toThrow(/duplicate\.csv:4: duplicate country FR \(first on line 2\)/);
  });

  it('refuses a truncated file (last line cut inside the currency code)', async () => {
    const text = readFileSync(COUNTRY_CODES, 'utf8');
    const lines = text.split('\n');
    const line3 = lines[3] ?? '';
    const cut = line3.slice(0, line3.indexOf(',ALL,') + ',AL'.length);
    const file = writeTemp('truncated.csv', [lines[0], lines[1], lines[2], cut].join('\n'));
    await expect(parse([file])).rejects.toThrow(/truncated\.csv:4: .*expected ISO 4217 codes, got "AL"/);
  });

  it('refuses a header with no rows', async () => {
    const file = writeTemp('header-only.csv', `${readFileSync(COUNTRY_CODES, 'utf8').split('\n')[0]}\n`);
    await expect(parse([file])).rejects.toThrow(/header-only\.csv: no data rows/);
  });
});

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCsvFile } from '../../../src/db/duckdb.ts';
import { type Catalog, catalogSource } from '../../../src/ingest/catalog.ts';
import { InputError } from '../../../src/ingest/input-error.ts';
import { iso4217Source } from '../../../src/ingest/iso4217.ts';
import { REDISTRIBUTABLE_RIGHTS } from '../../../src/model/records.ts';
import { createIngestFixture, expectInputError } from '../../helpers/ingest-fixture.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';

const CATALOG = join(REPO_ROOT, 'data', 'catalog', 'catalog.yaml');
const CFTC = join(SHARED_DATA, 'cftc');

const fixture = createIngestFixture('catalog-test-');
const { context } = fixture;
let catalog: Catalog;

beforeAll(async () => {
  const batch = await catalogSource.parse([CATALOG], context());
  catalog = {
    sources: batch.sources ?? [],
    series: batch.series ?? [],
    markets: batch.markets ?? [],
    sectors: batch.sectors ?? [],
  };
});

/** The distinct trimmed values of one column of a CSV-like file. */
async function readColumn(file: string, column: string): Promise<Set<string>> {
  const rows = await readCsvFile(fixture.connection, file);
  return new Set(rows.map((row) => (row.values[column] ?? '').trim()));
}

describe('catalog: data/catalog/catalog.yaml', () => {
  it('has the expected tables', async () => {
    const batch = await catalogSource.parse([CATALOG], context());
    expect(catalog.sources).toHaveLength(8);
    expect(catalog.sectors).toHaveLength(8);
    expect(catalog.series).toHaveLength(49);
    expect(catalog.markets).toHaveLength(10);
    expect(batch.rows_read).toBe(75);
    expect(catalog.series.filter((s) => s.source === 'ecb')).toHaveLength(41);
    expect(catalog.series.filter((s) => s.macro).map((s) => s.key)).toHaveLength(8);
  });

  it('reads entries with their defaults', () => {
    const ecb = catalog.sources.find((s) => s.id === 'ecb');
    expect(ecb).toMatchObject({ rights: 'open_licence', attribution: 'Source: ECB', cadence: 'daily' });
    expect(ecb).toMatchObject({ stale_after_days: 4, sample: false, licence_url: null });
    const eurUsd = catalog.series.find((s) => s.key === 'ecb.USD');
    expect(eurUsd).toMatchObject({ slug: 'eur-usd', unit: 'USD per EUR', currency: 'USD', region: '150' });
    expect(eurUsd).toMatchObject({
      country: null,
      seasonal_adjustment: null,
      macro: false,
      sector: 'rates-fx',
    });
    const payrolls = catalog.series.find((s) => s.key === 'bls.CES0000000001');
    expect(payrolls).toMatchObject({
      slug: 'nonfarm-payrolls',
      source: 'bls',
      seasonal_adjustment: 'SA',
      macro: true,
    });
    const corn = catalog.markets.find((m) => m.slug === 'corn');
    expect(corn).toEqual({
      slug: 'corn',
      code: '002602',
      name: 'Corn',
      exchange: 'Chicago Board of Trade (CBOT)',
      mic: 'XCBT',
      sector: 'agriculture',
      report_types: ['legacy', 'disaggregated'],
    });
  });

  it('keeps FRED out of the redistributable rights, and lists no invented sample source', () => {
    const rightsOf = (id: string) => catalog.sources.find((s) => s.id === id)?.rights;
    expect(rightsOf('fred')).toBe('licensed');
    expect(catalog.sources.filter((s) => s.sample)).toEqual([]);
    expect(catalog.series.filter((s) => s.source === 'fred')).toEqual([]);
    for (const id of ['ecb', 'cftc', 'bls', 'iso', 'un-m49', 'iana-tz', 'swift-mic']) {
      expect(REDISTRIBUTABLE_RIGHTS).toContain(rightsOf(id));
    }
  });

  it('resolves every reference', () => {
    const sources = new Set(catalog.sources.map((s) => s.id));
    const sectors = new Set(catalog.sectors.map((s) => s.id));
    for (const series of catalog.series) {
      expect(sources.has(series.source), series.key).toBe(true);
      expect(sources.has(series.key.split('.')[0] ?? ''), series.key).toBe(true);
      if (series.sector !== null) expect(sectors.has(series.sector), series.key).toBe(true);
    }
    for (const market of catalog.markets) expect(sectors.has(market.sector ?? ''), market.code).toBe(true);
  });

  it('tracks markets that the CFTC files carry, in the report types they carry them', async () => {
    const legacy = await readColumn(
      join(CFTC, 'legacy_futures_only_2025_selected_markets.txt'),
      'CFTC Contract Market Code',
    );
    const tff = await readColumn(
      join(CFTC, 'tff_futures_only_2026_selected_markets.txt'),
      'CFTC_Contract_Market_Code',
    );
    const disaggregated = await readColumn(
      join(CFTC, 'disaggregated_futures_only_2021_selected_markets.txt'),
      'CFTC_Contract_Market_Code',
    );
    expect(new Set(catalog.markets.map((m) => m.code))).toEqual(legacy);
    for (const market of catalog.markets) {
      expect(market.report_types.includes('tff'), market.code).toBe(tff.has(market.code));
      expect(market.report_types.includes('disaggregated'), market.code).toBe(disaggregated.has(market.code));
    }
  });

  it('uses active MICs of the ISO 10383 list', async () => {
    const rows = await readCsvFile(fixture.connection, join(SHARED_DATA, 'mic', 'ISO10383_MIC.csv'));
    const active = new Set(rows.filter((r) => r.values.STATUS === 'ACTIVE').map((r) => r.values.MIC));
    for (const market of catalog.markets) expect(active.has(market.mic), market.code).toBe(true);
  });

  it('uses ISO 4217 currencies and UN M49 regions', async () => {
    // ISO 4217 as the service ingests it: SIX's list one (current) and list three (historic).
    const iso = await iso4217Source.parse(
      ['iso4217_list_one_table_a1.xml', 'iso4217_list_three_table_a3_historic.xml'].map((file) =>
        join(SHARED_DATA, 'iso', file),
      ),
      context(),
    );
    const currencies = new Set((iso.currencies ?? []).map((currency) => currency.code));
    // The ECB's discontinued currencies (CYP, ROL, TRL...) are only in list three.
    expect(currencies.has('CYP')).toBe(true);
    const m49 = await readCsvFile(fixture.connection, join(SHARED_DATA, 'iso', 'unsd_m49_overview_en.csv'));
    const areas = new Set(
      m49.flatMap((r) =>
        ['Global Code', 'Region Code', 'Sub-region Code', 'Intermediate Region Code'].map((c) => r.values[c]),
      ),
    );
    for (const series of catalog.series) {
      if (series.currency !== null) expect(currencies.has(series.currency), series.key).toBe(true);
      if (series.region !== null) expect(areas.has(series.region), series.key).toBe(true);
    }
  });

  it('describes every currency of the ECB history file', async () => {
    const [first] = await readCsvFile(fixture.connection, join(SHARED_DATA, 'ecb', 'eurofxref-hist.csv'));
    const currencies = Object.keys(first?.values ?? {}).filter((name) => /^[A-Z]{3}$/.test(name));
    expect(currencies).toHaveLength(41);
    const ecbKeys = catalog.series.filter((s) => s.source === 'ecb').map((s) => s.key);
    expect(ecbKeys.sort()).toEqual(currencies.map((c) => `ecb.${c}`).sort());
  });
});

/** A small valid catalog; the bad cases each change one line of it. */
const MINIMAL = `sources:
  - id: bls
    name: U.S. Bureau of Labor Statistics
    publisher: U.S. Bureau of Labor Statistics
    url: https://www.bls.gov/
    licence: Public domain
    rights: public_domain
    attribution: "Source: BLS"
    cadence: monthly
    stale_after_days: 45
sectors:
  - id: labour
    name: Labour
    description: Jobs.
  - id: metals
    name: Metals
    description: Metals.
series:
  - key: bls.LNS14000000
    slug: unemployment-rate
    name: Unemployment rate
    source: bls
    frequency: monthly
    unit: percent
    sector: labour
  - key: bls.LNS13000000
    slug: unemployment-level
    name: Unemployment level
    source: bls
    frequency: monthly
    unit: thousands of persons
    sector: labour
markets:
  - slug: gold
    code: "088691"
    name: Gold
    exchange: COMEX
    mic: XCEC
    sector: metals
    report_types: [legacy]
`;

let counter = 0;
function writeCatalog(content: string): string {
  return fixture.writeTemp(join(String(counter++), 'catalog.yaml'), content);
}

/** Replaces one exact line-part of MINIMAL and returns the parse error. */
async function errorFor(from: string, to: string): Promise<InputError> {
  expect(MINIMAL.split(from)).toHaveLength(2);
  const file = writeCatalog(MINIMAL.replace(from, to));
  return expectInputError(catalogSource.parse([file], context()));
}

describe('catalog: bad input', () => {
  it('accepts the minimal catalog', async () => {
    const batch = await catalogSource.parse([writeCatalog(MINIMAL)], context());
    expect(batch.series?.[0]).toMatchObject({ country: null, macro: false, description: null });
    expect(batch.rows_read).toBe(6);
  });

  it('refuses unknown rights', async () => {
    const error = await errorFor('rights: public_domain', 'rights: open_data');
    expect(error.line).toBe(7);
    expect(error.message).toBe(
      'catalog.yaml:7: sources[0].rights: expected one of public_domain, open_licence, licensed, proprietary',
    );
  });

  it('refuses a duplicate slug', async () => {
    const error = await errorFor('slug: unemployment-level', 'slug: unemployment-rate');
    expect(error.line).toBe(27);
    expect(error.message).toBe(
      'catalog.yaml:27: series[1].slug: duplicate slug "unemployment-rate" (also series[0])',
    );
  });

  it('refuses a dangling sector', async () => {
    const error = await errorFor('    sector: metals', '    sector: energy');
    expect(error.line).toBe(39);
    expect(error.message).toBe(
      'catalog.yaml:39: markets[0].sector: unknown sector "energy" (not in sectors)',
    );
  });

  it('refuses a series of an unknown source', async () => {
    const error = await errorFor(
      '    source: bls\n    frequency: monthly\n    unit: percent',
      '    source: fred\n    frequency: monthly\n    unit: percent',
    );
    expect(error.message).toBe('catalog.yaml:22: series[0].source: unknown source "fred" (not in sources)');
  });

  it('refuses a bad frequency, an unquoted market code and an unknown field', async () => {
    const frequency = await errorFor(
      'frequency: monthly\n    unit: percent',
      'frequency: hourly\n    unit: percent',
    );
    expect(frequency.message).toBe(
      'catalog.yaml:23: series[0].frequency: expected one of daily, weekly, monthly, quarterly, annual',
    );
    const code = await errorFor('code: "088691"', 'code: 088691');
    expect(code.message).toBe('catalog.yaml:35: markets[0].code: expected a quoted string');
    const field = await errorFor('    unit: percent', '    unit: percent\n    units: percent');
    expect(field.message).toBe('catalog.yaml:25: series[0].units: unknown field');
  });

  it('names a missing field at its entry and invalid YAML at its line', async () => {
    const missing = await errorFor('    stale_after_days: 45\n', '');
    expect(missing.message).toBe('catalog.yaml:2: sources[0].stale_after_days: required field missing');
    const repeated = await errorFor('unit: percent', 'unit: percent\n    unit: percent');
    expect(repeated.message).toBe('catalog.yaml:25: invalid YAML: Map keys must be unique');
    const yaml = await errorFor('name: Gold', 'name: Gold: bars');
    expect(yaml.message).toBe(
      'catalog.yaml:36: invalid YAML: Nested mappings are not allowed in compact mappings',
    );
  });

  it('reads a market override of the code alone, every other field left to the data', async () => {
    const file = writeCatalog(
      MINIMAL.replace(
        '    sector: metals\n    report_types: [legacy]\n',
        '    sector: metals\n  - code: "13874+"\n',
      ),
    );
    const batch = await catalogSource.parse([file], context());
    expect(batch.markets?.[1]).toEqual({
      code: '13874+',
      slug: null,
      name: null,
      exchange: null,
      mic: null,
      sector: null,
      report_types: [],
    });
  });

  it('refuses two overrides of one slug, and a code that is not a CFTC code', async () => {
    const twice = await errorFor(
      '    report_types: [legacy]\n',
      '    report_types: [legacy]\n  - code: "084691"\n    slug: gold\n',
    );
    expect(twice.message).toBe('catalog.yaml:42: markets[1].slug: duplicate slug "gold" (also markets[0])');
    const code = await errorFor('code: "088691"', 'code: "88691"');
    expect(code.message).toBe(
      'catalog.yaml:35: markets[0].code: expected a six-character CFTC contract market code',
    );
  });

  it('takes exactly one file', async () => {
    const error = await catalogSource.parse([CATALOG, CATALOG], context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
  });
});

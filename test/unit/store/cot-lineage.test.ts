import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { execute, readRows } from '../../../src/db/duckdb.ts';
import { cftcSource } from '../../../src/ingest/cftc.ts';
import type { MarketRow } from '../../../src/query/cot.ts';
import { createCotMarketTable } from '../../../src/store/cot-market-table.ts';
import { readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

/**
 * Contract lineage (cot-market-table.ts, docs/data-sources.md "Contract lineage") on the CFTC's
 * own disaggregated files of 2017 and 2019 as the parser stores them. In the 2019 file
 * ICE's vintage contracts of NJ SRECs and PJM Tri-RECs end on 2019-05-28 and one contract per
 * product (no vintage in the name) starts on 2019-06-04; the expired vintages of 2017 do not
 * hand over to anything. The expectations are checked against a reading of the files by hand.
 * To keep the parse short, the files are cut to whole lines: every market of CFTC commodity code
 * 006 (renewable energy certificates and emission allowances, 31 codes, reported every week of
 * both years) and 02141C (renamed in 2019).
 */

const HISTORY = join(SHARED_DATA, 'cftc/history');
const ZIPS = ['disagg_fut_2017__fut_disagg_txt_2017.zip', 'disagg_fut_2019__fut_disagg_txt_2019.zip'].map(
  (name) => join(HISTORY, name),
);

/** The handovers the files show: the 2019 vintages into the one contract of each product. */
const EXPECTED_LINKS: Array<[string, string]> = [
  ['0063A3', '0063CC'], // NJ SRECS VINTAGE 2019 → NJ SRECS
  ['0063A4', '0063CC'], // NJ SRECS VINTAGE 2020
  ['0063BD', '0063CC'], // NJ SRECS VINTAGE 2021
  ['0063BF', '0063CC'], // NJ SRECS VINTAGE 2022
  ['0063AD', '0063CH'], // PJM TRI-RECs CLASS 1 Vin 2019 → PJM TRI-RECs CLASS 1
  ['0063AN', '0063CH'], // Vin 2020
  ['0063B1', '0063CH'], // Vin 2021
];

const fixture = createIngestFixture('cot-lineage-test-');

/** The kept lines of one CFTC zip, header first, as the CFTC wrote them (CRLF), into a text file. */
function writeKeptLines(zip: string): string {
  const member = Object.values(unzipSync(readFileSync(zip)))[0]!;
  const raw = Buffer.from(member).toString('latin1').split('\r\n');
  const reading = readCftcFileByHand(zip);
  const code = reading.header.indexOf('CFTC_Contract_Market_Code');
  const commodity = reading.header.indexOf('CFTC_Commodity_Code');
  const kept = reading.lines.filter(({ fields }) => fields[commodity] === '006' || fields[code] === '02141C');
  const lines = [raw[0]!, ...kept.map(({ line }) => raw[line - 1]!)];
  return fixture.writeTemp(basename(zip).replace(/\.zip$/, '.txt'), `${lines.join('\r\n')}\r\n`);
}

describe('contract lineage on the real disaggregated files of 2017 and 2019', () => {
  let markets: Map<string, MarketRow>;
  /** Per code its first and last report date and commodity code, read by hand. */
  const byHand = new Map<string, { first: string; last: string; commodity: string; names: Set<string> }>();

  beforeAll(async () => {
    const connection = fixture.connection;
    const files = ZIPS.map(writeKeptLines);
    const batch = await cftcSource.parse(files, fixture.context());
    const relation = batch.cot_reports;
    if (relation === undefined || Array.isArray(relation)) throw new Error('no report relation');
    // The columns createCotMarketTable reads of the store: the parsed reports in one batch, no overrides.
    await execute(
      connection,
      `CREATE TEMP VIEW cot_reports AS SELECT *, 'b1' AS batch_id FROM (${relation.sql})`,
    );
    await execute(
      connection,
      `CREATE TEMP TABLE markets (code VARCHAR, slug VARCHAR, name VARCHAR, exchange VARCHAR, mic VARCHAR,
                                   sector VARCHAR, report_types VARCHAR[])`,
    );
    await createCotMarketTable(connection);
    const rows = await readRows<MarketRow>(connection, 'SELECT * FROM cot_markets');
    markets = new Map(rows.map((row) => [row.code, row]));

    for (const file of files) {
      const reading = readCftcFileByHand(file);
      const at = (name: string) => reading.header.indexOf(name);
      const [name, date, code, commodity] = [
        at('Market_and_Exchange_Names'),
        at('Report_Date_as_YYYY-MM-DD'),
        at('CFTC_Contract_Market_Code'),
        at('CFTC_Commodity_Code'),
      ];
      for (const { fields } of reading.lines) {
        const entry = byHand.get(fields[code]!) ?? {
          first: fields[date]!,
          last: fields[date]!,
          commodity: fields[commodity]!,
          names: new Set<string>(),
        };
        if (fields[date]! < entry.first) entry.first = fields[date]!;
        if (fields[date]! > entry.last) entry.last = fields[date]!;
        entry.names.add(fields[name]!);
        byHand.set(fields[code]!, entry);
      }
    }
  });

  const linksOf = () =>
    [...markets.values()].flatMap((market) =>
      market.replaced_by.map((link): [string, string] => [market.code, link.code]),
    );

  it('links exactly the handovers of 2019 (old code → new code), both ways, with slugs', () => {
    const sort = (links: Array<[string, string]>) =>
      [...links].sort((a, b) => a.join().localeCompare(b.join()));
    expect(sort(linksOf())).toEqual(sort(EXPECTED_LINKS));
    const replaces = [...markets.values()].flatMap((market) =>
      market.replaces.map((link): [string, string] => [link.code, market.code]),
    );
    expect(sort(replaces)).toEqual(sort(EXPECTED_LINKS));
    expect(markets.get('0063CC')!.replaces).toEqual(
      ['0063A3', '0063A4', '0063BD', '0063BF'].map((code) => ({ code, slug: markets.get(code)!.slug })),
    );
    expect(markets.get('0063A3')!.replaced_by).toEqual([
      { code: '0063CC', slug: markets.get('0063CC')!.slug },
    ]);
  });

  it('every link is what the files read by hand show: next report week, same commodity, name inside name', () => {
    for (const [from, to] of EXPECTED_LINKS) {
      const old = byHand.get(from)!;
      const next = byHand.get(to)!;
      expect([old.last, next.first], `${from} → ${to}`).toEqual(['2019-05-28', '2019-06-04']);
      expect(next.commodity).toBe(old.commodity);
      const part = (names: Set<string>) =>
        [...names][0]!
          .replace(/ - [^-]*$/, '')
          .replace(/\s+/g, ' ')
          .trim();
      expect(part(old.names).toUpperCase().startsWith(part(next.names).toUpperCase()), from).toBe(true);
    }
  });

  it('links no vintage that expired with years of files between it and the next contract', () => {
    // NJ SRECS VINTAGE 2017 / 2018 end in 2017; no 2018 file is stored, the next report date is 2019-01-08.
    for (const code of ['00639W', '00639X', '0063AA', '0063AB']) {
      expect(byHand.get(code)!.last < '2018-01-01', code).toBe(true);
      expect(markets.get(code)!.replaced_by, code).toEqual([]);
    }
    // MASS RECs Class 1 vintages also end on 2019-05-28, but "MASS COMPLIANCE RECs CLASS 1" does
    // not hold their name: the files suggest it, the rule does not link it.
    for (const code of ['0063AM', '0063AQ', '0063BY']) {
      expect(byHand.get(code)!.last, code).toBe('2019-05-28');
      expect(markets.get(code)!.replaced_by, code).toEqual([]);
    }
    expect(markets.get('0063DL')!.replaces).toEqual([]);
  });

  it('gives every market its first and last report and active: reported in the latest week (2019-12-31)', () => {
    expect(markets.size).toBe(byHand.size);
    for (const [code, hand] of byHand) {
      const market = markets.get(code)!;
      expect([market.first_report, market.last_report], code).toEqual([hand.first, hand.last]);
      expect(market.active, code).toBe(hand.last === '2019-12-31');
    }
    expect(markets.get('0063CC')).toMatchObject({ first_report: '2019-06-04', active: true });
    expect(markets.get('0063A3')).toMatchObject({ last_report: '2019-05-28', active: false });
  });

  it('keeps one slug for a renamed code, with each name and its dates (02141C, renamed in May 2019)', () => {
    const fuelOil = markets.get('02141C')!;
    expect(fuelOil.names).toEqual([
      {
        name: '3% FUEL OIL USGC VS. 3.5%FUEL OIL FOB ROTTERDAM BARGES - ICE FUTURES ENERGY DIV',
        first_report: '2019-01-08',
        last_report: '2019-04-30',
      },
      {
        name: 'FUEL OIL-3% USGC/3.5% FOB RDAM BARGES - ICE FUTURES ENERGY DIV',
        first_report: '2019-05-07',
        last_report: '2019-12-31',
      },
    ]);
    // The slug comes from the first name; the display name is the latest.
    expect(fuelOil.slug).toBe('3-fuel-oil-usgc-vs-3-5-fuel-oil-fob-rotterdam-barges');
    expect(fuelOil.name).toBe('FUEL OIL-3% USGC/3.5% FOB RDAM BARGES');
  });
});

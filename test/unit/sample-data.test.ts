import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLS_VINTAGES, makeBlsSample } from '../../scripts/sample-data/bls.ts';
import { makeLegacySample } from '../../scripts/sample-data/cftc-legacy.ts';
import { makeTffSample } from '../../scripts/sample-data/cftc-tff.ts';
import { makeEcbSample } from '../../scripts/sample-data/ecb.ts';
import { makeFredSample } from '../../scripts/sample-data/fred.ts';
import { createRandom } from '../../scripts/sample-data/random.ts';
import { type CsvRow, openDuckDb, readCsvFile } from '../../src/db/duckdb.ts';
import { parseNumber } from '../../src/ingest/values.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../helpers/paths.ts';

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await (await openDuckDb()).connect();
});
afterAll(() => connection.closeSync());

const readText = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');
const firstLine = (text: string): string => text.slice(0, text.indexOf('\n')).replace(/\r$/, '');

/** A row's fields in file order (DuckDB trims the header's leading space, so go by position). */
function fieldsOf(row: CsvRow, file: string): (number | null)[] {
  return Object.values(row.values).map((raw, index) =>
    index < 7 || !/^[\s\d.-]+$/.test(raw ?? '')
      ? null
      : parseNumber(raw, { file, line: row.line, column: String(index) }),
  );
}

async function readCot(path: string, columns: number): Promise<{ rows: CsvRow[]; text: string }> {
  const text = readText(SAMPLE_DATA, path);
  const rows = await readCsvFile(connection, join(SAMPLE_DATA, path));
  for (const row of rows) {
    expect(Object.keys(row.values)).toHaveLength(columns);
    expect(Object.values(row.values).every((value) => value !== null)).toBe(true);
  }
  return { rows, text };
}

/** Checks each week's changes against the previous week of the same market (rows are newest first). */
function expectChanges(rows: CsvRow[], file: string, positions: number[], changes: number[]): void {
  const byMarket = Map.groupBy(rows, (row) => Object.values(row.values)[3]);
  for (const marketRows of byMarket.values()) {
    for (let i = 0; i + 1 < marketRows.length; i += 1) {
      const [now, before] = [marketRows[i]!, marketRows[i + 1]!];
      expect(Object.values(now.values)[2]! > Object.values(before.values)[2]!).toBe(true);
      const [f, g] = [fieldsOf(now, file), fieldsOf(before, file)];
      positions.forEach((column, k) => {
        expect(f[changes[k]!]).toBe(f[column]! - g[column]!);
      });
    }
  }
}

/** A share of open interest as the CFTC rounds it, to one decimal. */
function expectPercent(published: number | null, part: number, whole: number): void {
  expect(Math.abs((published ?? Number.NaN) - (whole === 0 ? 0 : (part / whole) * 100))).toBeLessThanOrEqual(
    0.0501,
  );
}

describe('pipeline.json', () => {
  it('lists steps whose files all exist', () => {
    const steps = JSON.parse(readText(SAMPLE_DATA, 'pipeline.json')) as { source: string; files: string[] }[];
    expect(steps.map((step) => step.source)).toEqual([
      'catalog',
      'm49',
      'countries',
      'tz',
      'iso4217',
      'mic',
      'ecb',
      'cftc',
      'bls',
      'bls',
      'fred',
      'research',
    ]);
    for (const step of steps) {
      expect(step.files.length).toBeGreaterThan(0);
      for (const file of step.files) expect(existsSync(join(SAMPLE_DATA, file)), file).toBe(true);
    }
  });
});

describe('CFTC samples', () => {
  it('legacy: real header, 129 fields, identities, changes, one "." marker', async () => {
    const path = 'cftc/legacy_futures_only_sample.txt';
    const { rows, text } = await readCot(path, 129);
    expect(firstLine(text)).toBe(
      firstLine(readText(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt')),
    );
    expect(text.includes('\r')).toBe(false);
    expect(rows).toHaveLength(60);
    expect(text.match(/,\.,/g)).toHaveLength(1);
    for (const row of rows) {
      const f = fieldsOf(row, path);
      // Groups All, Old, Other start at columns 7, 17, 27: OI, NC L/S/spread, comm L/S, total L/S, nonrept L/S.
      for (const start of [7, 17, 27]) {
        const [oi, ncl, ncs, sp, cl, cs, trl, trs, nrl, nrs] = f.slice(start, start + 10) as number[];
        expect(trl).toBe(ncl! + sp! + cl!);
        expect(trs).toBe(ncs! + sp! + cs!);
        expect(nrl).toBe(oi! - trl!);
        expect(nrs).toBe(oi! - trs!);
        const percents = f.slice(start + 40, start + 50) as number[];
        [oi, ncl, ncs, sp, cl, cs, trl, trs, nrl, nrs].forEach((value, k) => {
          expectPercent(percents[k]!, value!, oi!);
        });
      }
      expect(f[7]).toBe(f[17]! + f[27]!);
      expect(f[77]).toBeGreaterThanOrEqual(Math.max(f[83]!, f[84]!));
    }
    const positions = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
    expectChanges(
      rows,
      path,
      positions,
      positions.map((column) => column + 30),
    );
  });

  it('TFF: real header, 87 fields, CRLF, identities, changes, same OI as legacy', async () => {
    const path = 'cftc/tff_futures_only_sample.txt';
    const { rows, text } = await readCot(path, 87);
    expect(firstLine(text)).toBe(firstLine(readText(SHARED_DATA, 'cftc/tff_futures_only_2026_FinFutYY.txt')));
    expect(text.endsWith('\r\n')).toBe(true);
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith('\r')),
    ).toBe(true);
    expect(rows).toHaveLength(20);
    expect(text.match(/,\.,/g)).toHaveLength(1);
    const legacy = await readCsvFile(connection, join(SAMPLE_DATA, 'cftc/legacy_futures_only_sample.txt'));
    for (const row of rows) {
      const f = fieldsOf(row, path) as number[];
      const [longs, shorts, spreads] = [0, 1, 2].map((k) =>
        [0, 1, 2, 3].reduce((sum, c) => sum + f[8 + 3 * c + k]!, 0),
      );
      expect(f[20]).toBe(longs! + spreads!);
      expect(f[21]).toBe(shorts! + spreads!);
      expect(f[22]).toBe(f[7]! - f[20]!);
      expect(f[23]).toBe(f[7]! - f[21]!);
      const twin = legacy.find(
        (l) =>
          l.values['CFTC Contract Market Code'] === '099741' &&
          l.values['As of Date in Form YYYY-MM-DD'] === row.values['Report_Date_as_YYYY-MM-DD'],
      );
      const legacyFields = fieldsOf(twin!, 'legacy_futures_only_sample.txt');
      // Both reports count the same futures: same open interest and nonreportable positions.
      expect([legacyFields[7], legacyFields[15], legacyFields[16]]).toEqual([f[7], f[22], f[23]]);
      f.slice(41, 58).forEach((published, k) => {
        expectPercent(published, f[7 + k]!, f[7]!);
      });
    }
    const positions = Array.from({ length: 17 }, (_, k) => 7 + k);
    expectChanges(
      rows,
      path,
      positions,
      positions.map((column) => column + 17),
    );
  });
});

describe('ECB sample', () => {
  it('has TARGET days only, newest first, N/A for HRK, and the real XML envelope', async () => {
    const text = readText(SAMPLE_DATA, 'ecb/eurofxref-hist.csv');
    expect(firstLine(text)).toBe('Date,USD,JPY,GBP,PLN,SEK,CHF,NOK,HRK,AUD,CAD,CNY,');
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith(',') && !line.endsWith('\r')),
    ).toBe(true);
    const rows = await readCsvFile(connection, join(SAMPLE_DATA, 'ecb/eurofxref-hist.csv'));
    const dates = rows.map((row) => row.values.Date!);
    expect(dates).toHaveLength(63);
    expect([dates[0], dates.at(-1)]).toEqual(['2026-03-31', '2026-01-02']);
    expect([...dates].sort().reverse()).toEqual(dates);
    for (const date of dates) expect([0, 6]).not.toContain(new Date(`${date}T00:00:00Z`).getUTCDay());
    expect(dates).not.toContain('2026-01-01');
    expect(rows.every((row) => row.values.HRK === 'N/A')).toBe(true);
    const xml = readText(SAMPLE_DATA, 'ecb/eurofxref-daily.xml').split('\n');
    const real = readText(SHARED_DATA, 'ecb/eurofxref-daily.xml').split('\n');
    expect(xml.slice(0, 7)).toEqual(real.slice(0, 7));
    expect(xml.slice(-3)).toEqual(real.slice(-3));
    expect(xml[7]).toBe("\t\t<Cube time='2026-04-01'>");
    expect(xml.filter((line) => line.includes('currency='))).toHaveLength(10);
  });
});

describe('BLS sample vintages', () => {
  it('differ only in the revised payroll months', () => {
    const read = (date: string): Map<string, string> => {
      const json = JSON.parse(readText(SAMPLE_DATA, `bls/bls_api_v2_sample_vintage_${date}.json`));
      expect(json.status).toBe('REQUEST_SUCCEEDED');
      const values = new Map<string, string>();
      for (const series of json.Results.series) {
        expect(series.data).toHaveLength(24);
        expect(`${series.data[0].year}-${series.data[0].period}`).toBe('2025-M12');
        for (const point of series.data)
          values.set(`${series.seriesID} ${point.year}-${point.period}`, point.value);
      }
      return values;
    };
    const [first, second] = [read('2026-01-09'), read('2026-02-06')];
    expect([...second.keys()]).toEqual([...first.keys()]);
    const changed = [...first.keys()].filter((key) => first.get(key) !== second.get(key));
    expect(changed).toEqual(['CES0000000001 2025-M12', 'CES0000000001 2025-M11']);
  });
});

describe('reference subsets', () => {
  const subsets = [
    ['reference/unsd_m49_overview_en.csv', 'iso/unsd_m49_overview_en.csv', 23],
    ['reference/country-codes.csv', 'iso/country-codes.csv', 23],
    ['reference/zone1970.tab', 'tz/zone1970.tab', 0],
    ['reference/iso4217_codes-all.csv', 'iso/iso4217_codes-all.csv', 0],
    ['reference/ISO10383_MIC.csv', 'mic/ISO10383_MIC.csv', 18],
  ] as const;
  it.each(subsets)('%s keeps the header and real rows verbatim', (sample, original, lines) => {
    const [text, realText] = [readText(SAMPLE_DATA, sample), readText(SHARED_DATA, original)];
    expect(firstLine(text)).toBe(firstLine(realText));
    expect(text.endsWith('\n')).toBe(realText.endsWith('\n'));
    const realLines = new Set(realText.split('\n'));
    const sampleLines = text.split('\n').filter((line) => line !== '');
    for (const line of sampleLines) expect(realLines.has(line), line).toBe(true);
    if (lines > 0) expect(sampleLines).toHaveLength(lines);
  });
});

describe('FRED sample', () => {
  it('has 24 monthly values with two decimals', async () => {
    const rows = await readCsvFile(connection, join(SAMPLE_DATA, 'fred/northwind_FCI_sample.csv'));
    expect(Object.keys(rows[0]!.values)).toEqual(['observation_date', 'FCI']);
    expect(rows.map((row) => row.values.observation_date)).toHaveLength(24);
    expect(rows.every((row) => /^-?\d+\.\d\d$/.test(row.values.FCI ?? ''))).toBe(true);
  });
});

describe('committed samples', () => {
  it('equal what scripts/make-sample-data.ts generates', () => {
    const legacy = makeLegacySample(
      createRandom('cftc-legacy'),
      firstLine(readText(SHARED_DATA, 'cftc/legacy_futures_only_2025_annual.txt')),
    );
    const tffHeader = firstLine(readText(SHARED_DATA, 'cftc/tff_futures_only_2026_FinFutYY.txt'));
    const ecb = makeEcbSample(createRandom('ecb'));
    const expected: [string, string][] = [
      ['ecb/eurofxref-hist.csv', ecb.historyCsv],
      ['ecb/eurofxref-daily.xml', ecb.dailyXml],
      ['cftc/legacy_futures_only_sample.txt', legacy.text],
      ['cftc/tff_futures_only_sample.txt', makeTffSample(createRandom('cftc-tff'), tffHeader, legacy.euroFx)],
      ['fred/northwind_FCI_sample.csv', makeFredSample(createRandom('fred'))],
      ...makeBlsSample(createRandom('bls')).map((text, i): [string, string] => [
        `bls/bls_api_v2_sample_vintage_${BLS_VINTAGES[i]!.date}.json`,
        text,
      ]),
    ];
    for (const [path, text] of expected) expect(readText(SAMPLE_DATA, path), path).toBe(text);
  });
});

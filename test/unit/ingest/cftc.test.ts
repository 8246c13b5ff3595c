import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cftcSource } from '../../../src/ingest/cftc.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import type { CotReportInput } from '../../../src/model/records.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture, expectInputError as expectRejection } from '../../helpers/ingest-fixture.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';

const CFTC = join(SHARED_DATA, 'cftc');
const LEGACY_SELECTED = join(CFTC, 'legacy_futures_only_2025_selected_markets.txt');
const LEGACY_ANNUAL = join(CFTC, 'legacy_futures_only_2025_annual.txt');
const DISAGG_SELECTED = join(CFTC, 'disaggregated_futures_only_2021_selected_markets.txt');
const DISAGG_ANNUAL = join(CFTC, 'disaggregated_futures_only_2021_f_year.txt');
const TFF_SELECTED = join(CFTC, 'tff_futures_only_2026_selected_markets.txt');
const TFF_ANNUAL = join(CFTC, 'tff_futures_only_2026_FinFutYY.txt');
// Trimmed real files found in public repositories: test/fixtures/cftc/README.md.
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'cftc');
const CIT_SELECTED = join(FIXTURES, 'cit_supplemental_2024_selected_markets.txt');
const LEGACY_COMBINED = join(FIXTURES, 'legacy_combined_2026_selected_markets.txt');

const fixture = createIngestFixture('cftc-test-');

const { context } = fixture;

/** The relation's reports by line, as the former parser listed them for one file. */
const BY_LINE = "split_part(source_ref, ':', -1)::INTEGER, series_key, period";

/** The batch, and its relation of reports read back as records. */
async function parse(files: string[], options: IngestOptions = {}) {
  const batch = await cftcSource.parse(files, context(options));
  const relation = batch.cot_reports;
  const reports =
    relation === undefined
      ? []
      : ((await readFactRelationRows(fixture.connection, relation, BY_LINE)) as unknown as CotReportInput[]);
  return { batch, reports };
}

function find(reports: CotReportInput[], code: string, period: string): CotReportInput {
  const report = reports.find((r) => r.market_code === code && r.period === period);
  if (report === undefined) throw new Error(`no report ${code} ${period}`);
  return report;
}

function position(report: CotReportInput, category: string) {
  const entry = report.positions.find((p) => p.category === category);
  if (entry === undefined) throw new Error(`no category ${category}`);
  return entry;
}

/** The real file's lines (line 1 is the header), without line endings. */
function readLines(file: string): string[] {
  return readFileSync(file, 'utf8').split(/\r?\n/);
}

function writeTemp(name: string, lines: string[], ending = '\n'): string {
  return fixture.writeTemp(name, lines.join(ending) + ending);
}

async function expectInputError(files: string[], pattern: RegExp): Promise<void> {
  const error = await expectRejection(cftcSource.parse(files, context()));
  expect(error.message).toMatch(pattern);
}

describe('cftcSource: real CFTC files', () => {
  it.each([
    [LEGACY_SELECTED, 'legacy', 100],
    [LEGACY_ANNUAL, 'legacy', 3190],
    [DISAGG_SELECTED, 'disaggregated', 55],
    [DISAGG_ANNUAL, 'disaggregated', 2178],
    [TFF_SELECTED, 'tff', 55],
    [TFF_ANNUAL, 'tff', 908],
  ])('reads %s as %s with %i reports', async (file, type, count) => {
    const { batch, reports } = await parse([file]);
    expect(batch.rows_read).toBe(count);
    expect(reports).toHaveLength(count);
    expect(new Set(reports.map((r) => r.report_type))).toEqual(new Set([type]));
    for (const report of reports) expect(report.series_key).toBe(`cftc.${report.market_code}.${type}`);
  });

  it('reads CORN 002602 on 2025-03-11 from the legacy file, line 2', async () => {
    const { batch, reports } = await parse([LEGACY_SELECTED]);
    expect(batch.rows_skipped).toBe(0);
    const corn = find(reports, '002602', '2025-03-11');
    expect(corn).toMatchObject({
      series_key: 'cftc.002602.legacy',
      market_name: 'CORN - CHICAGO BOARD OF TRADE',
      contract_units: '(CONTRACTS OF 5,000 BUSHELS)',
      open_interest: 1829935,
      change_open_interest: -19179,
      traders_total: 794,
      conc_gross_le4_long: 9.9,
      conc_gross_le4_short: 8.6,
      conc_gross_le8_long: 17.6,
      conc_gross_le8_short: 15.2,
      source_ref: 'legacy_futures_only_2025_selected_markets.txt:2',
      observed_at: '2025-03-14T19:30:00Z',
      verification_status: 'verified',
      confidence: 1,
      data_class: 'official',
    });
    expect(corn.positions.map((p) => p.category)).toEqual([
      'noncommercial',
      'commercial',
      'total_reportable',
      'nonreportable',
    ]);
    expect(position(corn, 'noncommercial')).toEqual({
      category: 'noncommercial',
      long: 449005,
      short: 180648,
      spread: 476938,
      change_long: -43873,
      change_short: 23208,
      change_spread: -10398,
      pct_oi_long: 24.5,
      pct_oi_short: 9.9,
      pct_oi_spread: 26.1,
      traders_long: 159,
      traders_short: 127,
      traders_spread: 166,
    });
    // The CFTC publishes no spreads for commercials and no trader counts for nonreportables.
    expect(position(corn, 'commercial')).toMatchObject({ long: 774827, short: 991546, spread: null });
    expect(position(corn, 'commercial')).toMatchObject({ traders_short: 396, traders_spread: null });
    // " Total Reportable Positions-Long (All)" is published with a leading space.
    expect(position(corn, 'total_reportable')).toMatchObject({ long: 1700770, short: 1649132 });
    expect(position(corn, 'nonreportable')).toMatchObject({ change_short: -6628, traders_long: null });
  });

  it('reads E-MINI S&P 500 13874A on 2026-03-17 from the TFF file', async () => {
    const { reports } = await parse([TFF_SELECTED]);
    const spx = find(reports, '13874A', '2026-03-17');
    expect(spx).toMatchObject({
      series_key: 'cftc.13874A.tff',
      market_name: 'E-MINI S&P 500 - CHICAGO MERCANTILE EXCHANGE',
      open_interest: 2330659,
      traders_total: 449,
      source_ref: 'tff_futures_only_2026_selected_markets.txt:24',
    });
    expect(spx.positions.map((p) => p.category)).toEqual([
      'dealer',
      'asset_manager',
      'leveraged_funds',
      'other_reportable',
      'total_reportable',
      'nonreportable',
    ]);
    expect(position(spx, 'leveraged_funds')).toMatchObject({
      long: 149731,
      short: 490238,
      change_long: -6566,
      pct_oi_long: 6.4,
      traders_long: 70,
    });
    expect(position(spx, 'asset_manager').long).toBe(1086532);
    expect(position(spx, 'other_reportable').traders_spread).toBe(6);
  });

  it('reads a "." as null: fewer than four JPY other-reportable spreaders on 2026-03-17', async () => {
    const { batch, reports } = await parse([TFF_SELECTED]);
    expect(batch.rows_skipped).toBeGreaterThan(0);
    const yen = find(reports, '097741', '2026-03-17');
    expect(position(yen, 'other_reportable')).toMatchObject({
      traders_long: 11,
      traders_short: 5,
      traders_spread: null,
    });
  });

  it('reads GOLD 088691 on 2021-03-16 from the disaggregated file, double underscore included', async () => {
    const { reports } = await parse([DISAGG_SELECTED]);
    const gold = find(reports, '088691', '2021-03-16');
    expect(gold).toMatchObject({
      series_key: 'cftc.088691.disaggregated',
      market_name: 'GOLD - COMMODITY EXCHANGE INC.',
      open_interest: 476467,
      conc_gross_le4_long: 20.3,
      source_ref: 'disaggregated_futures_only_2021_selected_markets.txt:46',
    });
    expect(gold.positions.map((p) => p.category)).toEqual([
      'producer_merchant',
      'swap_dealer',
      'managed_money',
      'other_reportable',
      'total_reportable',
      'nonreportable',
    ]);
    expect(position(gold, 'managed_money')).toMatchObject({
      long: 100669,
      short: 59548,
      change_long: 4446,
      pct_oi_long: 21.1,
      traders_long: 68,
    });
    expect(position(gold, 'swap_dealer')).toMatchObject({ short: 194866, spread: 35779 });
    expect(position(gold, 'producer_merchant')).toMatchObject({ spread: null, traders_spread: null });
  });

  it('keeps market 067651 under one code while its name changes between 2021 and 2025', async () => {
    const { reports: disaggregated } = await parse([DISAGG_SELECTED]);
    const { reports: legacy } = await parse([LEGACY_ANNUAL]);
    expect(find(disaggregated, '067651', '2021-01-05').market_name).toBe(
      'CRUDE OIL, LIGHT SWEET - NEW YORK MERCANTILE EXCHANGE',
    );
    expect(find(legacy, '067651', '2025-01-07').market_name).toBe(
      'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE',
    );
  });

  it('keeps leading zeros and letters in market codes', async () => {
    const { reports } = await parse([LEGACY_SELECTED]);
    const codes = new Set(reports.map((r) => r.market_code));
    expect(codes).toContain('002602');
    expect(codes).toContain('023651');
    expect(codes).toContain('13874A');
  });

  it('reads a "." change as null for a market new that week (0063DK on 2025-02-11)', async () => {
    const { reports } = await parse([LEGACY_ANNUAL]);
    const report = find(reports, '0063DK', '2025-02-11');
    expect(report.open_interest).toBe(9380);
    expect(report.change_open_interest).toBeNull();
    expect(position(report, 'noncommercial').change_long).toBeNull();
  });

  it('dates each report to its release in the CFTC calendar, EST and EDT', async () => {
    const { reports } = await parse([LEGACY_SELECTED]);
    expect(find(reports, '002602', '2025-01-14')).toMatchObject({
      observed_at: '2025-01-17T20:30:00Z',
      observed_at_method: 'release_calendar',
    });
    expect(find(reports, '002602', '2025-03-11')).toMatchObject({
      observed_at: '2025-03-14T19:30:00Z',
      observed_at_method: 'release_calendar',
    });
    // A local file of unknown age: a correction could not be dated, so none is offered.
    for (const report of reports) expect(report).not.toHaveProperty('correction');
  });

  it('takes the published exception: the report of 2025-01-07 came out Monday 2025-01-13', async () => {
    const { reports } = await parse([LEGACY_SELECTED]);
    expect(find(reports, '002602', '2025-01-07')).toMatchObject({
      observed_at: '2025-01-13T20:30:00Z',
      observed_at_method: 'release_calendar',
    });
  });

  it('dates a correction at the collection time, never back to the first release', async () => {
    const collectedAt = '2025-03-20T09:00:00Z';
    const { reports } = await parse([LEGACY_SELECTED], { collectedAt });
    expect(find(reports, '002602', '2025-03-11')).toMatchObject({
      observed_at: '2025-03-14T19:30:00Z',
      observed_at_method: 'release_calendar',
      correction: { observed_at: collectedAt, method: 'collected' },
    });
  });

  it('never takes a collection time before the release as an earlier release', async () => {
    // The ingest refuses such a file (src/ingest/knowledge-bounds.ts); the parser keeps the release.
    const collectedAt = '2025-03-14T19:00:00Z';
    const { reports } = await parse([LEGACY_SELECTED], { collectedAt });
    expect(find(reports, '002602', '2025-03-11')).toMatchObject({
      observed_at: '2025-03-14T19:30:00Z',
      observed_at_method: 'release_calendar',
      correction: { observed_at: collectedAt, method: 'collected' },
    });
    expect(find(reports, '002602', '2025-03-04').observed_at).toBe('2025-03-07T20:30:00Z');
  });

  it('lets options.observedAt override the release time (method collected)', async () => {
    const { reports } = await parse([LEGACY_SELECTED], { observedAt: '2025-04-01T00:00:00Z' });
    expect(new Set(reports.map((r) => r.observed_at))).toEqual(new Set(['2025-04-01T00:00:00Z']));
    expect(new Set(reports.map((r) => r.observed_at_method))).toEqual(new Set(['collected']));
  });

  it.each([LEGACY_ANNUAL, DISAGG_ANNUAL, TFF_ANNUAL])(
    'has no duplicate (series_key, period) in %s',
    async (file) => {
      const { reports } = await parse([file]);
      expect(new Set(reports.map((r) => `${r.series_key} ${r.period}`)).size).toBe(reports.length);
    },
  );

  it('reads a CRLF copy of the LF legacy file the same way', async () => {
    const crlf = writeTemp('legacy-crlf.txt', readLines(LEGACY_SELECTED).filter(Boolean), '\r\n');
    const { reports } = await parse([crlf]);
    const { reports: original } = await parse([LEGACY_SELECTED]);
    expect(reports.map(({ source_ref: _ref, ...rest }) => rest)).toEqual(
      original.map(({ source_ref: _ref, ...rest }) => rest),
    );
  });

  it('stores the CFTC codes of each report: exchange, region, commodity and subgroup', async () => {
    const { reports: legacy } = await parse([LEGACY_SELECTED]);
    expect(find(legacy, '088691', '2025-03-11')).toMatchObject({
      scope: 'futures_only',
      exchange_code: 'CMX',
      region_code: '01',
      commodity_code: '088',
      subgroup_code: null,
    });
    const { reports: disaggregated } = await parse([DISAGG_SELECTED]);
    expect(find(disaggregated, '088691', '2021-03-16')).toMatchObject({
      exchange_code: 'CMX',
      commodity_code: '088',
      subgroup_code: 'N20',
    });
    const { reports: tff } = await parse([TFF_SELECTED]);
    expect(find(tff, '13874A', '2026-03-17')).toMatchObject({
      exchange_code: 'CME',
      commodity_code: '138',
      subgroup_code: 'F20',
    });
  });
});

describe('cftcSource: bad input', () => {
  const [header = '', first = '', second = ''] = readLines(LEGACY_SELECTED);

  it('refuses a file of another publisher (ECB CSV)', async () => {
    await expectInputError(
      [join(SHARED_DATA, 'ecb', 'eurofxref-hist.csv')],
      /eurofxref-hist\.csv:1: not a CFTC/,
    );
  });

  it('refuses a duplicate (market_code, period) and names both lines', async () => {
    const file = writeTemp('duplicate.txt', [header, first, second, first]);
    await expectInputError(
      [file],
      /duplicate\.txt:4: duplicate report cftc\.002602\.legacy 2025-03-11: also at duplicate\.txt:2/,
    );
  });

  it('refuses a non-numeric value and names the column', async () => {
    const file = writeTemp('letters.txt', [header, first.replace(' 1829935,', ' 18x9935,')]);
    await expectInputError(
      [file],
      /letters\.txt:2: column "Open Interest \(All\)": expected a number, got "18x9935"/,
    );
  });

  it('refuses a truncated last row and names its line', async () => {
    const file = writeTemp('truncated.txt', [header, first, second.slice(0, 300)]);
    await expectInputError([file], /truncated\.txt:3: row ends early: \d+ of 129 fields/);
  });

  it('refuses a last row cut inside a quoted field', async () => {
    const file = writeTemp('open-quote.txt', [header, first, second.slice(0, 15)]);
    await expectInputError(
      [file],
      /open-quote\.txt: not readable as comma-separated text \(truncated file\?\)/,
    );
  });

  it('refuses a row with more fields than the header and names its line', async () => {
    const file = writeTemp('extra-field.txt', [header, first, `${second},42`]);
    await expectInputError([file], /extra-field\.txt:3: row has more fields than the header \(129\)/);
  });

  it('refuses an impossible date', async () => {
    const file = writeTemp('bad-date.txt', [header, first.replace('250311,2025-03-11', '250230,2025-02-30')]);
    await expectInputError([file], /bad-date\.txt:2: .*expected a date YYYY-MM-DD, got "2025-02-30"/);
  });

  it('refuses a YYMMDD date that disagrees with the YYYY-MM-DD date', async () => {
    const file = writeTemp('dates-disagree.txt', [header, first.replace('250311,', '250312,')]);
    await expectInputError([file], /dates-disagree\.txt:2: .*says 250312 but .* says 2025-03-11/);
  });

  it('refuses a header with an unknown column, naming the nearest known one', async () => {
    const file = writeTemp('renamed.txt', [
      header.replace('"Traders-Total (All)"', '"Traders (All)"'),
      first,
    ]);
    await expectInputError(
      [file],
      /^renamed\.txt:1: unknown column "Traders \(All\)" in the header of a legacy COT file; nearest known header "Traders-Total \(All\)"/,
    );
  });

  it('refuses a header that lacks a mapped column', async () => {
    // The market name of the first line has no comma: fields split on commas alone.
    const drop = (line: string, index: number) => line.split(',').toSpliced(index, 1).join(',');
    const index = header.split(',').indexOf('"Traders-Total (All)"');
    expect(index).toBeGreaterThan(0);
    const file = writeTemp('dropped.txt', [drop(header, index), drop(first, index)]);
    await expectInputError(
      [file],
      /dropped\.txt:1: header of a legacy COT file lacks "Traders-Total \(All\)"/,
    );
  });

  it('refuses a scope other than FutOnly or Combined, and a row that contradicts options.scope', async () => {
    const [tffHeader = '', tffFirst = ''] = readLines(TFF_SELECTED);
    const file = writeTemp('scope.txt', [tffHeader, tffFirst.replace('"FutOnly"', '"Options"')]);
    await expectInputError(
      [file],
      /scope\.txt:2: column "FutOnly_or_Combined": expected FutOnly or Combined, got "Options"/,
    );
    const error = await expectRejection(
      cftcSource.parse([TFF_SELECTED], context({ scope: 'combined' } as IngestOptions)),
    );
    expect(error.message).toMatch(
      /:2: column "FutOnly_or_Combined": says FutOnly but the files were declared combined/,
    );
  });

  it('refuses a header-only file and an empty file', async () => {
    await expectInputError([writeTemp('header-only.txt', [header])], /no data rows/);
    const empty = fixture.writeTemp('empty.txt', '');
    await expectInputError([empty], /file is empty/);
  });
});

describe('cftcSource: CSV dialect on the real files', () => {
  it("keeps the apostrophes of contract units in the legacy file (MMBTU'S)", async () => {
    const { reports } = await parse([LEGACY_ANNUAL]);
    const socal = find(reports, '023393', '2025-03-11');
    expect(socal.contract_units).toBe("(Contracts of 2,500  MMBTU'S)");
    const units = new Set(reports.map((r) => r.contract_units));
    expect(units).toContain("(Contracts of 10,000 MMBTU'S)");
    expect([...units].some((unit) => unit?.includes('MMBTUS'))).toBe(false);
  });

  it("keeps the apostrophe of a market name in the disaggregated file (BUYER'S INDEX)", async () => {
    const { reports } = await parse([DISAGG_ANNUAL]);
    const waha = find(reports, '0233D4', '2021-03-16');
    expect(waha.market_name).toBe("WAHA HUB - WEST TEXAS DELIVERED/BUYER'S INDEX - ICE FUTURES ENERGY DIV");
    expect(waha.source_ref).toBe('disaggregated_futures_only_2021_f_year.txt:655');
    expect(reports.some((r) => r.market_name.includes('BUYERS INDEX'))).toBe(false);
  });

  it('reads a doubled quote inside a quoted field as one quote', async () => {
    const [header = '', first = ''] = readLines(LEGACY_SELECTED);
    const quoted = first.replace(
      '"CORN - CHICAGO BOARD OF TRADE"',
      '"CORN ""NO. 2"" - CHICAGO BOARD OF TRADE"',
    );
    expect(quoted).not.toBe(first);
    const { reports } = await parse([writeTemp('doubled-quote.txt', [header, quoted])]);
    expect(reports[0]).toMatchObject({
      market_name: 'CORN "NO. 2" - CHICAGO BOARD OF TRADE',
      open_interest: 1829935,
      contract_units: '(CONTRACTS OF 5,000 BUSHELS)',
    });
  });
});

describe('cftcSource: futures-and-options combined files and the CIT supplement', () => {
  it('files a combined TFF row under cftc.<code>.tff.combined', async () => {
    const [tffHeader = '', tffFirst = ''] = readLines(TFF_SELECTED);
    const file = writeTemp('tff-combined.txt', [tffHeader, tffFirst.replace('"FutOnly"', '"Combined"')]);
    const { reports } = await parse([file]);
    const { reports: futuresOnly } = await parse([TFF_SELECTED]);
    expect(reports[0]).toMatchObject({ scope: 'combined', report_type: 'tff' });
    expect(reports[0]?.series_key).toBe(`cftc.${reports[0]?.market_code}.tff.combined`);
    expect(futuresOnly[0]).toMatchObject({
      scope: 'futures_only',
      series_key: `cftc.${reports[0]?.market_code}.tff`,
    });
  });

  it('reads the legacy combined file when the caller declares its scope (the header cannot tell)', async () => {
    const { reports } = await parse([LEGACY_COMBINED], { scope: 'combined' } as IngestOptions);
    expect(reports).toHaveLength(18);
    const gold = find(reports, '088691', '2026-03-03');
    expect(gold).toMatchObject({
      series_key: 'cftc.088691.legacy.combined',
      report_type: 'legacy',
      scope: 'combined',
      market_name: 'GOLD - COMMODITY EXCHANGE INC.',
      exchange_code: 'CMX',
      source_ref: 'legacy_combined_2026_selected_markets.txt:11',
    });
    // Without a declaration a legacy file counts as futures only...
    const { reports: undeclared } = await parse([LEGACY_COMBINED]);
    expect(undeclared[0]?.series_key).toBe('cftc.002602.legacy');
  });

  it("...unless it carries the CFTC's own name of the combined file (annualof.txt)", async () => {
    const copy = writeTemp(join('by-name', 'annualof.txt'), readLines(LEGACY_COMBINED).filter(Boolean));
    const { reports } = await parse([copy]);
    expect(new Set(reports.map((r) => r.scope))).toEqual(new Set(['combined']));
  });

  it('reads the CIT supplement: index traders beside commercials and non-commercials ex-CIT', async () => {
    const { batch, reports } = await parse([CIT_SELECTED]);
    expect(batch.rows_read).toBe(60);
    expect(reports).toHaveLength(60);
    const wheat = find(reports, '001602', '2024-07-23');
    expect(wheat).toMatchObject({
      series_key: 'cftc.001602.cit.combined',
      report_type: 'cit',
      scope: 'combined',
      market_name: 'WHEAT-SRW - CHICAGO BOARD OF TRADE',
      exchange_code: 'CBT',
      region_code: '00',
      commodity_code: '001',
      subgroup_code: null,
      contract_units: '(CONTRACTS OF 5,000 BUSHELS)',
      open_interest: 511022,
      change_open_interest: 4792,
      traders_total: 400,
      conc_gross_le4_long: null,
      source_ref: 'cit_supplemental_2024_selected_markets.txt:2',
      observed_at: '2024-07-26T19:30:00Z',
    });
    expect(wheat.positions.map((p) => p.category)).toEqual([
      'noncommercial',
      'commercial',
      'index_trader',
      'total_reportable',
      'nonreportable',
    ]);
    expect(position(wheat, 'noncommercial')).toEqual({
      category: 'noncommercial',
      long: 58924,
      short: 145951,
      spread: 155512,
      change_long: 3142,
      change_short: 855,
      change_spread: 4048,
      pct_oi_long: 11.5,
      pct_oi_short: 28.6,
      pct_oi_spread: 30.4,
      traders_long: 86,
      traders_short: 114,
      traders_spread: 123,
    });
    // "Change_Comm_Short_All_NoCIT " is published with a trailing space.
    expect(position(wheat, 'commercial')).toMatchObject({ long: 110956, short: 98152, change_short: -2684 });
    expect(position(wheat, 'index_trader')).toMatchObject({
      long: 149663,
      short: 70739,
      change_long: -1003,
      change_short: 2395,
      pct_oi_long: 29.3,
      traders_long: 46,
      traders_short: 33,
    });
    expect(position(wheat, 'total_reportable')).toMatchObject({ long: 475056, short: 470354 });
    expect(position(wheat, 'nonreportable')).toMatchObject({ long: 35966, short: 40668, pct_oi_long: 7.0 });
  });

  it('refuses a CIT file declared futures only', async () => {
    const error = await expectRejection(
      cftcSource.parse([CIT_SELECTED], context({ scope: 'futures_only' } as IngestOptions)),
    );
    expect(error.message).toMatch(/:1: a cit file is combined, not futures_only/);
  });
});

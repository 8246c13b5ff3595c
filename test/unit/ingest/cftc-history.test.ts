import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CFTC_EXCEPTIONS_KNOWN_FROM, cftcRuleRelease } from '../../../src/calendar/cftc-release-rule.ts';
import { createUsFederalHolidays } from '../../../src/calendar/us-federal-holidays.ts';
import { cftcSource } from '../../../src/ingest/cftc.ts';
import { addDays, zonedTimeToUtc } from '../../../src/lib/zoned-time.ts';
import type { CotReportColumnsInput, CotReportInput } from '../../../src/model/records.ts';
import { isSuppressed, readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { errorOf } from '../../helpers/parser-oracle.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const CURRENT = join(SHARED_DATA, 'cftc');
const HISTORY = join(CURRENT, 'history');
const list = (dir: string) =>
  readdirSync(dir)
    .filter((name) => /\.(txt|zip)$/.test(name))
    .map((name) => join(dir, name));
/** Every CFTC file before 2021 (the CFTC's zips read as they are) and every current one. */
const FILES = [...list(HISTORY), ...list(CURRENT)];

const fixture = createIngestFixture('cftc-history-test-');

/**
 * The figure columns as the files name them, whatever the era (not through the parser's table):
 * "All", and the crop years "Old" and "Other" (legacy writes `-Short(Other)` without the space).
 */
const FIGURE_COLUMN = /(_All|_Old|_Other|\((All|Old|Other)\))$/;
// Not stored: the percent of open interest of open interest itself (per crop year too).
const NOT_STORED = /^(Pct_of_Open_Interest_|% of Open Interest \(OI\))/;

/** The long and short columns of each category, spelt out by hand per family. */
function positionColumns(family: string): Record<string, [string, string]> {
  if (family === 'legacy') {
    const names = {
      noncommercial: 'Noncommercial',
      commercial: 'Commercial',
      total_reportable: 'Total Reportable',
      nonreportable: 'Nonreportable',
    };
    return Object.fromEntries(
      Object.entries(names).map(([category, name]) => [
        category,
        [`${name} Positions-Long (All)`, `${name} Positions-Short (All)`],
      ]),
    );
  }
  const names: Record<string, string> =
    family === 'tff'
      ? { dealer: 'Dealer', asset_manager: 'Asset_Mgr', leveraged_funds: 'Lev_Money' }
      : { producer_merchant: 'Prod_Merc', swap_dealer: 'Swap_', managed_money: 'M_Money' };
  Object.assign(names, {
    other_reportable: 'Other_Rept',
    total_reportable: 'Tot_Rept',
    nonreportable: 'NonRept',
  });
  return Object.fromEntries(
    Object.entries(names).map(([category, prefix]) => [
      category,
      // The CFTC writes `Swap_Positions_Long_All` but `Swap__Positions_Short_All`.
      [`${prefix.replace(/_$/, '')}_Positions_Long_All`, `${prefix}_Positions_Short_All`],
    ]),
  );
}

const familyOf = (file: string) =>
  /legacy/.test(file) ? 'legacy' : /disagg/.test(file) ? 'disaggregated' : 'tff';

/** Every stored figure of a report and of the columns stored beside it (null ones left out), sorted. */
function storedNumbers(report: CotReportInput, extras: CotReportColumnsInput | undefined): number[] {
  const totals = [
    report.open_interest,
    report.change_open_interest,
    report.traders_total,
    report.conc_gross_le4_long,
    report.conc_gross_le4_short,
    report.conc_gross_le8_long,
    report.conc_gross_le8_short,
  ];
  const positions = report.positions.flatMap(({ category: _, ...fields }) => Object.values(fields));
  const net =
    extras === undefined
      ? []
      : [
          extras.conc_net_le4_long,
          extras.conc_net_le4_short,
          extras.conc_net_le8_long,
          extras.conc_net_le8_short,
        ];
  const crops = (extras?.crop_years ?? []).flatMap(({ crop: _, positions: cropPositions, ...figures }) => [
    ...Object.values(figures),
    ...cropPositions.flatMap(({ category: __, ...fields }) => Object.values(fields)),
  ]);
  // `-0` is written in some years: compared as 0.
  return [...totals, ...positions, ...net, ...crops]
    .flatMap((value) => (value === null ? [] : [value + 0]))
    .sort((a, b) => a - b);
}

// `-0` is written in some years; the store holds it as 0.
const asNumber = (field: string) => (isSuppressed(field) ? null : Number(field) + 0);

const holidays = createUsFederalHolidays();
const newYork = (date: string) => zonedTimeToUtc(date, '15:30', 'America/New_York');

/**
 * Report dates whose knowledge time could be early (issue 22 item 4): every report is stamped no
 * earlier than 15:30 New York on the Friday of its week; before 2010, where the CFTC's exceptions
 * are not known, by the release rule (`release_rule`), later than the rule's own release day.
 */
function earlyStamps(rows: readonly CotReportInput[]): string[] {
  const early = new Set<string>();
  for (const { period, observed_at: at, observed_at_method: method } of rows) {
    const friday = addDays(period, 5 - new Date(`${period}T00:00:00Z`).getUTCDay());
    const old = period < CFTC_EXCEPTIONS_KNOWN_FROM;
    const rule = newYork(cftcRuleRelease(period, holidays).release_date);
    if (at < newYork(friday) || (old && (method !== 'release_rule' || at <= rule)))
      early.add(`${period}: ${at} (${method})`);
  }
  return [...early];
}

describe('cftcSource on every CFTC file before 2021 and every current one', () => {
  it.each(FILES.map((file) => [basename(file), file]))(
    '%s: every number as an independent reading of the file gives it, every line a report, no early stamp',
    async (_name, file) => {
      const reading = readCftcFileByHand(file);
      const batch = await cftcSource.parse([file], fixture.context());
      const relation = batch.cot_reports;
      if (relation === undefined) throw new Error('no reports');
      const rows = (await readFactRelationRows(fixture.connection, relation)) as unknown as CotReportInput[];
      if (batch.cot_report_columns === undefined) throw new Error('no report columns');
      const extraRows = (await readFactRelationRows(
        fixture.connection,
        batch.cot_report_columns,
      )) as unknown as CotReportColumnsInput[];
      expect(relation.rows).toBe(reading.lines.length);
      expect(extraRows.length).toBe(reading.lines.length);
      expect(rows.length).toBe(reading.lines.length);
      expect(batch.rows_read).toBe(reading.lines.length);

      const family = familyOf(basename(file));
      const at = (name: string) => {
        const index = reading.header.indexOf(name);
        if (index < 0) throw new Error(`${file}: no column "${name}"`);
        return index;
      };
      const stored = reading.header.flatMap((name, index) =>
        FIGURE_COLUMN.test(name) && !NOT_STORED.test(name) ? [index] : [],
      );
      const extrasOf = new Map(extraRows.map((row) => [`${row.series_key} ${row.period}`, row]));
      // Named by hand per family: the net ratios, and the crop years' open interest and first category.
      const netColumns =
        family === 'legacy'
          ? ['Concentration-Net LT =4 TDR-Long (All)', 'Concentration-Net LT =8 TDR-Short (All)']
          : ['Conc_Net_LE_4_TDR_Long_All', 'Conc_Net_LE_8_TDR_Short_All'];
      const cropColumns =
        family === 'legacy'
          ? [
              'Open Interest (Old)',
              'Noncommercial Positions-Long (Other)',
              'Concentration-Gross LT =4 TDR-Short(Other)',
            ]
          : family === 'disaggregated'
            ? ['Open_Interest_Old', 'Prod_Merc_Positions_Long_Other', 'Conc_Gross_LE_4_TDR_Short_Other']
            : null;
      const scopeColumn = reading.header.indexOf('FutOnly_or_Combined');
      const positions = positionColumns(family);
      const openInterest = at(family === 'legacy' ? 'Open Interest (All)' : 'Open_Interest_All');
      const reports = new Map(rows.map((row) => [`${row.series_key} ${row.period}`, row]));
      // Differences are collected and compared once: an expect per figure is slow on 10,000 lines.
      const differences: string[] = [];
      const differ = (what: string, got: unknown, want: unknown) => {
        if (JSON.stringify(got) !== JSON.stringify(want))
          differences.push(`${what}: ${JSON.stringify(got)} <> ${JSON.stringify(want)}`);
      };
      let suppressed = 0;
      for (const { line, fields } of reading.lines) {
        // Name, YYMMDD date, ISO date, contract market code: the first four fields in every era.
        const [name, , period, code] = fields;
        const combined = scopeColumn >= 0 && fields[scopeColumn] === 'Combined';
        const key = `cftc.${code}.${family}${combined ? '.combined' : ''} ${period}`;
        const report = reports.get(key);
        if (report === undefined) {
          differences.push(`line ${line}: no report ${key}`);
          continue;
        }
        differ(`${key} source_ref`, report.source_ref, `${reading.source}:${line}`);
        differ(`${key} market_name`, report.market_name, name);
        differ(`${key} open_interest`, report.open_interest, asNumber(fields[openInterest] ?? ''));
        for (const position of report.positions) {
          const [long, short] = positions[position.category] ?? ['', ''];
          differ(
            `${key} ${position.category}`,
            [position.long, position.short],
            [asNumber(fields[at(long)] ?? ''), asNumber(fields[at(short)] ?? '')],
          );
        }
        const extras = extrasOf.get(key);
        const field = (name: string) => asNumber(fields[at(name)] ?? '');
        differ(
          `${key} net concentration`,
          [extras?.conc_net_le4_long, extras?.conc_net_le8_short],
          netColumns.map(field),
        );
        const [old, other] = extras?.crop_years ?? [];
        differ(
          `${key} crop years`,
          cropColumns === null
            ? null
            : [
                old?.crop,
                old?.open_interest,
                other?.crop,
                other?.positions[0]?.long,
                other?.conc_gross_le4_short,
              ],
          cropColumns === null
            ? null
            : ['old', field(cropColumns[0]!), 'other', field(cropColumns[1]!), field(cropColumns[2]!)],
        );
        const written = stored.map((index) => fields[index] ?? '');
        suppressed += written.filter(isSuppressed).length;
        const numbers = written.flatMap((value) => (isSuppressed(value) ? [] : [Number(value) + 0]));
        differ(
          `${key} every figure`,
          storedNumbers(report, extras),
          numbers.sort((a, b) => a - b),
        );
      }
      expect(differences.slice(0, 5)).toEqual([]);
      expect(earlyStamps(rows)).toEqual([]);
      // A suppressed value is a null counted as skipped, never a zero.
      expect(batch.rows_skipped).toBe(suppressed);
    },
    // The disaggregated years are 10,000 lines of 191 columns each, all of them compared.
    180_000,
  );

  it('reads a zip by its members, and refuses a damaged one in one line naming the file', async () => {
    const zip = readFileSync(join(HISTORY, 'disagg_fut_2020partial__fut_disagg_txt_2020.zip'));
    // Cut short: the central directory at its end is gone.
    const damaged = join(fixture.dir, 'fut_disagg_txt_2020.zip');
    writeFileSync(damaged, zip.subarray(0, zip.length - 100));
    const message = await errorOf(cftcSource.parse([damaged], fixture.context()));
    expect(message).toMatch(
      /^InputError: fut_disagg_txt_2020\.zip: not a readable zip archive: the zip archive is incomplete or damaged/,
    );
    expect(message.split('\n')).toHaveLength(1);
  });

  it('refuses an unknown header in one line naming the file, the column and the nearest known header', async () => {
    const text = readFileSync(join(HISTORY, 'tff_fut_2013__COT_2013.txt'), 'latin1');
    const [header = '', first = ''] = text.split('\r\n');
    const renamed = fixture.writeTemp(
      'FinFut13.txt',
      `${header.replace('"Traders_Tot_All"', '"Traders_Total_All"')}\r\n${first}\r\n`,
    );
    const message = await errorOf(cftcSource.parse([renamed], fixture.context()));
    expect(message).toBe(
      'InputError: FinFut13.txt:1: unknown column "Traders_Total_All" in the header of a tff COT file; nearest known header "Traders_Tot_All" (docs/data-sources.md lists the known headers)',
    );
    expect(message.split('\n')).toHaveLength(1);
    // The era's own name is known, but its values must still be ISO dates: never guessed.
    const old = readFileSync(join(HISTORY, 'tff_fut_2010__COT_2010.txt'), 'latin1').split('\r\n');
    const usDate = fixture.writeTemp(
      'FinFut10.txt',
      `${old[0]}\r\n${(old[1] ?? '').replace(',2010-12-28,', ',12/28/2010,')}\r\n`,
    );
    expect(await errorOf(cftcSource.parse([usDate], fixture.context()))).toBe(
      'InputError: FinFut10.txt:2: column "Report_Date_as_YYYY-MM-DD": expected a date YYYY-MM-DD, got "12/28/2010"',
    );
  });

  it('a report older than any known release schedule: dated when collected, refused without that', async () => {
    const lines = readFileSync(join(HISTORY, 'legacy_fut_2004__deacot2004_annual.txt'), 'latin1').split(
      '\r\n',
    );
    const line = (lines[1] ?? '').replace(',041228 ,2004-12-28,', ',990316 ,1999-03-16,');
    expect(line).toContain('1999-03-16');
    const old = fixture.writeTemp('annual.txt', `${lines[0]}\r\n${line}\r\n`);
    expect(await errorOf(cftcSource.parse([old], fixture.context()))).toMatch(
      /COT report of 1999-03-16 is older than every CFTC release schedule known .*give --collected-at/,
    );
    const collectedAt = '2026-11-20T10:00:00Z';
    const batch = await cftcSource.parse([old], fixture.context({ collectedAt }));
    if (batch.cot_reports === undefined) throw new Error('no reports');
    const [row] = (await readFactRelationRows(
      fixture.connection,
      batch.cot_reports,
    )) as unknown as CotReportInput[];
    expect([row?.period, row?.observed_at, row?.observed_at_method]).toEqual([
      '1999-03-16',
      collectedAt,
      'collected',
    ]);
  });
});

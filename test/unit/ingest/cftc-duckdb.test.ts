import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cftcSource } from '../../../src/ingest/cftc.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import {
  type CotReportColumnsInput,
  type CotReportInput,
  isFactRelation,
} from '../../../src/model/records.ts';
import { cftcJsOracleSource } from '../../helpers/cftc-js-oracle.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { appendWithBoth, errorOf } from '../../helpers/parser-oracle.ts';
import { REPO_ROOT, SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';

const listTxt = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.txt'))
    .map((name) => join(dir, name));
const REAL = listTxt(join(SHARED_DATA, 'cftc'));
// The selected-market files repeat reports of the annual ones: together they are refused.
const ANNUAL = REAL.filter((file) => !file.includes('selected'));
const SAMPLE = listTxt(join(SAMPLE_DATA, 'cftc'));
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'cftc');
const LEGACY = join(SHARED_DATA, 'cftc', 'legacy_futures_only_2025_selected_markets.txt');
const TFF = join(SHARED_DATA, 'cftc', 'tff_futures_only_2026_selected_markets.txt');

const fixture = createIngestFixture('cftc-duckdb-test-');

const byKey = (a: { series_key: string; period: string }, b: { series_key: string; period: string }) =>
  a.series_key < b.series_key ? -1 : a.series_key > b.series_key ? 1 : a.period < b.period ? -1 : 1;

/** The DuckDB parser's batch with its relation read back, and the former JavaScript parser's. */
async function parseBoth(files: string[], options: IngestOptions = {}) {
  const batch = await cftcSource.parse(files, fixture.context(options));
  const oracle = await cftcJsOracleSource.parse(files, fixture.context(options));
  const relation = batch.cot_reports;
  if (relation === undefined) throw new Error('no reports');
  const rows = (await readFactRelationRows(fixture.connection, relation)) as unknown as CotReportInput[];
  // The columns stored beside the reports (cot_report_columns): none for CIT files.
  const extras =
    batch.cot_report_columns === undefined
      ? []
      : ((await readFactRelationRows(
          fixture.connection,
          batch.cot_report_columns,
        )) as unknown as CotReportColumnsInput[]);
  return {
    batch,
    relation,
    rows,
    oracle,
    expected: [...(oracle.cot_reports ?? [])].sort(byKey),
    extras,
    expectedExtras: [...(oracle.cot_report_columns ?? [])].sort(byKey),
  };
}

/** The bad-input cases that are not bad: odd but valid numbers and names (1e21 the store refuses). */
const ACCEPTED = new Set(['percent.txt', 'huge.txt', 'numbers.txt', 'hex.txt', 'quoted "name".txt']);

/** The fields of one CSV line, quoted fields kept with their quotes. */
function splitLine(line: string): string[] {
  const fields: string[] = [];
  let rest = line;
  for (;;) {
    const match = /^("(?:[^"]|"")*"|[^,]*)(,?)/.exec(rest);
    fields.push(match?.[1] ?? '');
    rest = rest.slice(match?.[0].length ?? rest.length);
    if (match?.[2] !== ',') return fields;
  }
}

/** The line with its field `index` replaced by `value` (written as given). */
function setField(line: string, index: number, value: string): string {
  const fields = splitLine(line);
  fields[index] = value;
  return fields.join(',');
}

describe('cftcSource in DuckDB against the former JavaScript parser (test/helpers/cftc-js-oracle.ts)', () => {
  it('gives exactly the same reports and counts on every real and sample file, as a relation', async () => {
    for (const file of [...REAL, ...SAMPLE, ...listTxt(FIXTURES)]) {
      const options: IngestOptions = file.includes('combined') ? { scope: 'combined' } : {};
      const { batch, relation, rows, oracle, expected, extras, expectedExtras } = await parseBoth(
        [file],
        options,
      );
      expect(Array.isArray(batch.cot_reports), file).toBe(false);
      expect(isFactRelation(relation), file).toBe(true);
      expect(relation.rows, file).toBe(expected.length);
      expect(rows.length, file).toBeGreaterThan(0);
      expect(rows, file).toEqual(expected);
      expect(extras, file).toEqual(expectedExtras);
      // Every legacy, disaggregated and TFF report has its columns; CIT reports have none.
      expect(extras.length, file).toBe(rows.filter((row) => row.report_type !== 'cit').length);
      expect([batch.rows_read, batch.rows_skipped], file).toEqual([oracle.rows_read, oracle.rows_skipped]);
    }
  });

  it('gives the same reports for several files at once, with a collection time or --observed-at', async () => {
    const many = await parseBoth(ANNUAL, { collectedAt: '2026-04-14T08:00:00Z' });
    expect(many.rows).toEqual(many.expected);
    expect(many.batch.rows_read).toBe(many.oracle.rows_read);
    const observed = await parseBoth([LEGACY, TFF], { observedAt: '2026-11-23T12:00:00Z' });
    expect(observed.rows).toEqual(observed.expected);
  });

  it('refuses bad files with the very same message', async () => {
    const [header = '', first = '', second = ''] = readFileSync(LEGACY, 'utf8').split(/\r?\n/);
    const [tffHeader = '', tffFirst = ''] = readFileSync(TFF, 'utf8').split(/\r?\n/);
    const columns = splitLine(header).map((name) => name.replaceAll('"', '').trim());
    const at = (name: string) => columns.indexOf(name);
    const legacy = (...lines: string[]) => `${[header, ...lines].join('\n')}\n`;
    const cases: Array<[string, string, IngestOptions?]> = [
      ['duplicate.txt', legacy(first, second, first)],
      ['letters.txt', legacy(first.replace(' 1829935,', ' 18x9935,'))],
      ['whole.txt', legacy(first, setField(second, at('Noncommercial Positions-Long (All)'), '12.5'))],
      ['percent.txt', legacy(setField(first, at('% of OI-Noncommercial-Long (All)'), '12.345'))],
      ['huge.txt', legacy(setField(first, at('Traders-Total (All)'), '1e21'))],
      ['numbers.txt', legacy(setField(setField(first, at('Open Interest (All)'), '"1,829,935"'), 12, ' . '))],
      ['infinity.txt', legacy(setField(first, at('Change in Open Interest (All)'), 'Infinity'))],
      ['hex.txt', legacy(setField(first, at('Change in Open Interest (All)'), '0x1F'))],
      ['comma.txt', legacy(setField(first, at('Change in Open Interest (All)'), '","'))],
      ['truncated.txt', legacy(first, second.slice(0, 300))],
      ['open-quote.txt', legacy(first, second.slice(0, 15))],
      ['extra-field.txt', legacy(first, `${second},42`)],
      ['bad-date.txt', legacy(first.replace('250311,2025-03-11', '250230,2025-02-30'))],
      ['dates-disagree.txt', legacy(first.replace('250311,', '250312,'))],
      ['no-code.txt', legacy(setField(first, at('CFTC Contract Market Code'), ' '))],
      ['bad-code.txt', legacy(setField(first, at('CFTC Contract Market Code'), 'ab1'))],
      ['no-name.txt', legacy(setField(first, 0, '""'))],
      ['precedence.txt', legacy(first, setField(first, at('Open Interest (All)'), 'x'), second, second)],
      ['two-in-row.txt', legacy(setField(first.replace('250311,', '250312,'), 8, 'x'))],
      ['renamed.txt', `${header.replace('"Traders-Total (All)"', '"Traders (All)"')}\n${first}\n`],
      ['header-only.txt', `${header}\n`],
      ['empty.txt', ''],
      ['scope.txt', `${tffHeader}\n${tffFirst.replace('"FutOnly"', '"Options"')}\n`],
      ['scope-option.txt', `${tffHeader}\n${tffFirst}\n`, { scope: 'combined' }],
      ['quoted "name".txt', legacy(first.replace('"CORN - CHICAGO', '"CORN ""NO. 2"" \\ CHICAGO'))],
    ];
    for (const [name, content, options] of cases) {
      const file = fixture.writeTemp(name, content);
      const duckdb = await errorOf(cftcSource.parse([file], fixture.context(options)));
      const oracle = await errorOf(cftcJsOracleSource.parse([file], fixture.context(options)));
      expect(duckdb, name).toBe(oracle);
      // The few cases the parsers accept are there for their values.
      expect(duckdb === 'no error', name).toBe(ACCEPTED.has(name));
      if (ACCEPTED.has(name)) {
        const { rows, expected } = await parseBoth([file], options);
        expect(rows, name).toEqual(expected);
      }
    }
    // A report repeated in a later file names the earlier file's line.
    const again = fixture.writeTemp('again.txt', legacy(second, first));
    const files = [LEGACY, fixture.writeTemp('ecb.csv', 'Date,USD\n2026-04-13,1.1\n'), again];
    for (const pair of [[LEGACY, again], [again, again], files]) {
      const duckdb = await errorOf(cftcSource.parse(pair, fixture.context()));
      expect(duckdb).toBe(await errorOf(cftcJsOracleSource.parse(pair, fixture.context())));
      expect(duckdb).not.toBe('no error');
    }
  });

  it('appends the very same records to a store as the arrays did (ids, hashes, corrections, counts)', async () => {
    const legacy = readFileSync(LEGACY, 'utf8').split('\n');
    // The second step corrects one report (a changed open interest) and repeats the others.
    const corrected = fixture.writeTemp(
      'legacy_corrected.txt',
      [legacy[0], (legacy[1] ?? '').replace(' 1829935,', ' 1829936,'), ...legacy.slice(2)].join('\n'),
    );
    const steps: Array<[string[], IngestOptions]> = [
      [ANNUAL, {}],
      [[corrected], { collectedAt: '2026-04-14T08:00:00Z' }],
    ];
    const { summaries, records, also } = await appendWithBoth(
      fixture,
      { duckdb: cftcSource, oracle: cftcJsOracleSource },
      steps,
      'cot_reports',
      ['cot_report_columns'],
    );
    expect(summaries.duckdb).toEqual(summaries.oracle);
    expect(records.duckdb.length).toBeGreaterThan(6000);
    expect(records.duckdb).toEqual(records.oracle);
    // The columns beside the reports: the same records, content hash (SQL and JavaScript) included.
    const columns = also.cot_report_columns!;
    expect(columns.duckdb.length).toBe(records.duckdb.length - 1);
    expect(columns.duckdb).toEqual(columns.oracle);
  }, 180_000);
});

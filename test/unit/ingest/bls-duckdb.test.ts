import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blsSource } from '../../../src/ingest/bls.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import { isFactRelation, type ObservationInput } from '../../../src/model/records.ts';
import { blsJsOracleSource } from '../../helpers/bls-js-oracle.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture, INGEST_NOW } from '../../helpers/ingest-fixture.ts';
import { errorOf } from '../../helpers/parser-oracle.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const BLS = join(SHARED_DATA, 'bls');
const CPS = join(BLS, 'bls_api_v2_cps_situation_2015.json');
const CPS_ALL_OPTIONS = join(BLS, 'bls_api_v2_cps_situation_2015_all_options.json');
const NORTH_DAKOTA = join(BLS, 'bls_api_v2_sae_north_dakota_mining_2014_2015.json');
const ERROR_RESPONSE = join(BLS, 'bls_api_v2_error_bad_end_year.json');
const VINTAGES = join(BLS, 'ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json');
const CPI = join(BLS, 'datahub_cpi-us_cpiai.csv');
const FRED = join(BLS, 'fred_PAYEMS_vintage_2025-08-02.csv');

const fixture = createIngestFixture('bls-duckdb-test-');

/** The DuckDB parser's batch with its relation read back, and the former JavaScript parser's. */
async function parseBoth(files: string[], options: IngestOptions = {}) {
  const batch = await blsSource.parse(files, fixture.context(options));
  const oracle = await blsJsOracleSource.parse(files, fixture.context(options));
  const relation = batch.observations;
  if (relation === undefined) throw new Error('no observations');
  const rows = (await readFactRelationRows(fixture.connection, relation)).map((row) => {
    // The vintage and CPI values carry no footnotes: NULL in the relation, absent in the oracle.
    const { footnotes, ...rest } = row;
    return (footnotes === null ? rest : row) as ObservationInput;
  });
  return { batch, relation, rows, oracle };
}

function apiResponse(data: object[], seriesID = 'CUUR0000SA0'): object {
  return { status: 'REQUEST_SUCCEEDED', message: [], Results: { series: [{ seriesID, data }] } };
}

const COLLECTED = { collectedAt: INGEST_NOW };

describe('blsSource in DuckDB against the former JavaScript parser (test/helpers/bls-js-oracle.ts)', () => {
  it('gives exactly the same rows and counts on the real API responses, as a relation', async () => {
    for (const files of [[CPS], [CPS_ALL_OPTIONS], [NORTH_DAKOTA], [NORTH_DAKOTA, CPS]]) {
      for (const options of [
        { collectedAt: '2016-02-01T17:33:08Z' },
        COLLECTED,
        { collectedAt: '2016-03-01T00:00:00Z' },
        { observedAt: INGEST_NOW },
      ]) {
        const { batch, relation, rows, oracle } = await parseBoth(files, options);
        expect(Array.isArray(batch.observations)).toBe(false);
        expect(isFactRelation(relation)).toBe(true);
        expect(relation.rows).toBe(oracle.observations?.length);
        expect(rows).toEqual(oracle.observations);
        expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
      }
    }
  });

  it('gives the same rows on the vintage JSON and the CPI CSV, alone and together', async () => {
    for (const [files, options] of [
      [[VINTAGES], {}],
      [[CPI], COLLECTED],
      [[CPI, VINTAGES, CPS], COLLECTED],
      [[CPS, CPI], { observedAt: INGEST_NOW }],
    ] as Array<[string[], IngestOptions]>) {
      const { batch, rows, oracle } = await parseBoth(files, options);
      expect(rows).toEqual(oracle.observations);
      expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
    }
  });

  it('refuses bad files with the very same message', async () => {
    const { writeTemp } = fixture;
    const point = (period: string, value: unknown, extra: object = {}) => ({
      year: '2024',
      period,
      value,
      ...extra,
    });
    const cases: Array<[string[], IngestOptions]> = [
      [[ERROR_RESPONSE], {}],
      [[FRED], {}],
      [[writeTemp('empty.json', '')], {}],
      [[writeTemp('truncated.json', '{"status":"REQUEST_SUCCEEDED","Results":{"series":[')], {}],
      [[writeTemp('other.json', { foo: 1 })], {}],
      [[writeTemp('numeric.json', apiResponse([point('M01', 1)]))], {}],
      [[writeTemp('no-series.json', { status: 'REQUEST_SUCCEEDED', Results: {} })], {}],
      [[writeTemp('bad-year.json', apiResponse([{ year: '24', period: 'M01', value: '1' }]))], {}],
      [[writeTemp('bad-id.json', apiResponse([point('M01', '1')], 'cu-1'))], {}],
      ...['M14', 'M00', 'Q05', 'Q00', 'A02', 'X01', 'M1', 'm01', ''].map(
        (period): [string[], IngestOptions] => [
          [writeTemp(`period-${period}.json`, apiResponse([point('M01', '1'), point(period, '2')]))],
          COLLECTED,
        ],
      ),
      ...[
        'n/a',
        ',',
        ' 1,5 ',
        '1e400',
        'Infinity',
        '0x10',
        '.5',
        '1.',
        '+3',
        '1 2',
        '\u00a0-\u00a0',
        'NaN',
      ].map((value, index): [string[], IngestOptions] => [
        [writeTemp(`value-${index}.json`, apiResponse([point('M02', value), point('M03', '1')]))],
        COLLECTED,
      ]),
      // A value with no release time before a bad value, and the other way round.
      [[writeTemp('time-first.json', apiResponse([point('Q01', '1'), point('M14', '1')]))], {}],
      [[writeTemp('value-first.json', apiResponse([point('M14', '1'), point('Q01', '1')]))], {}],
      [
        [
          writeTemp(
            'skipped-bad.json',
            apiResponse([point('S01', 'abc'), point('M13', 'x'), point('M01', '-')]),
          ),
        ],
        {},
      ],
      [
        [
          writeTemp(
            'footnotes.json',
            apiResponse([
              point('M01', '1', {
                footnotes: [{}, { code: 'P', text: 'Preliminary' }, { code: '' }, { text: 'T' }],
              }),
              point('M02', '1', { footnotes: [] }),
            ]),
          ),
        ],
        {},
      ],
      [[writeTemp('no-data.json', apiResponse([]))], {}],
      [[writeTemp('no-series-list.json', { status: 'REQUEST_SUCCEEDED', Results: { series: [] } })], {}],
      [
        [
          writeTemp('twice.json', {
            status: 'REQUEST_SUCCEEDED',
            Results: {
              series: [
                { seriesID: 'CUUR0000SA0', data: [point('M01', '308.417'), point('M01', '300')] },
                { seriesID: 'CUUR0000SA0', data: [point('M01', '308.417')] },
              ],
            },
          }),
        ],
        {},
      ],
      [[CPS, CPS_ALL_OPTIONS], {}],
      [[VINTAGES], { observedAt: INGEST_NOW }],
      [[VINTAGES, VINTAGES], {}],
      [
        [
          writeTemp('vintage-bad.json', {
            dataset_id: 'x',
            series_id: 'CES0000000001',
            records: [
              { observation_month: '2025-13', release_date: '2026-01-09', revision_stage: 'release1' },
            ],
          }),
        ],
        {},
      ],
      [[CPI], {}],
      [[writeTemp('cpi-date.csv', 'Date,Index,Inflation\n1913-01-01,9.8,\n1913-02-15,9.8,0.0\n')], COLLECTED],
      [[writeTemp('cpi-index.csv', 'Date,Index,Inflation\n1913-01-01,nine,\n')], COLLECTED],
      [[writeTemp('cpi-header.csv', 'Date,Index,Inflation\n')], COLLECTED],
      [[writeTemp('cpi-time-first.csv', 'Date,Index,Inflation\n1913-01-01,9.8,\n1913-02-15,9.8,\n')], {}],
      [
        [
          writeTemp(
            'cpi-missing.csv',
            'Date,Index,Inflation\n1913-01-01,.,\n2010-01-01,1,\n2010-02-01,N/A,\n',
          ),
        ],
        {},
      ],
      [[CPS, writeTemp('second-bad.json', apiResponse([point('M14', '1')]))], {}],
    ];
    for (const [files, options] of cases) {
      const label = files.map((file) => file.split('/').at(-1)).join(' ');
      const expected = await errorOf(blsJsOracleSource.parse(files, fixture.context(options)));
      expect(`${label}: ${await errorOf(blsSource.parse(files, fixture.context(options)))}`).toBe(
        `${label}: ${expected}`,
      );
      if (expected === 'no error') {
        const { batch, rows, oracle } = await parseBoth(files, options);
        expect(rows).toEqual(oracle.observations);
        expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
      }
    }
  });
});

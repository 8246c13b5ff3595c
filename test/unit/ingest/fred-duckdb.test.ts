import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fredSource } from '../../../src/ingest/fred.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import { isFactRelation } from '../../../src/model/records.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { fredJsOracleSource } from '../../helpers/fred-js-oracle.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { appendWithBoth, errorOf } from '../../helpers/parser-oracle.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';

const PAYEMS = 'fred_PAYEMS_vintage_2025-08-02.csv';
const LATER = 'fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv';
const SHARED = { payems: join(SHARED_DATA, 'bls', PAYEMS), later: join(SHARED_DATA, 'bls', LATER) };
const SAMPLE = { payems: join(SAMPLE_DATA, 'bls', PAYEMS), later: join(SAMPLE_DATA, 'bls', LATER) };
const COLLECTED = '2026-11-20T09:15:00Z';
const SERIES = 'bls.CES0000000001';

const fixture = createIngestFixture('fred-duckdb-test-');

/** The DuckDB parser's batch with its relation read back, and the former JavaScript parser's. */
async function parseBoth(files: string[], options: IngestOptions = {}) {
  const batch = await fredSource.parse(files, fixture.context(options));
  const oracle = await fredJsOracleSource.parse(files, fixture.context(options));
  const relation = batch.observations;
  if (relation === undefined) throw new Error('no observations');
  return { batch, relation, rows: await readFactRelationRows(fixture.connection, relation), oracle };
}

/** An ALFRED observations response with the given rows [date, realtime_start, value]. */
function response(name: string, rows: Array<[string, string, string]>): string {
  return fixture.writeTemp(name, {
    realtime_start: '2025-08-01',
    realtime_end: '9999-12-31',
    count: rows.length,
    observations: rows.map(([date, realtime_start, value]) => ({
      realtime_start,
      realtime_end: '9999-12-31',
      date,
      value,
    })),
  });
}

describe('fredSource in DuckDB against the former JavaScript parser (test/helpers/fred-js-oracle.ts)', () => {
  it('gives exactly the same rows and counts on the real PAYEMS downloads, as a relation', async () => {
    for (const files of [SHARED, SAMPLE]) {
      const { batch, relation, rows, oracle } = await parseBoth([files.payems], { collectedAt: COLLECTED });
      // No per-row JavaScript objects: the batch holds a relation on the connection, not an array.
      expect(Array.isArray(batch.observations)).toBe(false);
      expect(isFactRelation(relation)).toBe(true);
      expect(relation.rows).toBe(1039);
      expect(rows).toHaveLength(1039);
      expect(rows).toEqual(oracle.observations);
      expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
      const later = await parseBoth([files.later], { series: SERIES, vintage: '2026-10-02' });
      expect(later.rows).toHaveLength(39);
      expect(later.rows).toEqual(later.oracle.observations);
      expect(later.batch.rows_read).toBe(later.oracle.rows_read);
    }
  });

  it('gives the same rows for every way of timing a download, and for a file read twice', async () => {
    const cases: Array<[string[], IngestOptions]> = [
      [[SHARED.payems], { series: SERIES, vintage: '2025-08-01' }],
      [[SHARED.payems], { vintage: '2025-08-02' }],
      [[SHARED.payems], { vintage: '2025-08-02', observedAt: '2025-08-02T14:00:00Z' }],
      [[SHARED.payems], { observedAt: '2025-08-03T10:00:00Z', collectedAt: COLLECTED }],
      [[SHARED.later, SAMPLE.later], { series: SERIES, collectedAt: COLLECTED }],
      [[SHARED.payems, SAMPLE.payems], { collectedAt: COLLECTED }],
    ];
    for (const [files, options] of cases) {
      const { batch, relation, rows, oracle } = await parseBoth(files, options);
      expect(rows, JSON.stringify(options)).toEqual(oracle.observations);
      expect(relation.rows).toBe(oracle.observations?.length);
      expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
    }
  });

  it('infers the same frequencies and reads the same numbers and missing markers', async () => {
    const files: Record<string, string> = {
      'quarterly.csv':
        'observation_date,GDP\n2024-01-01,28624.069\n2024-04-01,29016.714\n2024-07-01,.\n2025-01-01,29962.047\n',
      'annual.csv': 'DATE,GDPA\n2022-01-01,26006.893\n2024-01-01,27720.709\n',
      'monthly.csv': 'DATE,X\n2022-01-01,1\n2022-04-01,2\n2022-05-01,NA\n',
      'daily.csv': 'observation_date,DEXUSEU\n2025-01-01,.\n2025-01-02,1.0321\n2025-01-03,1.0299\n',
      'lone.csv': 'DATE,X\n2025-01-01,5\n',
      'only-missing.csv': 'DATE,X\n2025-01-01,.\n2025-02-01,\n',
      'numbers.csv':
        'DATE,X\n2020-01-01,"1,234.5"\n2020-02-01, 7 \n2020-03-01,0x10\n2020-04-01,-\n2020-05-01,-0\n2020-06-01,1e3\n2020-07-01,\u00a0N/A\u00a0\n2020-08-01,.5\n',
      'old-years.csv': 'DATE,X\n0999-01-01,1\n0999-02-01,2\n',
      'spaces.csv': 'DATE,X\n 2020-01-01 ,1\n2020-01-15,2\n',
    };
    for (const [name, content] of Object.entries(files)) {
      const file = fixture.writeTemp(name, content);
      const { batch, rows, oracle } = await parseBoth([file], { collectedAt: COLLECTED });
      expect(rows, name).toEqual(oracle.observations);
      expect([batch.rows_read, batch.rows_skipped], name).toEqual([oracle.rows_read, oracle.rows_skipped]);
    }
    const value = await parseBoth(
      [fixture.writeTemp('value.csv', 'date,value\n2020-01-01,3\n2020-02-01,4\n')],
      {
        series: 'fred.X_Y',
        collectedAt: COLLECTED,
      },
    );
    expect(value.rows).toEqual(value.oracle.observations);
  });

  it('gives the same rows for ALFRED JSON, alone and with a CSV download', async () => {
    const one = response('one.json', [
      ['2023-07-01', '2025-08-01', '156019'],
      ['2023-08-01', '2025-08-01', '.'],
      ['2023-07-01', '2026-10-02', '156043'],
      ['2023-09-01', '2026-10-02', '156,417'.replace(',', '')],
    ]);
    const two = response('two.json', [
      ['2023-07-01', '2025-08-01', '156019'],
      ['2023-10-01', '2025-08-02', '1e2'],
    ]);
    const alone = await parseBoth([one, two], { series: SERIES });
    expect(alone.rows).toEqual(alone.oracle.observations);
    expect([alone.batch.rows_read, alone.batch.rows_skipped]).toEqual([
      alone.oracle.rows_read,
      alone.oracle.rows_skipped,
    ]);
    const mixed = await parseBoth([one, SHARED.later, two], { series: SERIES, collectedAt: COLLECTED });
    expect(mixed.rows).toEqual(mixed.oracle.observations);
    expect(mixed.batch.rows_read).toBe(mixed.oracle.rows_read);
  });

  it('refuses bad input with the very same message', async () => {
    const cases: Array<[string, string | object, IngestOptions?]> = [
      ['bad-date.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-02-30,30100\n'],
      ['bad-value.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-02-01,many\n'],
      ['date-and-value.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-02-01,many\n1939-3-01,x\n'],
      ['value-then-date.csv', 'DATE,PAYEMS\n1939-01-01,x\n1939-3-01,1\n'],
      ['blank-date.csv', 'DATE,PAYEMS\n1939-01-01,1\n ,2\n'],
      ['repeat.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-01-01,29923\n'],
      ['repeat-bad-value.csv', 'DATE,PAYEMS\n1939-01-01,1\n1939-01-01,x\n'],
      ['repeat-spaced.csv', 'DATE,PAYEMS\n1939-01-01,1\n 1939-01-01 ,2\n'],
      ['infinite.csv', 'DATE,X\n2020-01-01,1e999\n'],
      ['infinity.csv', 'DATE,X\n2020-01-01,Infinity\n'],
      ['comma.csv', 'DATE,X\n2020-01-01,","\n'],
      ['empty.csv', ''],
      ['header.csv', 'DATE,PAYEMS\n'],
      ['three.csv', 'DATE,A,B\n2020-01-01,1,2\n'],
      ['odd-id.csv', 'DATE,A-B\n2020-01-01,1\n'],
      ['no-series.csv', 'date,value\n2020-01-01,1\n'],
      ['series.csv', 'DATE,X\n2020-01-01,1\n', { series: 'PAYEMS' }],
      ['vintage.csv', 'DATE,X\n2020-01-01,1\n', { vintage: '2025-02-30' }],
      ['unknown-age.csv', 'DATE,X\n2020-01-01,1\n', { collectedAt: undefined }],
      ['error.json', { error_code: 400, error_message: 'Bad Request.' }, { series: SERIES }],
      ['no-series.json', { realtime_start: '2025-08-01', realtime_end: '9999-12-31', observations: [] }, {}],
    ];
    for (const [name, content, options = { collectedAt: COLLECTED }] of cases) {
      const file = fixture.writeTemp(name, content);
      const duckdb = await errorOf(fredSource.parse([file], fixture.context(options)));
      const oracle = await errorOf(fredJsOracleSource.parse([file], fixture.context(options)));
      expect(duckdb, name).toBe(oracle);
      expect(duckdb, name).not.toBe('no error');
    }
  });

  it('refuses clashing values with the very same message', async () => {
    const clash = response('clash.json', [
      ['2023-07-01', '2025-08-01', '156019'],
      ['2023-07-01', '2025-08-01', '156019'],
      ['2023-07-01', '2025-08-01', '156043'],
      ['2023-08-01', '2025-08-01', '156176'],
    ]);
    const early = response('early.json', [
      ['2023-07-01', '2025-08-01', '1'],
      ['2023-08-01', '2025-08-01', '156176'],
    ]);
    const cases: Array<[string[], IngestOptions]> = [
      [[SHARED.payems, SHARED.later], { series: SERIES, collectedAt: COLLECTED }],
      [[SHARED.later, SHARED.payems], { series: SERIES, collectedAt: COLLECTED }],
      [[clash], { series: SERIES }],
      // The CSV collected at the very time the JSON vintage became known.
      [[early, SHARED.later], { series: SERIES, collectedAt: '2025-08-01T12:30:00Z' }],
    ];
    for (const [files, options] of cases) {
      const duckdb = await errorOf(fredSource.parse(files, fixture.context(options)));
      const oracle = await errorOf(fredJsOracleSource.parse(files, fixture.context(options)));
      expect(duckdb).toBe(oracle);
      expect(duckdb).toMatch(/with a different value/);
    }
  });

  it('appends the very same records to a store as the arrays did (ids, times, corrections, counts)', async () => {
    const steps: Array<[string[], IngestOptions]> = [
      [[SHARED.payems], { series: SERIES, vintage: '2025-08-02' }],
      [[SHARED.later], { series: SERIES, vintage: '2026-10-02' }],
    ];
    const { summaries, records } = await appendWithBoth(
      fixture,
      { duckdb: fredSource, oracle: fredJsOracleSource },
      steps,
      'observations',
    );
    expect(summaries.duckdb).toEqual(summaries.oracle);
    expect(records.duckdb.length).toBeGreaterThan(1039);
    expect(records.duckdb).toEqual(records.oracle);
  });
});

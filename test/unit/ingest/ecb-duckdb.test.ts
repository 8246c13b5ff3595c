import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ecbSource } from '../../../src/ingest/ecb.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import { isFactRelation } from '../../../src/model/records.ts';
import { ecbJsOracleSource } from '../../helpers/ecb-js-oracle.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { appendWithBoth, errorOf } from '../../helpers/parser-oracle.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const HIST_CSV = join(SHARED_DATA, 'ecb', 'eurofxref-hist.csv');
const DAY_CSV = join(SHARED_DATA, 'ecb', 'eurofxref.csv');
const DAILY_XML = join(SHARED_DATA, 'ecb', 'eurofxref-daily.xml');

const fixture = createIngestFixture('ecb-duckdb-test-');

/** The DuckDB parser's batch with its relation read back, and the former JavaScript parser's. */
async function parseBoth(files: string[], options: IngestOptions = {}) {
  const batch = await ecbSource.parse(files, fixture.context(options));
  const oracle = await ecbJsOracleSource.parse(files, fixture.context(options));
  const relation = batch.observations;
  if (relation === undefined) throw new Error('no observations');
  return { batch, relation, rows: await readFactRelationRows(fixture.connection, relation), oracle };
}

describe('ecbSource in DuckDB against the former JavaScript parser (test/helpers/ecb-js-oracle.ts)', () => {
  it('gives exactly the same rows and counts on the real eurofxref-hist.csv, as a relation', async () => {
    const { batch, relation, rows, oracle } = await parseBoth([HIST_CSV]);
    // No per-row JavaScript objects: the batch holds a relation on the connection, not an array.
    expect(Array.isArray(batch.observations)).toBe(false);
    expect(isFactRelation(relation)).toBe(true);
    expect(relation.rows).toBe(oracle.observations?.length);
    expect(rows).toHaveLength(217_555);
    expect(rows).toEqual(oracle.observations);
    expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
  });

  it('gives exactly the same rows on the real eurofxref.csv, with a collection time', async () => {
    const { rows, oracle, batch } = await parseBoth([DAY_CSV], { collectedAt: '2026-04-14T08:00:00Z' });
    expect(rows).toHaveLength(29);
    expect(rows).toEqual(oracle.observations);
    expect([batch.rows_read, batch.rows_skipped]).toEqual([oracle.rows_read, oracle.rows_skipped]);
  });

  it('gives the same rows for overlapping files (kept once) and with --observed-at', async () => {
    const both = await parseBoth([DAY_CSV, HIST_CSV, DAILY_XML]);
    expect(both.rows).toEqual(both.oracle.observations);
    expect(both.batch.rows_read).toBe(both.oracle.rows_read);
    const observed = await parseBoth([DAILY_XML, DAY_CSV], { observedAt: '2026-11-23T12:00:00Z' });
    expect(observed.rows).toEqual(observed.oracle.observations);
  });

  it('refuses bad files with the very same message', async () => {
    const header = readFileSync(HIST_CSV, 'utf8').split('\n', 1)[0];
    const day = readFileSync(DAY_CSV, 'utf8');
    const cases: Array<[string, string]> = [
      ['na-missing.csv', 'Date,USD,JPY,\n2026-04-13,1.1,,\n'],
      [
        'dup-date.csv',
        'Date,USD,JPY,\n2026-04-13,1.1,160.1,\n2026-04-10,1.1,160.1,\n2026-04-13,1.2,160.1,\n',
      ],
      ['precedence.csv', 'Date,USD,JPY,\n2026-04-13,1.1,1.2,\n2026-04-10,abc,-1,\n'],
      ['bad-date-and-rate.csv', 'Date,USD,JPY,\n2026-04-13,1.1,1.2,\n1999-1-1,abc,-1,\n'],
      ['extra.csv', `${header}\n2026-04-13${',1.5'.repeat(41)},9.9,\n`],
      ['odd-header.csv', 'Date,USD,usd,\n2026-04-13,1.1,1.2,\n'],
      ['header-only.csv', 'Date,USD,JPY,\n'],
      ['bad-long.csv', day.replace('13 April 2026', '31 April 2026')],
      ['spaces.csv', 'Date,USD,JPY,\n 2026-04-13 , 1.10 ,\u00a0N/A ,\n'],
      ['clash.csv', 'Date,USD,JPY,\n2026-04-13,1.1685,186.75,\n'],
    ];
    for (const [name, content] of cases) {
      const file = fixture.writeTemp(name, content);
      const files = name === 'clash.csv' ? [DAY_CSV, file] : [file];
      const duckdb = await errorOf(ecbSource.parse(files, fixture.context()));
      const oracle = await errorOf(ecbJsOracleSource.parse(files, fixture.context()));
      expect(duckdb, name).toBe(oracle);
    }
  });

  it('appends the very same records to a store as the arrays did (ids, times, corrections, counts)', async () => {
    const steps: Array<[string[], IngestOptions]> = [
      [[HIST_CSV], {}],
      [[DAY_CSV], { collectedAt: '2026-04-14T08:00:00Z' }],
    ];
    const { summaries, records } = await appendWithBoth(
      fixture,
      { duckdb: ecbSource, oracle: ecbJsOracleSource },
      steps,
      'observations',
    );
    expect(summaries.duckdb).toEqual(summaries.oracle);
    expect(records.duckdb).toHaveLength(217_555);
    expect(records.duckdb).toEqual(records.oracle);
  });
});

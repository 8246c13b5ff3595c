import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, readRows } from '../../src/db/duckdb.ts';
import { defineNumberText } from '../../src/db/number-text.ts';

/**
 * Property: mmds_number_text(x) in SQL is String(x) in JavaScript for every double, so that fact
 * ids the SQL planner derives from numeric fingerprints are those createFactId derived.
 */

// Scaled with the other property tests (MMDS_PROPERTY_RUNS, 100 by default).
const SCALE = Number(process.env.MMDS_PROPERTY_RUNS ?? 100) / 100;

describe('mmds_number_text against String()', () => {
  let duck: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    duck = await openDuckDb({ threads: 1 });
    connection = await duck.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    duck?.closeSync();
  });

  it('prints doubles as JavaScript does', async () => {
    const sample = <T>(arbitrary: fc.Arbitrary<T>, count: number) =>
      fc.sample(arbitrary, Math.round(count * SCALE));
    const values = [
      ...sample(fc.double(), 2000),
      ...sample(fc.double({ min: -1e7, max: 1e7 }), 1000),
      ...sample(fc.double({ min: -1e-3, max: 1e-3 }), 1000),
      ...sample(
        fc.integer().map((n) => n / 100),
        1000,
      ),
      ...sample(fc.integer(), 500),
      ...[0, -0, 1, 0.1 + 0.2, 1e-7, 1e-6, 1e-5, 1e15, 1e16, 1e20, 1e21, 123456789012345680000, 2 ** 53],
      ...[5e-324, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    ];
    await defineNumberText(connection);
    await connection.run('CREATE OR REPLACE TEMP TABLE number_text_sample (i INTEGER, x DOUBLE)');
    const appender = await connection.createAppender('number_text_sample');
    for (const [i, x] of values.entries()) {
      appender.appendInteger(i);
      appender.appendDouble(x);
      appender.endRow();
    }
    appender.closeSync();
    const rows = await readRows<{ text: string }>(
      connection,
      'SELECT mmds_number_text(x) AS text FROM number_text_sample ORDER BY i',
    );
    expect(rows.map((row) => row.text)).toEqual(values.map((x) => String(x)));
  });
});

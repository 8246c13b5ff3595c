import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, openDuckDb, quotedString } from '../../../src/db/duckdb.ts';
import { type ChainRow, findChainProblems } from '../../../src/store/validate-chains.ts';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

/** Loads the rows into a DuckDB table and runs the SQL chain check over it. */
async function validateChains(rows: readonly ChainRow[]) {
  const text = (value: string | null) => (value === null ? 'NULL' : quotedString(value));
  const values = rows.map(
    (r) =>
      `(${text(r.id)}, ${text(r.series_key)}, ${text(r.period)}, ${r.revision_number}, ` +
      `${text(r.supersedes_id)}, ${text(r.observed_at)}::TIMESTAMP)`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP TABLE chains (id VARCHAR, series_key VARCHAR, period VARCHAR,
       revision_number INTEGER, supersedes_id VARCHAR, observed_at TIMESTAMP)`,
  );
  if (values.length > 0) await execute(connection, `INSERT INTO chains VALUES ${values.join(', ')}`);
  return findChainProblems(connection, 'chains');
}

beforeAll(async () => {
  instance = await openDuckDb();
  connection = await instance.connect();
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

/** A valid history: per (series, period) a chain of 1..4 revisions with rising observed_at. */
const validHistory = fc
  .array(
    fc.record({
      series: fc.constantFrom('a', 'b'),
      period: fc.constantFrom('2025-01', '2025-02', '2025-03'),
      length: fc.integer({ min: 1, max: 4 }),
    }),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((specs) => {
    const rows: ChainRow[] = [];
    const seen = new Set<string>();
    for (const spec of specs) {
      const key = `${spec.series}|${spec.period}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (let revision = 1; revision <= spec.length; revision++) {
        rows.push({
          id: `${key}|${revision}`,
          series_key: spec.series,
          period: spec.period,
          revision_number: revision,
          supersedes_id: revision === 1 ? null : `${key}|${revision - 1}`,
          observed_at: `2026-01-0${revision}T00:00:00Z`,
        });
      }
    }
    return rows;
  });

type Mutation = (rows: ChainRow[], index: number) => ChainRow[] | null;

const MUTATIONS: Record<string, Mutation> = {
  dropped: (rows, i) => {
    const row = rows[i]!;
    // Dropping the last revision of a chain leaves a valid shorter chain; drop an inner one.
    const hasLater = rows.some(
      (r) =>
        r.series_key === row.series_key && r.period === row.period && r.revision_number > row.revision_number,
    );
    return hasLater ? rows.filter((_, j) => j !== i) : null;
  },
  duplicated: (rows, i) => [...rows, { ...rows[i]! }],
  forked: (rows, i) => {
    const row = rows[i]!;
    return [...rows, { ...row, id: `${row.id}-fork`, revision_number: row.revision_number + 1 }];
  },
  reordered: (rows, i) => {
    const row = rows[i]!;
    if (row.revision_number === 1) return null;
    return rows.map((r, j) => (j === i ? { ...r, supersedes_id: null } : r));
  },
  'time running backwards': (rows, i) => {
    const row = rows[i]!;
    if (row.revision_number === 1) return null;
    return rows.map((r, j) => (j === i ? { ...r, observed_at: '2025-12-31T00:00:00Z' } : r));
  },
};

describe('findChainProblems (SQL)', () => {
  it('flags no valid chain', async () => {
    await fc.assert(
      fc.asyncProperty(validHistory, async (rows) => (await validateChains(rows)).length === 0),
      { numRuns: 150 },
    );
  });

  for (const [name, mutate] of Object.entries(MUTATIONS)) {
    it(`catches a chain with a ${name} revision`, async () => {
      await fc.assert(
        fc.asyncProperty(validHistory, fc.nat(), async (rows, n) => {
          const mutated = mutate(rows, n % rows.length);
          fc.pre(mutated !== null);
          return (await validateChains(mutated!)).length > 0;
        }),
        { numRuns: 150 },
      );
    });
  }

  it('names the series and period of a broken chain', async () => {
    const problems = await validateChains([
      {
        id: 'x1',
        series_key: 'ecb.USD',
        period: '2025-01-02',
        revision_number: 2,
        supersedes_id: null,
        observed_at: '2025-01-02T15:00:00Z',
      },
    ]);
    expect(problems[0]).toMatchObject({ series_key: 'ecb.USD', period: '2025-01-02' });
  });
});

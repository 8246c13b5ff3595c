import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChainRow, validateChains } from '../../../src/store/validate-chains.ts';

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

describe('validateChains', () => {
  it('flags no valid chain', () => {
    fc.assert(
      fc.property(validHistory, (rows) => validateChains(rows).length === 0),
      { numRuns: 300 },
    );
  });

  for (const [name, mutate] of Object.entries(MUTATIONS)) {
    it(`catches a chain with a ${name} revision`, () => {
      fc.assert(
        fc.property(validHistory, fc.nat(), (rows, n) => {
          const mutated = mutate(rows, n % rows.length);
          fc.pre(mutated !== null);
          return validateChains(mutated!).length > 0;
        }),
        { numRuns: 300 },
      );
    });
  }

  it('names the series and period of a broken chain', () => {
    const problems = validateChains([
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

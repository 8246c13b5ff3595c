import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quotedIdentifier, readRows } from '../../src/db/duckdb.ts';
import { cftcSource } from '../../src/ingest/cftc.ts';
import { type CotPosition, type CotReportInput, isFactRelation } from '../../src/model/records.ts';
import { definePlanTables, loadFactCandidates } from '../../src/store/fact-candidates.ts';
import { hashCanonical } from '../../src/store/revisions.ts';
import { getTable } from '../../src/store/tables.ts';
import { readFactRelationRows } from '../helpers/fact-relation-rows.ts';
import { createIngestFixture } from '../helpers/ingest-fixture.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../helpers/paths.ts';

/**
 * Property: the content_hash fact-candidates.ts computes in SQL for a cot_reports relation is
 * byte for byte the hash it computes in JavaScript for the same rows as an array,
 * hashCanonical(contentOf(row)), so that a parser may hand COT reports either way.
 */

// 40 runs in the everyday suite; `npm run test:reliability` sets MMDS_PROPERTY_RUNS=1000.
const NUM_RUNS = Math.max(10, Math.round(Number(process.env.MMDS_PROPERTY_RUNS ?? 100) * 0.4));
const PROVENANCE_ONLY = new Set([
  'source_ref',
  'observed_at',
  'observed_at_method',
  'correction',
  'verification_status',
  'confidence',
  'data_class',
]);
const TABLE = getTable('cot_reports');
const fixture = createIngestFixture('cot-content-hash-');

const TRICKY = [
  '',
  'a"b',
  'back\\slash',
  '\u0000',
  'tab\there\nline\r',
  '\b\f\u001f\u007f',
  "MMBTU'S",
  'é😀',
  '\u2028\u2029',
  '"\\"',
];
const text = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary-ascii' }),
);
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 4 });
const count = nullable(fc.integer({ min: -(2 ** 31) + 1, max: 2 ** 31 - 1 }));
const share = nullable(
  fc.oneof(
    fc.double(),
    fc.integer({ min: -100000, max: 100000 }).map((n) => n / 10),
    fc.constantFrom(0, -0, 1e21, 1e-7),
  ),
);
const position: fc.Arbitrary<CotPosition> = fc.record({
  category: text,
  long: count,
  short: count,
  spread: count,
  change_long: count,
  change_short: count,
  change_spread: count,
  pct_oi_long: share,
  pct_oi_short: share,
  pct_oi_spread: share,
  traders_long: count,
  traders_short: count,
  traders_spread: count,
});
const report: fc.Arbitrary<CotReportInput> = fc.record({
  series_key: text,
  report_type: fc.constantFrom('legacy', 'disaggregated', 'tff', 'cit'),
  scope: fc.constantFrom('futures_only', 'combined'),
  market_code: text,
  exchange_code: nullable(text),
  region_code: nullable(text),
  commodity_code: nullable(text),
  subgroup_code: nullable(text),
  period: text,
  market_name: text,
  contract_units: nullable(text),
  open_interest: count,
  change_open_interest: count,
  traders_total: count,
  conc_gross_le4_long: share,
  conc_gross_le4_short: share,
  conc_gross_le8_long: share,
  conc_gross_le8_short: share,
  positions: fc.array(position, { maxLength: 4 }),
  source_ref: text,
  observed_at: fc.constant('2025-03-14T19:30:00Z'),
  observed_at_method: fc.constant('release_calendar'),
  verification_status: fc.constant('verified'),
  confidence: fc.constant(1),
  data_class: fc.constant('official'),
}) as fc.Arbitrary<CotReportInput>;

/** The JavaScript hash of each row, as loadJsonInput computes it. */
function hashInJs(rows: readonly object[]): string[] {
  return rows.map((row) =>
    hashCanonical(Object.fromEntries(Object.entries(row).filter(([key]) => !PROVENANCE_ONLY.has(key)))),
  );
}

/**
 * Loads the reports as an array (JavaScript hash), then the loaded rows again as a relation of the
 * rows' own columns (SQL hash); returns both lists of hashes in input order.
 */
async function hashBothWays(reports: readonly CotReportInput[]): Promise<{ js: string[]; sql: string[] }> {
  const { connection } = fixture;
  // source_ref (provenance, not hashed) numbers the rows so that the relation has an input order.
  const rows = reports.map((row, index) => ({ ...row, source_ref: String(index).padStart(8, '0') }));
  const viaJson = definePlanTables({ ...TABLE, name: 'cot_hash_json' });
  const viaRelation = definePlanTables({ ...TABLE, name: 'cot_hash_relation' });
  await loadFactCandidates(connection, TABLE, viaJson, rows, join(fixture.dir, 'rows.ndjson'));
  const columns = Object.keys(rows[0] ?? { series_key: '' }).map(quotedIdentifier);
  const input = quotedIdentifier(viaJson.input);
  const relation = {
    kind: 'relation',
    sql: `SELECT ${columns.join(', ')} FROM ${input}`,
    orderBy: 'source_ref',
    rows: rows.length,
  } as const;
  await loadFactCandidates(connection, TABLE, viaRelation, relation, join(fixture.dir, 'unused.ndjson'));
  const read = async (table: string) =>
    (
      await readRows<{ content_hash: string }>(
        connection,
        `SELECT content_hash FROM ${quotedIdentifier(table)} ORDER BY candidate_index`,
      )
    ).map((row) => row.content_hash);
  return { js: await read(viaJson.input), sql: await read(viaRelation.input) };
}

describe('cot_reports content_hash in SQL against hashCanonical(contentOf(row))', () => {
  it('is the same for random reports: nulls, quotes, control characters, Unicode, negatives, floats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(report, { minLength: 1, maxLength: 30 }), async (rows) => {
        const { js, sql } = await hashBothWays(rows);
        expect(js).toEqual(hashInJs(rows));
        expect(sql).toEqual(js);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('is the same for every real report of the CFTC files', async () => {
    const files = [
      ...readdirSync(join(SHARED_DATA, 'cftc')).map((name) => join(SHARED_DATA, 'cftc', name)),
      ...readdirSync(join(SAMPLE_DATA, 'cftc')).map((name) => join(SAMPLE_DATA, 'cftc', name)),
    ].filter((file) => file.endsWith('.txt'));
    for (const file of files) {
      const batch = await cftcSource.parse([file], fixture.context());
      const reports = batch.cot_reports ?? [];
      const rows = isFactRelation(reports)
        ? ((await readFactRelationRows(fixture.connection, reports)) as unknown as CotReportInput[])
        : reports;
      const { js, sql } = await hashBothWays(rows);
      expect(rows.length, file).toBeGreaterThan(0);
      expect(js, file).toEqual(hashInJs(rows));
      expect(sql, file).toEqual(js);
    }
    // Every real file parsed: about a minute on a loaded machine.
  }, 180_000);
});

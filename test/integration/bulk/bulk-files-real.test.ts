import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkSnapshot } from '../../../src/api/v1/bulk.ts';
import { BULK_DIR, writeBulkFiles } from '../../../src/build/bulk-files.ts';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { createRealSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

type Row = Record<string, unknown>;

describe('bulk files of the snapshot of every real publisher file (../shared/data)', () => {
  let fixture: SnapshotFixture;
  let temp: ReturnType<typeof createTempDir>;
  let snapshot: BulkSnapshot;
  let db: SnapshotDb;
  let duck: DuckDBInstance;
  let dir: string;

  const read = async (sql: string): Promise<Row[]> => {
    const connection = await duck.connect();
    try {
      return await readRows<Row>(connection, sql);
    } finally {
      connection.closeSync();
    }
  };
  const file = (name: string) => quotedString(join(dir, name));
  const csv = (dataset: string) =>
    `read_csv(${file(`${dataset}.csv.gz`)}, header = true, all_varchar = true, compression = 'gzip')`;

  beforeAll(async () => {
    fixture = await createRealSnapshot();
    temp = createTempDir('mmds-bulk-files-real-');
    [snapshot] = (await writeBulkFiles({
      layout: resolveLayout(fixture.dataDir),
      snapshotId: fixture.snapshotId,
      stagingDir: temp.dir,
      previousDir: join(temp.dir, 'no-earlier-build'),
      previous: [],
    })) as [BulkSnapshot];
    dir = join(temp.dir, BULK_DIR, fixture.snapshotId);
    db = await fixture.open();
    duck = await openDuckDb({ threads: 2 });
  }, 900_000);

  afterAll(async () => {
    duck?.closeSync();
    await db?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('holds one row per series and period of each fact table, as many in the CSV as in the Parquet', async () => {
    for (const table of ['observations', 'cot_reports'] as const) {
      // Every real source here (ECB, CFTC, BLS) is redistributable, so in force = distinct keys.
      const [distinct] = await db.query<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM (SELECT DISTINCT series_key, period FROM ${table})`,
      );
      const [all] = await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`);
      const listed = snapshot.files.filter((f) => f.dataset === table);
      expect(listed.map((f) => f.rows)).toEqual([distinct!.n, distinct!.n]);
      const [parquet] = await read(`SELECT count(*)::INTEGER AS n FROM ${file(`${table}.parquet`)}`);
      const [text] = await read(`SELECT count(*)::INTEGER AS n FROM ${csv(table)}`);
      expect([parquet!.n, text!.n], table).toEqual([distinct!.n, distinct!.n]);
      expect(distinct!.n, table).toBeGreaterThan(1000);
      if (table === 'observations') expect(all!.n).toBeGreaterThan(distinct!.n); // real revisions
    }
  });

  it('carries the value in force of revised payrolls and of ECB rates, with its revision and knowledge time', async () => {
    const keys = ['bls.CES0000000001', 'ecb.USD', 'ecb.JPY'];
    for (const key of keys) {
      const expected = await db.query<Row>(
        `SELECT period, value, revision_number, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
           FROM observations WHERE series_key = $key
        QUALIFY revision_number = max(revision_number) OVER (PARTITION BY period)
          ORDER BY period`,
        { key },
      );
      expect(expected.length, key).toBeGreaterThan(100);
      const parquet = await read(
        `SELECT period, value, revision_number, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
           FROM ${file('observations.parquet')} WHERE series_key = ${quotedString(key)} ORDER BY period`,
      );
      expect(parquet, key).toEqual(expected);
      const text = await read(
        `SELECT period, value::DOUBLE AS value, revision_number::INTEGER AS revision_number, observed_at
           FROM ${csv('observations')} WHERE series_key = ${quotedString(key)} ORDER BY period`,
      );
      expect(text, key).toEqual(expected);
    }
  });

  it('keeps every COT report type, flattened, with the open interest of the snapshot', async () => {
    const expected = await db.query<Row>(
      `SELECT report_type, count(DISTINCT (series_key, period))::INTEGER AS n, sum(open_interest)::BIGINT::VARCHAR AS oi
         FROM (SELECT * FROM cot_reports
             QUALIFY revision_number = max(revision_number) OVER (PARTITION BY series_key, period))
        GROUP BY report_type ORDER BY report_type`,
    );
    expect(expected.map((r) => r.report_type)).toEqual(['disaggregated', 'legacy', 'tff']);
    const actual = await read(
      `SELECT report_type, count(*)::INTEGER AS n, sum(open_interest)::BIGINT::VARCHAR AS oi
         FROM ${file('cot_reports.parquet')} GROUP BY report_type ORDER BY report_type`,
    );
    expect(actual).toEqual(expected);
    const columns = (await read(`DESCRIBE SELECT * FROM ${file('cot_reports.parquet')}`)).map(
      (c) => c.column_name,
    );
    expect(columns).toEqual(
      expect.arrayContaining([
        'noncommercial_long',
        'managed_money_short',
        'asset_manager_long',
        'dealer_short',
      ]),
    );
    expect(columns).not.toContain('positions');
  });
});

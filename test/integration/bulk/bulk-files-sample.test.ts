import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkSnapshot } from '../../../src/api/v1/bulk.ts';
import { BULK_DIR, writeBulkFiles } from '../../../src/build/bulk-files.ts';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import { startsLikeFormula } from '../../../src/lib/csv-formula.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

type Row = Record<string, unknown>;

describe('bulk files of the sample snapshot with the licensed fixture', () => {
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
  /** A CSV read back with every column as text, as written. */
  const csv = (dataset: string) =>
    `read_csv(${file(`${dataset}.csv.gz`)}, header = true, all_varchar = true, compression = 'gzip')`;

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    temp = createTempDir('mmds-bulk-files-');
    const [listing] = await writeBulkFiles({
      layout: resolveLayout(fixture.dataDir),
      snapshotId: fixture.snapshotId,
      stagingDir: temp.dir,
      previousDir: join(temp.dir, 'no-earlier-build'),
      previous: [],
    });
    snapshot = listing!;
    dir = join(temp.dir, BULK_DIR, fixture.snapshotId);
    db = await fixture.open();
    duck = await openDuckDb({ threads: 1 });
  });

  afterAll(async () => {
    duck?.closeSync();
    await db?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('lists each dataset in both formats with the bytes, rows and sha256 of the file on disk', async () => {
    const datasets = [...new Set(snapshot.files.map((f) => f.dataset))];
    expect(datasets).toEqual([
      'observations',
      'cot_reports',
      'regions',
      'countries',
      'country_currencies',
      'currencies',
      'time_zones',
      'venues',
      'sources',
      'series',
      'markets',
      'sectors',
    ]);
    for (const entry of snapshot.files) {
      const name = entry.path.slice(entry.path.lastIndexOf('/') + 1);
      expect(entry.path).toBe(`/api/v1/bulk/${fixture.snapshotId}/${name}`);
      const bytes = readFileSync(join(dir, name));
      expect(entry.bytes, name).toBe(statSync(join(dir, name)).size);
      expect(entry.sha256, name).toBe(createHash('sha256').update(bytes).digest('hex'));
      const [counted] = await read(
        entry.format === 'parquet'
          ? `SELECT count(*)::INTEGER AS n FROM ${file(name)}`
          : `SELECT count(*)::INTEGER AS n FROM ${csv(entry.dataset)}`,
      );
      expect(counted!.n, name).toBe(entry.rows);
      expect(entry.media_type).toBe(
        entry.format === 'parquet' ? 'application/vnd.apache.parquet' : 'application/gzip',
      );
      // Not vacuous: every dataset of the sample holds rows.
      expect(entry.rows, name).toBeGreaterThan(0);
    }
    const observations = snapshot.files.find((f) => f.dataset === 'observations')!;
    expect(observations.sources).toEqual(['bls', 'ecb']);
    expect(observations.attribution).toEqual(['Source: U.S. Bureau of Labor Statistics', 'Source: ECB']);
  });

  it('holds per series and period the latest revision of the snapshot, in Parquet and CSV alike', async () => {
    // Independently of the export's SQL: every revision, reduced here to the highest per period.
    const all = await db.query<{
      series_key: string;
      period: string;
      value: number;
      revision_number: number;
    }>(`SELECT series_key, period, value, revision_number FROM observations WHERE series_key <> $licensed`, {
      licensed: LICENSED_SERIES_KEY,
    });
    const latest = new Map<string, (typeof all)[number]>();
    for (const row of all) {
      const key = `${row.series_key} ${row.period}`;
      const seen = latest.get(key);
      if (!seen || row.revision_number > seen.revision_number) latest.set(key, row);
    }
    const parquet = await read(
      `SELECT series_key, period, value, revision_number FROM ${file('observations.parquet')}`,
    );
    expect(parquet.length).toBe(latest.size);
    expect(parquet.length).toBeLessThan(all.length); // revisions exist, so "in force" is not "all"
    for (const row of parquet) {
      const expected = latest.get(`${row.series_key} ${row.period}`);
      expect(expected, `${row.series_key} ${row.period}`).toBeDefined();
      expect(row.value).toBe(expected!.value);
      expect(row.revision_number).toBe(expected!.revision_number);
    }
    // The CSV: the same columns, the same rows (values compared as numbers), RFC 3339 times.
    const [sameRows] = await read(
      `SELECT count(*)::INTEGER AS n FROM ${file('observations.parquet')} p
         JOIN ${csv('observations')} c
           ON c.id = p.id AND c.value::DOUBLE = p.value AND c.revision_number::INTEGER = p.revision_number
          AND c.observed_at = strftime(p.observed_at, '%Y-%m-%dT%H:%M:%SZ')`,
    );
    expect(sameRows!.n).toBe(latest.size);
    const text = gunzipSync(readFileSync(join(dir, 'observations.csv.gz'))).toString('utf8');
    const header = text.slice(0, text.indexOf('\r\n'));
    const parquetColumns = (await read(`DESCRIBE SELECT * FROM ${file('observations.parquet')}`)).map(
      (c) => c.column_name,
    );
    expect(header.split(',')).toEqual(parquetColumns);
    expect(header).toContain('observed_at');
    expect(header).not.toContain('batch_id');
  });

  it('never holds a row of the licensed source, though the snapshot does', async () => {
    const [held] = await db.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM observations WHERE series_key = $key',
      { key: LICENSED_SERIES_KEY },
    );
    expect(held!.n).toBeGreaterThan(0);
    for (const entry of snapshot.files) {
      const name = entry.path.slice(entry.path.lastIndexOf('/') + 1);
      const bytes = readFileSync(join(dir, name));
      const text = (entry.format === 'csv.gz' ? gunzipSync(bytes) : bytes).toString('latin1');
      if (entry.dataset === 'sources') continue; // the catalog of sources names every source, as /api/v1/sources
      expect(text, name).not.toContain('testvendor');
    }
    // Parquet pages are compressed, so the text search above only covers the CSV: ask DuckDB too.
    for (const relation of [file('observations.parquet'), csv('observations')]) {
      const [rows] = await read(
        `SELECT count(*)::INTEGER AS n FROM ${relation} WHERE series_key LIKE 'testvendor.%'`,
      );
      expect(rows!.n, relation).toBe(0);
    }
    const [series] = await read(
      `SELECT count(*)::INTEGER AS n FROM ${file('series.parquet')} WHERE source = 'testvendor' OR key = ${quotedString(LICENSED_SERIES_KEY)}`,
    );
    expect(series!.n).toBe(0);
    const sources = await read(`SELECT id, rights FROM ${file('sources.parquet')} WHERE id = 'testvendor'`);
    expect(sources).toEqual([{ id: 'testvendor', rights: 'licensed' }]);
  });

  it('flattens the COT positions into <category>_<field> columns, the values of the snapshot', async () => {
    const [report] = await db.query<{ series_key: string; period: string; positions: string }>(
      `SELECT series_key, period, to_json(positions)::VARCHAR AS positions FROM cot_reports
        WHERE report_type = 'legacy' ORDER BY series_key, period DESC, revision_number DESC LIMIT 1`,
    );
    const positions = JSON.parse(report!.positions) as Array<Record<string, number | string | null>>;
    const noncommercial = positions.find((p) => p.category === 'noncommercial')!;
    for (const format of ['parquet', 'csv'] as const) {
      const relation = format === 'parquet' ? file('cot_reports.parquet') : csv('cot_reports');
      const [row] = await read(
        `SELECT noncommercial_long::INTEGER AS l, noncommercial_short::INTEGER AS s,
                noncommercial_traders_long::INTEGER AS t, dealer_long AS dealer
           FROM ${relation} WHERE series_key = ${quotedString(report!.series_key)} AND period = ${quotedString(report!.period)}`,
      );
      expect(row, format).toEqual({
        l: noncommercial.long,
        s: noncommercial.short,
        t: noncommercial.traders_long,
        dealer: null,
      });
    }
  });

  it('writes list columns as lists in Parquet and as JSON text in the CSV', async () => {
    const [parquet] = await read(
      `SELECT to_json(currencies)::VARCHAR AS c FROM ${file('country_currencies.parquet')} WHERE iso2 = 'CH'`,
    );
    const [text] = await read(`SELECT currencies AS c FROM ${csv('country_currencies')} WHERE iso2 = 'CH'`);
    expect(JSON.parse(String(text!.c))).toEqual(JSON.parse(String(parquet!.c)));
    expect(JSON.parse(String(text!.c))).toContain('CHF');
  });

  it('writes doubles as the API’s CSV does (String(number): 29923, not 29923.0), the same values as Parquet', async () => {
    let whole = 0;
    let fractional = 0;
    for (const dataset of [...new Set(snapshot.files.map((f) => f.dataset))]) {
      const types = await read(`DESCRIBE SELECT * FROM ${file(`${dataset}.parquet`)}`);
      const doubles = types
        .filter((t) => t.column_type === 'DOUBLE')
        .map((t) => `"${String(t.column_name)}"`);
      if (doubles.length === 0) continue;
      // Row by row: both files are written from one table in one order.
      const parquet = await read(`SELECT ${doubles.join(', ')} FROM ${file(`${dataset}.parquet`)}`);
      const text = await read(`SELECT ${doubles.join(', ')} FROM ${csv(dataset)}`);
      // What the API's CSV writes for a number (src/api/v1/csv.ts): String(value); null is empty.
      const expected = parquet.map((row) =>
        Object.fromEntries(Object.entries(row).map(([name, v]) => [name, v === null ? null : String(v)])),
      );
      expect(text, dataset).toEqual(expected);
      for (const value of parquet.flatMap((row) => Object.values(row))) {
        if (typeof value !== 'number') continue;
        if (Number.isInteger(value)) whole++;
        else fractional++;
      }
    }
    // The sample has whole-number doubles (payrolls, COT concentration 12.0) and fractions (rates).
    expect(whole).toBeGreaterThan(0);
    expect(fractional).toBeGreaterThan(0);
  });

  it('prefixes CSV text cells that start like a formula, by the API rule; numbers and Parquet stay raw', async () => {
    let prefixed = 0;
    let signedNumbers = 0;
    const sorted = (values: unknown[]) => values.map((v) => (v === null ? '\0null' : String(v))).sort();
    for (const dataset of [...new Set(snapshot.files.map((f) => f.dataset))]) {
      const types = await read(`DESCRIBE SELECT * FROM ${file(`${dataset}.parquet`)}`);
      const parquet = await read(`SELECT COLUMNS(*)::VARCHAR FROM ${file(`${dataset}.parquet`)}`);
      const text = await read(`SELECT * FROM ${csv(dataset)}`);
      for (const { column_name: name, column_type: type } of types) {
        const column = String(name);
        const written = text.map((row) => row[column]);
        if (type === 'VARCHAR') {
          const raw = parquet.map((row) => row[column]);
          const formulas = raw.filter((v) => typeof v === 'string' && startsLikeFormula(v));
          prefixed += formulas.length;
          const expected = raw.map((v) => (typeof v === 'string' && startsLikeFormula(v) ? `'${v}` : v));
          expect(sorted(written), `${dataset}.${column}`).toEqual(sorted(expected));
        } else if (/^(DOUBLE|FLOAT|DECIMAL|BIGINT|INTEGER|HUGEINT|SMALLINT)/.test(String(type))) {
          // A negative number is written as a number, never prefixed.
          signedNumbers += written.filter((v) => typeof v === 'string' && v.startsWith('-')).length;
          expect(
            written.every((v) => v === null || !String(v).startsWith("'")),
            `${dataset}.${column}`,
          ).toBe(true);
        }
      }
    }
    // time_zones' UTC offsets (+05:30) are among the cells that start like a formula in the sample.
    expect(prefixed).toBeGreaterThan(0);
    expect(signedNumbers).toBeGreaterThan(0);
    const zones = await read(`SELECT * FROM ${csv('time_zones')}`);
    expect(zones.some((row) => Object.values(row).some((v) => String(v).startsWith("'+")))).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../src/db/duckdb.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import { type CftcBatch, cftcSource } from '../../src/ingest/cftc.ts';
import type { IngestOptions } from '../../src/ingest/source.ts';
import type { SourceEntry } from '../../src/model/records.ts';
import { RevisionRefusedError } from '../../src/model/revision-refused.ts';
import { readCotHistory } from '../../src/query/history.ts';
import { openSnapshotDb } from '../../src/query/snapshot-db.ts';
import { appendBatch, type BatchMeta } from '../../src/store/append-batch.ts';
import { listBatches, listTableFiles } from '../../src/store/batches.ts';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { publishSnapshot } from '../../src/store/publish.ts';
import { verifyStore } from '../../src/store/verify-store.ts';
import { createIngestFixture } from '../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../helpers/paths.ts';

const CFTC: SourceEntry = {
  id: 'cftc',
  name: 'CFTC Commitments of Traders',
  publisher: 'U.S. Commodity Futures Trading Commission',
  url: 'https://www.cftc.gov/',
  licence: 'Public domain',
  licence_url: null,
  rights: 'public_domain',
  attribution: 'Source: CFTC',
  cadence: 'weekly',
  stale_after_days: 10,
  sample: false,
};

const DIR = join(SHARED_DATA, 'cftc');
const LEGACY = join(DIR, 'legacy_futures_only_2025_selected_markets.txt');
/** One file per family with extras: legacy and disaggregated (crop years), TFF (net ratios only). */
const FILES = [
  LEGACY,
  join(DIR, 'disaggregated_futures_only_2021_selected_markets.txt'),
  join(DIR, 'tff_futures_only_2026_selected_markets.txt'),
];

const fixture = createIngestFixture('cot-report-columns-test-');

describe('cot_report_columns: the columns stored beside the COT reports (docs/data-model.md)', () => {
  it('fills the columns of a store written before them as a column backfill, not as revisions', async () => {
    const layout = resolveLayout(join(fixture.dir, 'data'));
    const connection = fixture.connection;
    let clock = 0;
    const meta = (): BatchMeta => ({
      source: 'cftc',
      files: [],
      options: {},
      collectorVersion: 'mmds/test',
      now: new Date(Date.UTC(2026, 10, 23, 12, 0, clock++)),
    });
    const parse = (files: string[], options: IngestOptions = {}) =>
      cftcSource.parse(files, fixture.context(options));
    const publish = () =>
      publishSnapshot(layout, connection, {
        now: new Date(Date.UTC(2026, 10, 23, 13, 0, clock++)),
        pipelineVersion: 'test',
        keep: 3,
        snapshotEvents: writeSnapshotEvents,
      });
    const errors = async () =>
      (await verifyStore(layout, connection, new Date(Date.UTC(2026, 10, 23, 14)))).problems.filter(
        (problem) => problem.severity === 'error',
      );

    // The store as an mmds before these columns wrote it: the reports alone.
    await appendBatch(layout, connection, { rows_read: 0, rows_skipped: 0, sources: [CFTC] }, meta());
    const old: CftcBatch = await parse(FILES);
    const reports = old.cot_reports!.rows;
    expect(old.cot_report_columns?.rows).toBe(reports);
    // The reports' relation is what it was: none of the new columns, so the same content hash.
    const described = await readRows<{ column_name: string }>(connection, `DESCRIBE ${old.cot_reports!.sql}`);
    const names = described.map((row) => row.column_name);
    expect(names.filter((name) => name.startsWith('conc_net') || name === 'crop_years')).toEqual([]);
    const first = await appendBatch(layout, connection, { ...old, cot_report_columns: undefined }, meta());
    expect(first.tables.cot_reports?.added).toBe(reports);
    expect(first.tables.cot_report_columns).toBeUndefined();
    expect((await publish()).status).toBe('published');
    expect(await errors()).toEqual([]);

    // The same files again: every report unchanged, every report's columns added beside it.
    const again = await appendBatch(layout, connection, await parse(FILES), meta());
    expect(again.tables.cot_reports).toEqual({ added: 0, unchanged: reports, backfilled: 0, corrected: 0 });
    expect(again.tables.cot_report_columns).toEqual({
      added: reports,
      unchanged: 0,
      backfilled: 0,
      corrected: 0,
    });
    const published = await publish();
    expect(published.status).toBe('published');
    expect(await errors()).toEqual([]);

    // Known when the report was released (the CFTC published them then), with their own batch and file line.
    const dir = snapshotDir(layout, published.snapshot_id);
    const manifest = readManifest(layout, published.snapshot_id);
    const files = (table: string) =>
      `[${manifest.tables[table]!.files.map((file) => `'${join(dir, file.file)}'`).join(', ')}]`;
    const [joined] = await readRows<{
      rows: number;
      same_time: number;
      first_revision: number;
      in_second_batch: number;
      refs: number;
      crops: number;
    }>(
      connection,
      `SELECT count(*)::INTEGER AS rows,
              count(*) FILTER (WHERE x.observed_at = r.observed_at AND x.observed_at_method = r.observed_at_method)::INTEGER AS same_time,
              count(*) FILTER (WHERE x.revision_number = 1 AND r.revision_number = 1)::INTEGER AS first_revision,
              count(*) FILTER (WHERE x.batch_id = $batch AND r.batch_id <> $batch)::INTEGER AS in_second_batch,
              count(*) FILTER (WHERE x.source_ref = r.source_ref)::INTEGER AS refs,
              count(*) FILTER (WHERE len(x.crop_years) = 2)::INTEGER AS crops
         FROM read_parquet(${files('cot_report_columns')}) AS x
         JOIN read_parquet(${files('cot_reports')}) AS r USING (series_key, period)`,
      { batch: again.batch_id },
    );
    expect(joined).toEqual({
      rows: reports,
      same_time: reports,
      first_revision: reports,
      in_second_batch: reports,
      refs: reports,
      // Legacy and disaggregated reports have their Old and Other crop years; TFF none.
      crops: 100 + 55,
    });

    // A third time: nothing new at all.
    expect((await appendBatch(layout, connection, await parse(FILES), meta())).batch_id).toBeNull();

    // A changed figure of the columns (the old crop year's open interest of the first report)
    // is a revision of the columns alone, refused without a collection time as any correction.
    const lines = readFileSync(LEGACY, 'utf8').split('\n');
    const header = (lines[0] ?? '').split(',').map((name) => name.replaceAll('"', '').trim());
    const fields = (lines[1] ?? '').split(',');
    const at = header.indexOf('Open Interest (Old)');
    fields[at] = String(Number(fields[at]) + 1);
    const changed = fixture.writeTemp(
      'annual.txt',
      [lines[0], fields.join(','), ...lines.slice(2)].join('\n'),
    );
    await expect(appendBatch(layout, connection, await parse([changed]), meta())).rejects.toThrow(
      RevisionRefusedError,
    );
    const revised = await appendBatch(
      layout,
      connection,
      await parse([changed], { collectedAt: '2026-04-14T08:00:00Z' }),
      meta(),
    );
    expect(revised.tables.cot_reports?.added).toBe(0);
    expect(revised.tables.cot_report_columns?.added).toBe(1);
    const last = await publish();
    expect(last.status).toBe('published');
    expect(await errors()).toEqual([]);

    // The keyed history reads the columns in force at as_of: the backfilled ones from the report's
    // release on (though stored later), the revision from its collection time on.
    const [period = '', code = ''] = [fields[2]!.trim(), fields[3]!.trim()];
    const oldOpenInterest = Number(fields[at]) - 1;
    const db = await openSnapshotDb(layout, last.snapshot_id);
    try {
      const read = async (asOf: string | null) => {
        const page = await readCotHistory(db, `cftc.${code}.legacy`, {
          asOf,
          from: period,
          to: period,
          after: null,
          limit: 10,
        });
        const [row] = page.rows;
        return row?.crop_years?.[0]?.open_interest;
      };
      const [release] = await readRows<{ at: string }>(
        connection,
        `SELECT strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS at FROM read_parquet(${files('cot_reports')})
          WHERE series_key = $key AND period = $period`,
        { key: `cftc.${code}.legacy`, period },
      );
      expect(await read(release!.at)).toBe(oldOpenInterest);
      expect(await read('2026-04-14T07:59:59Z')).toBe(oldOpenInterest);
      expect(await read('2026-04-14T08:00:00Z')).toBe(oldOpenInterest + 1);
      expect(await read(null)).toBe(oldOpenInterest + 1);
    } finally {
      await db.close();
    }
    const stored = listTableFiles(layout, listBatches(layout), 'cot_report_columns');
    const chain = await readRows<{ revisions: number }>(
      connection,
      `SELECT count(*)::INTEGER AS revisions FROM read_parquet([${stored.map((file) => `'${file}'`).join(', ')}])
        GROUP BY series_key, period HAVING count(*) > 1`,
    );
    expect(chain).toEqual([{ revisions: 2 }]);
  }, 300_000);
});

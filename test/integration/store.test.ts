import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDuckDb, readRows } from '../../src/db/duckdb.ts';
import { writeSnapshotEvents } from '../../src/events/snapshot-events.ts';
import type { ObservationInput, ParsedBatch, SeriesEntry, SourceEntry } from '../../src/model/records.ts';
import { appendBatch, type BatchMeta } from '../../src/store/append-batch.ts';
import { listBatches } from '../../src/store/batches.ts';
import { resolveLayout, type StoreLayout, snapshotDir } from '../../src/store/layout.ts';
import { readCurrentId, readManifest } from '../../src/store/manifest.ts';
import { PublishRefusedError, publishSnapshot } from '../../src/store/publish.ts';
import { verifyStore } from '../../src/store/verify-store.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

const SOURCE: SourceEntry = {
  id: 'bls',
  name: 'BLS',
  publisher: 'U.S. Bureau of Labor Statistics',
  url: 'https://www.bls.gov/',
  licence: 'Public domain',
  licence_url: null,
  rights: 'public_domain',
  attribution: 'Source: BLS',
  cadence: 'monthly',
  stale_after_days: 45,
  sample: false,
};
const SERIES: SeriesEntry = {
  key: 'bls.X',
  slug: 'x',
  name: 'X',
  source: 'bls',
  frequency: 'monthly',
  unit: 'index',
  country: null,
  region: null,
  currency: null,
  sector: null,
  seasonal_adjustment: null,
  macro: true,
  description: null,
  fred_id: null,
};

function observation(
  period: string,
  value: number,
  observed_at: string,
  series_key = 'bls.X',
): ObservationInput {
  return {
    series_key,
    period,
    value,
    observed_at,
    observed_at_method: 'collected',
    source_ref: `test.json#${period}`,
    verification_status: 'verified',
    confidence: 1,
    data_class: 'official',
  };
}

function batch(parts: Partial<ParsedBatch>): ParsedBatch {
  return { rows_read: 0, rows_skipped: 0, ...parts };
}

describe('store: append-only batches and snapshots', () => {
  let temp: ReturnType<typeof createTempDir>;
  let layout: StoreLayout;
  let db: DuckDBInstance;
  let connection: DuckDBConnection;
  let clock = 0;
  const now = () => new Date(Date.UTC(2026, 10, 23, 12, 0, clock++));
  const meta = (): BatchMeta => ({
    source: 'test',
    files: [],
    options: {},
    collectorVersion: 'mmds/test',
    now: now(),
  });
  const publish = () =>
    publishSnapshot(layout, connection, {
      now: now(),
      pipelineVersion: 'test',
      keep: 2,
      snapshotEvents: writeSnapshotEvents,
    });

  beforeEach(async () => {
    temp = createTempDir();
    layout = resolveLayout(join(temp.dir, 'data'));
    db = await openDuckDb();
    connection = await db.connect();
  });
  afterEach(() => {
    connection.closeSync();
    db.closeSync();
    temp.remove();
  });

  it('appends, revises, repeats nothing, and publishes verifiable snapshots', async () => {
    await appendBatch(layout, connection, batch({ sources: [SOURCE], series: [SERIES] }), meta());
    const first = await appendBatch(
      layout,
      connection,
      batch({
        observations: [
          observation('2025-01', 100, '2025-02-07T13:30:00Z'),
          observation('2025-02', 101, '2025-03-07T13:30:00Z'),
        ],
      }),
      meta(),
    );
    expect(first.tables.observations).toEqual({ added: 2, unchanged: 0, backfilled: 0, corrected: 0 });
    const published = await publish();
    expect(published.status).toBe('published');
    expect(readCurrentId(layout)).toBe(published.snapshot_id);

    // The same values again: no batch, and the publish is a no-op.
    const again = await appendBatch(
      layout,
      connection,
      batch({ observations: [observation('2025-01', 100, '2025-04-04T13:30:00Z')] }),
      meta(),
    );
    expect(again.batch_id).toBeNull();
    expect((await publish()).status).toBe('unchanged');
    expect(listBatches(layout)).toHaveLength(2);

    // A different value is revision 2, pointing at revision 1.
    const revised = await appendBatch(
      layout,
      connection,
      batch({ observations: [observation('2025-01', 99.5, '2025-03-07T13:30:00Z')] }),
      meta(),
    );
    expect(revised.tables.observations?.added).toBe(1);
    const second = await publish();
    expect(second.parent).toBe(published.snapshot_id);
    const dir = snapshotDir(layout, second.snapshot_id);
    const [partition] = readManifest(layout, second.snapshot_id).tables.observations!.files;
    const rows = await readRows<{
      period: string;
      value: number;
      revision_number: number;
      id: string;
      supersedes_id: string | null;
    }>(
      connection,
      `SELECT period, value, revision_number, id, supersedes_id FROM read_parquet('${join(dir, partition!.file)}') ORDER BY period, revision_number`,
    );
    expect(rows.map((r) => [r.period, r.value, r.revision_number])).toEqual([
      ['2025-01', 100, 1],
      ['2025-01', 99.5, 2],
      ['2025-02', 101, 1],
    ]);
    expect(rows[1]!.supersedes_id).toBe(rows[0]!.id);

    const report = await verifyStore(layout, connection, now());
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const manifest = readManifest(layout, second.snapshot_id);
    expect(manifest.tables.observations?.rows).toBe(3);
    expect(manifest.tables.observations?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses to publish a series whose source has no rights class, leaving CURRENT as it was', async () => {
    await appendBatch(
      layout,
      connection,
      batch({
        sources: [SOURCE],
        series: [SERIES],
        observations: [observation('2025-01', 1, '2025-02-07T13:30:00Z')],
      }),
      meta(),
    );
    const good = await publish();
    await appendBatch(
      layout,
      connection,
      batch({ observations: [observation('2025-01', 1, '2025-02-07T13:30:00Z', 'nobody.Y')] }),
      meta(),
    );
    await expect(publish()).rejects.toBeInstanceOf(PublishRefusedError);
    expect(readCurrentId(layout)).toBe(good.snapshot_id);
  });

  it('finds a damaged batch file', async () => {
    await appendBatch(layout, connection, batch({ sources: [SOURCE] }), meta());
    const [record] = listBatches(layout);
    const file = join(layout.batchesDir, record!.id, 'sources.parquet');
    const bytes = readFileSync(file);
    bytes[bytes.length - 20] = (bytes[bytes.length - 20]! + 1) % 256;
    writeFileSync(file, bytes);
    const report = await verifyStore(layout, connection, now());
    expect(report.problems.some((p) => p.check === 'checksum' && p.message.includes(record!.id))).toBe(true);
  });

  it('prunes old snapshots but never the current one or its parent', async () => {
    await appendBatch(layout, connection, batch({ sources: [SOURCE], series: [SERIES] }), meta());
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await appendBatch(
        layout,
        connection,
        batch({ observations: [observation('2025-01', i, `2025-0${i + 2}-07T13:30:00Z`)] }),
        meta(),
      );
      ids.push((await publish()).snapshot_id);
    }
    const remaining = (await verifyStore(layout, connection, now())).snapshots;
    expect(remaining).toBe(2);
    expect(readCurrentId(layout)).toBe(ids[4]);
    expect(readManifest(layout, ids[4]!).parent).toBe(ids[3]);
  });
});

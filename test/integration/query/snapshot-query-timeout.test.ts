import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb, QueryTimeoutError, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * A query that runs past its deadline is interrupted; its connection must not go back to the
 * pool while the interrupted statement may still be running on it. On a real snapshot, with one
 * connection in the pool, the next queries (queued behind the runaway one, or sent right after
 * the timeout) get a new connection (DuckDB's current_connection_id differs) and right answers.
 */

/** Far more rows than any deadline here allows: 10^9 × 10^6, counted. */
const RUNAWAY = 'SELECT count(*) AS n FROM range(1000000000) a, range(1000000) b';
const COUNT = 'SELECT current_connection_id()::INTEGER AS id, count(*)::INTEGER AS n FROM observations';

describe('a timed-out query and the connection pool', () => {
  let fixture: SnapshotFixture;
  let db: SnapshotDb;
  let expected: number;

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    db = await openSnapshotDb(resolveLayout(fixture.dataDir), fixture.snapshotId, {
      poolSize: 1,
      queryTimeoutMs: 300,
    });
    expected = db.manifest.tables.observations!.rows;
  });

  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('answers the next query at once on a new connection, with the right result', async () => {
    const [before] = await db.query<{ id: number; n: number }>(COUNT);
    expect(before!.n).toBe(expected);
    const runaway = db.query(RUNAWAY);
    await expect(runaway).rejects.toBeInstanceOf(QueryTimeoutError);
    // Sent in the same tick as the timeout's rejection reached us.
    const next = await Promise.all([
      db.query<{ id: number; n: number }>(COUNT),
      db.query<{ id: number; n: number }>(COUNT),
    ]);
    for (const [row] of next) {
      expect(row!.n).toBe(expected);
      expect(row!.id).not.toBe(before!.id);
    }
  });

  it('hands a query queued behind the runaway one a new connection once the runaway stopped', async () => {
    const [before] = await db.query<{ id: number; n: number }>(COUNT);
    const runaway = db.query(RUNAWAY);
    const queued = db.query<{ id: number; n: number }>(COUNT);
    await expect(runaway).rejects.toBeInstanceOf(QueryTimeoutError);
    const [row] = await queued;
    expect(row!.n).toBe(expected);
    expect(row!.id).not.toBe(before!.id);
    // The pool still has exactly one slot: the next query reuses the queued query's connection.
    const [again] = await db.query<{ id: number; n: number }>(COUNT);
    expect(again!.id).toBe(row!.id);
  });

  it('close() waits for an interrupted statement to stop, then closes', async () => {
    const other = await openSnapshotDb(resolveLayout(fixture.dataDir), fixture.snapshotId, {
      poolSize: 1,
      queryTimeoutMs: 200,
    });
    await expect(other.query(RUNAWAY)).rejects.toBeInstanceOf(QueryTimeoutError);
    await other.close();
    await expect(other.query('SELECT 1 AS one')).rejects.toThrow(/closed/);
  });
});

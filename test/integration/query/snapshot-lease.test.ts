import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * A request runs several queries one after the other; a publish may retire its snapshot between
 * two of them. A lease keeps the snapshot open until the request is done, so none of its queries
 * meets a closed database (a 500 under publish load, as /status did before leases).
 */
describe('a leased snapshot stays open through close() until the lease ends', () => {
  let fixture: SnapshotFixture;
  beforeAll(async () => {
    fixture = await createSampleSnapshot();
  });
  afterAll(() => fixture?.remove());

  it('answers queries between close() and the end of the lease, then closes', async () => {
    const db = await fixture.open();
    const release = db.lease();
    const [before] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM sources');
    let closed = false;
    const closing = db.close().then(() => {
      closed = true;
    });
    // Retired, but the leaseholder's next queries still read the same snapshot.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [after] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM sources');
    expect(after).toEqual(before);
    expect(closed).toBe(false);
    release();
    await closing;
    expect(closed).toBe(true);
    await expect(db.query('SELECT 1 AS one')).rejects.toThrow(/closed/);
  });

  it('closes at once without leases, and a released lease is not counted twice', async () => {
    const db = await fixture.open();
    const release = db.lease();
    release();
    release();
    await db.close();
    await expect(db.query('SELECT 1 AS one')).rejects.toThrow(/closed/);
  });
});

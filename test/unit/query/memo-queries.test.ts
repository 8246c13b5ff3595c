import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoizeQueries } from '../../../src/query/memo-queries.ts';
import type { SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

/** The static build's query memo (src/query/memo-queries.ts) over the real sample snapshot. */
describe('memoizeQueries', () => {
  let fixture: SharedSampleFixture;
  let db: SnapshotDb;

  beforeAll(async () => {
    fixture = await useSharedSample();
    db = await fixture.open();
  });

  afterAll(async () => {
    await db?.close();
    fixture?.remove();
  });

  it('asks the snapshot once per statement and values, and hands each caller its own rows', async () => {
    let asked = 0;
    const counting = Object.assign(Object.create(db) as SnapshotDb, {
      query: <T extends object>(sql: string, params?: Record<string, string>) => {
        asked += 1;
        return db.query<T>(sql, params);
      },
    });
    const memo = memoizeQueries(counting);
    const sql = 'SELECT id, name FROM sources WHERE id = $id';
    const [a, b] = await Promise.all([memo.query(sql, { id: 'ecb' }), memo.query(sql, { id: 'ecb' })]);
    expect(asked).toBe(1);
    expect(a).toEqual([{ id: 'ecb', name: expect.any(String) }]);
    // A caller that changes its rows changes nobody else's.
    (a as Array<{ name: string }>)[0]!.name = 'changed';
    expect((b as Array<{ name: string }>)[0]!.name).not.toBe('changed');
    expect(((await memo.query(sql, { id: 'ecb' })) as Array<{ name: string }>)[0]!.name).not.toBe('changed');
    expect(asked).toBe(1);
    await memo.query(sql, { id: 'bls' });
    expect(asked).toBe(2);
    // The rest is the snapshot's own.
    expect(memo.id).toBe(db.id);
    expect(memo.factRelation('observations', 'ecb.USD')).toBe(db.factRelation('observations', 'ecb.USD'));
  });

  it('does not keep answers longer than its row limit', async () => {
    let asked = 0;
    const counting = Object.assign(Object.create(db) as SnapshotDb, {
      query: <T extends object>(sql: string) => {
        asked += 1;
        return db.query<T>(sql);
      },
    });
    const memo = memoizeQueries(counting, 10);
    const sql = 'SELECT code FROM currencies ORDER BY code';
    expect((await memo.query(sql)).length).toBeGreaterThan(10);
    await memo.query(sql);
    expect(asked).toBe(2);
  });
});

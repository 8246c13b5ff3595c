import type { SqlParams } from '../db/duckdb.ts';
import type { SnapshotDb } from './snapshot-db.ts';

/**
 * A snapshot's queries answered once per distinct statement and values for the length of one
 * piece of work over many renders (a static build): a snapshot never changes, and most files
 * of a build repeat the same small lookups (a source's licence, the latest ECB rates, the
 * catalogue's names). Each caller gets its own copy of the rows (a payload may sort or extend
 * them). Answers above `maxRows` rows (one series' history) are not kept, nor any once
 * `budgetRows` rows are kept.
 */
export function memoizeQueries(db: SnapshotDb, maxRows = 2_000, budgetRows = 200_000): SnapshotDb {
  const answers = new Map<string, Promise<object[]>>();
  let keptRows = 0;
  const keyOf = (sql: string, params?: SqlParams): string | null => {
    try {
      return JSON.stringify([sql, params ?? null]);
    } catch {
      return null; // Values JSON cannot name (a BigInt): asked each time.
    }
  };
  // Everything else is the snapshot's own (its revision cache, leases, close).
  const memo = Object.create(db) as SnapshotDb;
  return Object.assign(memo, {
    async query<T extends object>(sql: string, params?: SqlParams): Promise<T[]> {
      const key = keyOf(sql, params);
      if (key === null) return db.query<T>(sql, params);
      let answer = answers.get(key);
      if (!answer) {
        answer = db.query<T>(sql, params);
        answers.set(key, answer);
        answer.then(
          (rows) => {
            if (rows.length > maxRows || keptRows + rows.length > budgetRows) answers.delete(key);
            else keptRows += rows.length;
          },
          () => answers.delete(key),
        );
      }
      return structuredClone((await answer) as T[]);
    },
  });
}

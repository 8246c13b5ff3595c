import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { readManifest, type SnapshotManifest } from '../../src/store/manifest.ts';
import { pruneSnapshots } from '../../src/store/prune-snapshots.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';

/**
 * `/changes?since=` reads the `since` snapshot's Parquet files, and `since` is not protected
 * from prune as the snapshot in service and its parent are. On the real server, each round
 * makes an older snapshot S (a copy of the one in service under an earlier id whose batch list
 * is not a prefix, so the diff compares every key: the slowest diff), asks for the changes
 * since S, and prunes S with the store's own prune at a delay spread over the request's
 * duration. Whatever the moment, the answer is a 200 or the 400 naming the ids the store still
 * holds, never a 5xx; the holds are released afterwards.
 */

const ROUNDS = 14;

interface Answer {
  meta: { method: string; since: { id: string } };
  error: { code: string; message: string };
}

describe('/changes while its since snapshot is pruned', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let current: SnapshotManifest;
  const layout = () => resolveLayout(fixture.dataDir);

  beforeAll(async () => {
    fixture = await createSampleSnapshot();
    current = readManifest(layout(), fixture.snapshotId);
    server = await startTestServer({ dataDir: fixture.dataDir, pollMs: 0, anonymousLimit: 100_000 });
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  /** A snapshot older than the one in service, under an id that sorts before it. */
  function olderCopy(n: number): string {
    const id = `20200101T00${String(n).padStart(4, '0')}Z-0000000${n.toString(16)}`;
    cpSync(snapshotDir(layout(), current.id), snapshotDir(layout(), id), { recursive: true });
    const manifest: SnapshotManifest = {
      ...current,
      id,
      parent: null,
      created_at: '2020-01-01T00:00:00Z',
      // Not a prefix of the current batches: the diff compares every key of both snapshots.
      batches: [...current.batches].reverse(),
    };
    writeFileSync(join(snapshotDir(layout(), id), 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return id;
  }

  /** The answer's status and body: the feed's meta on a 200, the error envelope otherwise. */
  async function changesSince(id: string): Promise<{ status: number; body: Answer }> {
    const response = await fetch(`${server.url}/api/v1/changes?since=${id}`);
    return { status: response.status, body: (await response.json()) as Answer };
  }

  it('answers 200 or the 400 listing known ids, never a 5xx, however the prune falls', async () => {
    // How long one full diff takes here, to spread the prunes over it.
    const started = performance.now();
    const calibration = await changesSince(olderCopy(0));
    const duration = performance.now() - started;
    expect(calibration.status).toBe(200);
    expect(calibration.body.meta.method).toBe('full');
    pruneSnapshots(layout(), 1);

    const outcomes: Array<{ delay: number; status: number; prunedBeforeAnswer: boolean }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const id = olderCopy(round);
      const delay = (duration * 1.2 * (round - 1)) / (ROUNDS - 1);
      let prunedAt = Number.POSITIVE_INFINITY;
      const pruning = new Promise<void>((resolve) =>
        setTimeout(() => {
          expect(pruneSnapshots(layout(), 1)).toEqual([id]);
          prunedAt = performance.now();
          resolve();
        }, delay),
      );
      const answer = await changesSince(id);
      const answeredAt = performance.now();
      await pruning;
      outcomes.push({
        delay: Math.round(delay),
        status: answer.status,
        prunedBeforeAnswer: prunedAt < answeredAt,
      });
      if (answer.status === 400) {
        expect(answer.body.error.code).toBe('invalid_parameter');
        expect(answer.body.error.message).toContain(current.id);
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.meta.since.id).toBe(id);
      }
    }
    console.info(`changes vs prune (diff ${Math.round(duration)} ms): ${JSON.stringify(outcomes)}`);
    expect(outcomes.filter((outcome) => outcome.status >= 500)).toEqual([]);
    // Some prunes landed while a request was being answered.
    expect(outcomes.some((outcome) => outcome.prunedBeforeAnswer && outcome.status === 200)).toBe(true);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    // Every hold was released.
    const holds = join(layout().snapshotsDir, '.holds');
    expect(existsSync(holds) ? readdirSync(holds) : []).toEqual([]);
  }, 300_000);
});

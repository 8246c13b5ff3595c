import { cpSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../src/lib/durable-fs.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { manifestFiles, readCurrentId, readManifest } from '../../../src/store/manifest.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import { FIXTURE_NOW, runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

/**
 * Monotonic reads (docs/operations.md): a request that names a snapshot newer than the one an
 * instance serves (X-Snapshot-Id, `since`) waits for it, bounded, or gets a 503 with Retry-After;
 * never an answer from the older snapshot. Two real publishes: the sample ECB history without its
 * newest day, then the ECB's daily file of that day; the server is started on the first (CURRENT
 * put back to it), as an instance that has not switched yet.
 */
const ECB_HISTORY = join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv');
const ECB_DAY = join(SHARED_DATA, 'ecb/eurofxref.csv');
const WAIT_MS = 1500;
const later = (hours: number) => () => new Date(FIXTURE_NOW.getTime() + hours * 3_600_000);

describe('monotonic reads: never an answer from a snapshot older than the one the request names', () => {
  const temp = createTempDir('mmds-monotonic-');
  const dataDir = join(temp.dir, 'data');
  const env = { MMDS_DATA_DIR: dataDir };
  let first: string;
  let second: string;
  let server: TestServer;

  const get = (path: string, snapshot?: string) =>
    fetch(`${server.url}${path}`, { headers: snapshot ? { 'X-Snapshot-Id': snapshot } : {} });
  const setCurrent = (id: string) => writeFileAtomic(resolveLayout(dataDir).currentFile, `${id}\n`);

  beforeAll(async () => {
    const [header, , ...rest] = readFileSync(ECB_HISTORY, 'utf8').split('\n');
    const trimmed = join(temp.dir, 'eurofxref-hist.csv');
    writeFileSync(trimmed, [header, ...rest].join('\n'));
    for (const [step, at] of [
      [['ingest', 'catalog', join(SAMPLE_DATA, '../catalog/catalog.yaml')], 0],
      [['ingest', 'ecb', trimmed], 0],
      [['publish'], 1],
      [['ingest', 'ecb', ECB_DAY], 2],
      [['publish'], 3],
    ] as const) {
      const run = await runMmds([...step], env, later(at));
      expect(run.code, run.stderr).toBe(0);
      if (step[0] === 'publish') {
        const id = readCurrentId(resolveLayout(dataDir))!;
        if (at === 1) first = id;
        else second = id;
      }
    }
    expect(second > first).toBe(true);
    await setCurrent(first);
    server = await startTestServer({ dataDir, snapshotWaitMs: WAIT_MS, pollMs: 100 });
  });

  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('answers from its snapshot when the named one is the same or older, and says which', async () => {
    for (const named of [undefined, first]) {
      const response = await get('/api/v1/series/eur-usd', named);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-snapshot-id')).toBe(first);
    }
  });

  it('refuses a malformed X-Snapshot-Id, and one of no snapshot of this store, with a 400 at once', async () => {
    // 1970: well-formed, older than anything held, and of no snapshot (not an ancestor either).
    for (const named of ['yesterday', '20991231T000000Z-00000000', '19700101T000000Z-00000000']) {
      const started = Date.now();
      const response = await get('/api/v1/series/eur-usd', named);
      expect(response.status, named).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.message).toContain('X-Snapshot-Id');
      expect(Date.now() - started).toBeLessThan(WAIT_MS);
    }
  });

  it('waits for a newer snapshot on its way, then answers 503 with Retry-After rather than older data', async () => {
    for (const [path, named] of [
      ['/api/v1/series/eur-usd', second],
      [`/api/v1/changes?since=${second}`, undefined],
    ] as const) {
      const started = Date.now();
      const response = await get(path, named);
      expect(response.status, path).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 50);
      expect(response.headers.get('retry-after')).toBe('1');
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toContain(second);
    }
  });

  it('answers from the newer snapshot as soon as the instance switches to it within the wait', async () => {
    const pending = get('/api/v1/series/eur-usd', second);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await setCurrent(second);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get('x-snapshot-id')).toBe(second);
    // Now the older id is simply older.
    const older = await get('/api/v1/series/eur-usd', first);
    expect(older.headers.get('x-snapshot-id')).toBe(second);
  });

  it('a newer snapshot that is damaged here: 503 at once, naming the damage, not a wait', async () => {
    // Published in a copy of the data directory, so the server never sees it intact, then moved
    // in (its files copies, shared with no other snapshot) and one of them flipped in place.
    const copy = join(temp.dir, 'copy');
    cpSync(dataDir, copy, { recursive: true });
    const copyEnv = { MMDS_DATA_DIR: copy };
    let run = await runMmds(
      ['ingest', 'm49', join(SAMPLE_DATA, 'reference/unsd_m49_overview_en.csv')],
      copyEnv,
      later(4),
    );
    expect(run.code, run.stderr).toBe(0);
    run = await runMmds(['publish'], copyEnv, later(5));
    expect(run.code, run.stderr).toBe(0);
    const third = readCurrentId(resolveLayout(copy))!;
    const layout = resolveLayout(dataDir);
    renameSync(snapshotDir(resolveLayout(copy), third), snapshotDir(layout, third));
    const file = join(snapshotDir(layout, third), manifestFiles(readManifest(layout, third))[0]!.file);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(file, bytes);
    const from = server.logs.length;
    await setCurrent(third);
    const refused = await waitForLog(
      (entry) => entry.event === 'snapshot_refused' && entry.snapshot === third,
      third,
      from,
    );
    const started = Date.now();
    const response = await get('/api/v1/series/eur-usd', third);
    expect(Date.now() - started).toBeLessThan(WAIT_MS / 2);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toContain(
      `serves snapshot ${second}, older than ${third}, and cannot switch to it`,
    );
    expect(body.error.message).toContain(String(refused.error));
  });

  /** The first log line of the server from index `from` that `match` accepts (20 s at most). */
  async function waitForLog(
    match: (entry: Record<string, unknown>) => boolean,
    what: string,
    from = 0,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = server.logs.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no such log line for ${what}: ${JSON.stringify(server.logs)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});

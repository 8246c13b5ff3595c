import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import {
  createSampleSnapshot,
  LICENSED_SERIES_KEY,
  type SnapshotFixture,
} from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

const REAL_CLOCK = () => new Date();
const SERIES = LICENSED_SERIES_KEY;
/** The vintage the licensed fixture ingests, and a later real one (after the 2026 benchmark). */
const FIRST_VINTAGE_CSV = join(SAMPLE_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const LATER_VINTAGE_CSV = join(
  SAMPLE_DATA,
  'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv',
);
const VINTAGE = '2026-10-02';
/** End of the vintage day in St. Louis (CDT): the knowledge time of a vintage of a non-BLS key. */
const VINTAGE_OBSERVED_AT = '2026-10-03T04:59:59Z';
const WORKERS = 8;
const LOAD_MS = 4_000;

/** A FRED CSV download (`<date>,<value>` after a header) as a map from month to value. */
function readVintage(file: string): Map<string, number> {
  const [, ...rows] = readFileSync(file, 'utf8').trimEnd().split('\n');
  return new Map(
    rows.map((row) => {
      const [date, value] = row.trim().split(',');
      return [date!.slice(0, 7), Number(value)] as const;
    }),
  );
}

/** The first month both vintages carry with different values: the later one revised it. */
function findRevisedMonth(): { month: string; oldValue: number; newValue: number } {
  const first = readVintage(FIRST_VINTAGE_CSV);
  const later = readVintage(LATER_VINTAGE_CSV);
  for (const [month, newValue] of later) {
    const oldValue = first.get(month);
    if (oldValue !== undefined && oldValue !== newValue) return { month, oldValue, newValue };
  }
  throw new Error('the two PAYEMS vintages share no revised month');
}

const { month: MONTH, oldValue, newValue } = findRevisedMonth();

interface Outcome {
  path: string;
  keyed: boolean;
  startedAt: number;
  endedAt: number;
  status: number;
  snapshot: string | null;
  error?: string;
}

interface Row {
  id: string;
  period: string;
  value: number;
  observed_at: string;
  revision_number: number;
  supersedes_id: string | null;
  in_force: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('publishing a new snapshot while the server is under load', () => {
  let fixture: SnapshotFixture;
  let server: TestServer;
  let temp: ReturnType<typeof createTempDir>;
  let key: string;

  const observationsPath = `/api/v1/observations?series=${SERIES}&from=${MONTH}&to=${MONTH}`;
  const requests: { path: string; keyed: boolean }[] = [
    { path: observationsPath, keyed: true },
    { path: '/api/v1/markets/cot/gold', keyed: true },
    { path: '/api/v1/macro/nonfarm-payrolls?from=2025-01', keyed: true },
    { path: '/api/v1/markets/cot/gold', keyed: false },
    { path: '/api/v1/macro', keyed: false },
    { path: '/api/v1/series?country=US', keyed: false },
    { path: '/api/v1/status', keyed: false },
  ];

  const send = async (path: string, keyed: boolean): Promise<Outcome> => {
    const startedAt = performance.now();
    try {
      const response = await fetch(`${server.url}${path}`, {
        headers: keyed ? { Authorization: `Bearer ${key}` } : {},
      });
      await response.arrayBuffer();
      const snapshot = response.headers.get('x-snapshot-id');
      return { path, keyed, startedAt, endedAt: performance.now(), status: response.status, snapshot };
    } catch (error) {
      const message = (error as Error).message;
      return {
        path,
        keyed,
        startedAt,
        endedAt: performance.now(),
        status: 0,
        snapshot: null,
        error: message,
      };
    }
  };

  const readMonth = async (): Promise<Row[]> => {
    const response = await fetch(`${server.url}${observationsPath}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Row[] }).data;
  };

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    temp = createTempDir('mmds-publish-load-');
    const run = await runMmds(
      [
        '--json',
        'keys',
        'issue',
        '--org',
        'Load Org',
        '--scopes',
        'cot:history,macro:history,observations:read',
        '--rate-limit',
        '100000',
      ],
      fixture.env,
      REAL_CLOCK,
    );
    expect(run.code, run.stderr).toBe(0);
    key = (JSON.parse(run.stdout) as { key: string }).key;
    // The load comes from one IP: lift the anonymous limit so that only real failures show.
    server = await startTestServer({
      dataDir: fixture.dataDir,
      distDir: join(temp.dir, 'no-dist'),
      pollMs: 100,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    temp?.remove();
    fixture?.remove();
  });

  it('switches snapshots without failing a request, and serves the new value afterwards', async () => {
    const before = await readMonth();
    expect(before.map((row) => [row.value, row.revision_number])).toEqual([[oldValue, 1]]);

    const outcomes: Outcome[] = [];
    let stop = false;
    const workers = Array.from({ length: WORKERS }, async (_, worker) => {
      for (let i = worker; !stop; i++) {
        const { path, keyed } = requests[i % requests.length]!;
        outcomes.push(await send(path, keyed));
      }
    });
    const loadStarted = performance.now();
    await sleep(500);

    const ingest = await runMmds(
      ['ingest', 'fred', LATER_VINTAGE_CSV, '--series', SERIES, '--vintage', VINTAGE],
      fixture.env,
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    const publish = await runMmds(['--json', 'publish'], fixture.env);
    expect(publish.code, publish.stderr).toBe(0);
    const newId = (JSON.parse(publish.stdout) as { snapshot_id: string }).snapshot_id;
    expect(newId).not.toBe(fixture.snapshotId);

    // Keep the load on until the switch has been seen for a while, and for LOAD_MS at least.
    const deadline = performance.now() + 10_000;
    while (!outcomes.some((o) => o.snapshot === newId) && performance.now() < deadline) await sleep(20);
    await sleep(Math.max(500, LOAD_MS - (performance.now() - loadStarted)));
    stop = true;
    await Promise.all(workers);

    const failed = outcomes.filter((o) => o.status !== 200);
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(100);
    expect(new Set(outcomes.map((o) => o.snapshot))).toEqual(new Set([fixture.snapshotId, newId]));
    // Once one response came from the new snapshot, every request sent after it did too.
    const firstNewEnd = Math.min(...outcomes.filter((o) => o.snapshot === newId).map((o) => o.endedAt));
    const lateOld = outcomes.filter((o) => o.startedAt > firstNewEnd && o.snapshot !== newId);
    expect(lateOld).toEqual([]);
    const keyed = outcomes.filter((o) => o.keyed);
    expect(keyed.length).toBeGreaterThan(0);
    expect(outcomes.length - keyed.length).toBeGreaterThan(0);
    console.log(
      `publish under load: ${outcomes.length} requests (${keyed.length} keyed), all 200; switched to ${newId}`,
    );

    const after = await readMonth();
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ value: oldValue, revision_number: 1, in_force: false });
    expect(after[1]).toMatchObject({
      value: newValue,
      observed_at: VINTAGE_OBSERVED_AT,
      revision_number: 2,
      supersedes_id: after[0]!.id,
      in_force: true,
    });
  });
});

import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/lib/durable-fs.ts';
import { resolveLayout, snapshotDir } from '../../src/store/layout.ts';
import { readCurrentId, readManifest, type SnapshotManifest } from '../../src/store/manifest.ts';
import { verifySnapshotFiles } from '../../src/store/verify-files.ts';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import {
  createSampleSnapshot,
  LICENSED_FIXTURE_STEPS,
  type SnapshotFixture,
} from '../helpers/snapshot-fixture.ts';
import { createTempDir } from '../helpers/temp-dir.ts';
import { findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { issueTestKey } from './helpers/served-sample.ts';

/**
 * A damaged live snapshot: the server serves A; a newer snapshot B is copied in, damaged one way
 * or another, and CURRENT is pointed at it by hand (what a half-finished copy, a bad disk or an
 * operator would do). The server must refuse B (log snapshot_refused), keep answering from A
 * without a single 5xx, and switch as soon as CURRENT names an intact snapshot. The same damage
 * in a staged snapshot is refused by the checks `mmds publish` and `mmds verify` run.
 */

/** Ways a snapshot's files get damaged, each applied to a fresh copy of B. */
const DAMAGE: ReadonlyArray<{ kind: string; table: string; apply: (file: string, dir: string) => void }> = [
  {
    kind: 'truncated',
    table: 'observations',
    apply: (file) => truncateSync(file, Math.floor(readFileSync(file).length / 2)),
  },
  { kind: 'empty', table: 'cot_reports', apply: (file) => truncateSync(file, 0) },
  { kind: 'deleted', table: 'series', apply: (file) => rmSync(file) },
  // Same size, flipped bytes in a data page: DuckDB opens the file (the footer is intact).
  { kind: 'corrupt-observations', table: 'observations', apply: (file) => flipBytes(file) },
  { kind: 'corrupt-venues', table: 'venues', apply: (file) => flipBytes(file) },
  {
    kind: 'manifest-garbage',
    table: 'observations',
    apply: (_file, dir) => writeFileSync(join(dir, 'manifest.json'), '{"id": '),
  },
];

function flipBytes(file: string): void {
  const bytes = readFileSync(file);
  const from = Math.floor(bytes.length / 3);
  for (let i = from; i < from + 64; i++) bytes[i] = bytes[i]! ^ 0xff;
  writeFileSync(file, bytes);
}

/** A snapshot id that sorts after B's and is unique per copy (the manager remembers refusals by id). */
const copyId = (n: number) => `20261123T13${String(n).padStart(4, '0')}Z-0000000${n.toString(16)}`;

async function waitForLog(
  server: TestServer,
  match: (entry: Record<string, unknown>) => boolean,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!server.logs.some(match)) {
    if (Date.now() > deadline) throw new Error('no such log entry within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a damaged snapshot named by CURRENT', () => {
  let a: SnapshotFixture;
  let other: ReturnType<typeof createTempDir>;
  let bDir: string;
  let bManifest: SnapshotManifest;
  let server: TestServer;
  let key: string;
  const layout = () => resolveLayout(a.dataDir);

  beforeAll(async () => {
    a = await createSampleSnapshot();
    // B: the same store plus one more batch of real data (the licensed test fixture), published
    // in a copy of the data directory.
    other = createTempDir('mmds-snapshot-b-');
    const otherData = join(other.dir, 'data');
    cpSync(a.dataDir, otherData, { recursive: true });
    const env = { MMDS_DATA_DIR: otherData };
    for (const [source, ...rest] of LICENSED_FIXTURE_STEPS) {
      const ingest = await runMmds(['ingest', source!, ...rest], env);
      expect(ingest.code, ingest.stderr).toBe(0);
    }
    const later = () => new Date(FIXTURE_NOW.getTime() + 3_600_000);
    expect((await runMmds(['publish'], env, later)).code).toBe(0);
    const bId = readCurrentId(resolveLayout(otherData))!;
    expect(bId).not.toBe(a.snapshotId);
    bDir = snapshotDir(resolveLayout(otherData), bId);
    bManifest = readManifest(resolveLayout(otherData), bId);
    key = (await issueTestKey(a.env, { scopes: 'observations:read', rateLimit: 100_000 })).plaintext;
    server = await startTestServer({
      dataDir: a.dataDir,
      distDir: a.env.MMDS_DIST_DIR,
      pollMs: 50,
      anonymousLimit: 100_000,
    });
  });

  afterAll(async () => {
    await server?.close();
    a?.remove();
    other?.remove();
  });

  /** The file of a table in B that gets damaged: its largest (a fact table is partitioned). */
  function fileOf(table: string): string {
    const files = [...bManifest.tables[table]!.files].sort((x, y) => y.bytes - x.bytes);
    return files[0]!.file;
  }

  /** Copies B under a new id into A's data directory and returns where it is. */
  function copyB(n: number): { id: string; dir: string; manifest: SnapshotManifest } {
    const id = copyId(n);
    const dir = snapshotDir(layout(), id);
    cpSync(bDir, dir, { recursive: true });
    const manifest = { ...bManifest, id };
    writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return { id, dir, manifest };
  }

  it('refuses every kind of damage, keeps serving A without a 5xx, and switches to an intact B', async () => {
    // Requests flow the whole time, anonymous and keyed.
    const answers: Array<{ status: number; snapshot: string | null; problems: string[] }> = [];
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        for (const [target, headers] of [
          ['/api/v1/fx/ecb', {}],
          ['/api/v1/reference/venues', {}],
          ['/api/v1/observations?series=ecb.USD&limit=5', { Authorization: `Bearer ${key}` }],
        ] as const) {
          const response = await fetch(`${server.url}${target}`, { headers });
          const exchange = {
            method: 'GET',
            target,
            status: response.status,
            headers: headerRecord(response.headers),
            body: await response.text(),
          };
          answers.push({
            status: response.status,
            snapshot: response.headers.get('x-snapshot-id'),
            problems: findContractViolations(exchange),
          });
        }
      }
    })();
    try {
      for (const [n, damage] of DAMAGE.entries()) {
        const copy = copyB(n + 1);
        damage.apply(join(copy.dir, fileOf(damage.table)), copy.dir);
        writeFileAtomic(layout().currentFile, `${copy.id}\n`);
        await waitForLog(server, (entry) => entry.event === 'snapshot_refused' && entry.snapshot === copy.id);
        const status = await fetch(`${server.url}/api/v1/status`);
        expect(status.status, damage.kind).toBe(200);
        expect(status.headers.get('x-snapshot-id'), damage.kind).toBe(a.snapshotId);
      }
      const refusals = server.logs.filter((entry) => entry.event === 'snapshot_refused');
      expect(refusals.map((entry) => entry.snapshot)).toEqual(DAMAGE.map((_, n) => copyId(n + 1)));
      // No refusal message carries more than one line or a stack.
      for (const entry of refusals) expect(String(entry.error)).not.toMatch(/\n/);

      const intact = copyB(DAMAGE.length + 1);
      writeFileAtomic(layout().currentFile, `${intact.id}\n`);
      await waitForLog(
        server,
        (entry) => entry.event === 'snapshot_switched' && entry.snapshot === intact.id,
      );
      const fx = await fetch(`${server.url}/api/v1/fx/ecb`);
      expect(fx.status).toBe(200);
      expect(fx.headers.get('x-snapshot-id')).toBe(intact.id);
    } finally {
      flowing = false;
      await flow;
    }
    expect(answers.length).toBeGreaterThan(30);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(answers.flatMap((answer) => answer.problems)).toEqual([]);
    const served = new Set(answers.map((answer) => answer.snapshot));
    expect([...served].every((id) => id === a.snapshotId || id === copyId(DAMAGE.length + 1))).toBe(true);
    expect(server.logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    console.info(
      `damaged snapshots: ${DAMAGE.length} refused; ${answers.length} requests meanwhile, all 200`,
    );
  });

  it('refuses each kind of file damage in a staged snapshot (the publish and verify checks)', async () => {
    const staging = createTempDir('mmds-staged-');
    try {
      expect(await verifySnapshotFiles(bDir, bManifest)).toEqual([]);
      for (const damage of DAMAGE.filter((d) => d.kind !== 'manifest-garbage')) {
        const dir = join(staging.dir, damage.kind);
        cpSync(bDir, dir, { recursive: true });
        damage.apply(join(dir, fileOf(damage.table)), dir);
        const problems = await verifySnapshotFiles(dir, bManifest);
        expect(problems, damage.kind).toHaveLength(1);
        expect(problems[0], damage.kind).toMatchObject({ severity: 'error', check: 'checksum' });
        expect(problems[0]!.message, damage.kind).toContain(fileOf(damage.table));
      }
    } finally {
      staging.remove();
    }
  });

  it('fails mmds verify with one error per damaged snapshot, the unreadable manifest included', async () => {
    const run = await runMmds(['verify'], a.env);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`mmds: verify found ${DAMAGE.length} error(s): each error line names`);
    for (const [n, damage] of DAMAGE.entries()) {
      const file = damage.kind === 'manifest-garbage' ? 'manifest.json' : fileOf(damage.table);
      expect(run.stdout, damage.kind).toContain(`${copyId(n + 1)}/${file}`);
    }
  });
});

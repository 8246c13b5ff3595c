import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, openDuckDb, quotedString } from '../../../src/db/duckdb.ts';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout, snapshotDir } from '../../../src/store/layout.ts';
import { readCurrentId, type SnapshotManifest } from '../../../src/store/manifest.ts';
import { hashFile } from '../../../src/store/write-parquet.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { BLS_API_COLLECTED_AT } from '../../helpers/snapshot-fixture.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { LEGACY, writeCorrectedLegacy } from './corrected-legacy.ts';
import { hashTree } from './store-files.ts';

const CATALOG = join(REPO_ROOT, 'data/catalog/catalog.yaml');
const CPS = join(SHARED_DATA, 'bls/bls_api_v2_cps_situation_2015.json');
const PAYEMS_EARLY = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_2025-08-02.csv');
const PAYEMS_LATE = join(SHARED_DATA, 'bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv');

interface Revision {
  period: string;
  value: number;
  revision_number: number;
  observed_at: string;
  method: string;
}

/** A store in a temporary directory, driven through the CLI as an operator would. */
function createStore(prefix: string) {
  const temp = createTempDir(prefix);
  const env = { MMDS_DATA_DIR: join(temp.dir, 'data') };
  return {
    temp,
    env,
    mmds: (argv: string[], now = new Date('2026-11-23T12:00:00Z')) => runMmds(argv, env, () => now),
    /** Every revision of one series (or COT series) in the current snapshot. */
    async chain(
      table: 'observations' | 'cot_reports',
      seriesKey: string,
      period?: string,
    ): Promise<Revision[]> {
      const layout = resolveLayout(env.MMDS_DATA_DIR);
      const db = await openSnapshotDb(layout, readCurrentId(layout)!);
      try {
        const value = table === 'observations' ? 'value' : 'open_interest';
        const rows = await db.query<Revision>(
          `SELECT period, ${value} AS value, revision_number,
                  strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at, observed_at_method AS method
             FROM ${table} WHERE series_key = $key AND ($period = '' OR period = $period)
            ORDER BY period, revision_number`,
          { key: seriesKey, period: period ?? '' },
        );
        return rows.map((row) => ({
          ...row,
          value: Number(row.value),
          revision_number: Number(row.revision_number),
        }));
      } finally {
        await db.close();
      }
    },
  };
}

describe('knowledge times and revisions through the CLI, on the real files', () => {
  const store = createStore('knowledge-');
  beforeAll(async () => {
    expect((await store.mmds(['ingest', 'catalog', CATALOG])).code).toBe(0);
  });
  afterAll(() => store.temp.remove());

  it('a corrected COT report is a revision dated when it was collected, never back-dated', async () => {
    expect((await store.mmds(['ingest', 'cftc', LEGACY])).code).toBe(0);
    // The CFTC corrects a report: here, gold's open interest of 2025-03-11 in a copy of the real file.
    const lines = readFileSync(LEGACY, 'latin1').split('\n');
    const index = lines.findIndex((line) => line.includes(',2025-03-11,088691,'));
    const fields = lines[index]!.split(',');
    const original = Number(fields[7]);
    fields[7] = ` ${original + 100}`;
    lines[index] = fields.join(',');
    const corrected = join(store.temp.dir, 'annual.txt');
    writeFileSync(corrected, lines.join('\n'), 'latin1');

    const before = hashTree(store.env.MMDS_DATA_DIR);
    const refused = await store.mmds(['ingest', 'cftc', corrected]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /cftc\.088691\.legacy 2025-03-11: .*--collected-at.*\(the store is unchanged\)/,
    );
    expect(hashTree(store.env.MMDS_DATA_DIR)).toEqual(before);

    const accepted = await store.mmds([
      'ingest',
      'cftc',
      corrected,
      '--collected-at',
      '2025-03-19T09:00:00Z',
    ]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/cot_reports \+1 \(unchanged 99, corrections 1\)/);
    expect((await store.mmds(['publish'])).code).toBe(0);
    expect(await store.chain('cot_reports', 'cftc.088691.legacy', '2025-03-11')).toEqual([
      {
        period: '2025-03-11',
        value: original,
        revision_number: 1,
        observed_at: '2025-03-14T19:30:00Z',
        method: 'release_calendar',
      },
      {
        period: '2025-03-11',
        value: original + 100,
        revision_number: 2,
        observed_at: '2025-03-19T09:00:00Z',
        method: 'collected',
      },
    ]);
  });

  it('the legacy report of 2025-01-07 is known from its delayed release, Monday 2025-01-13', async () => {
    const [report] = await store.chain('cot_reports', 'cftc.088691.legacy', '2025-01-07');
    expect(report).toMatchObject({ observed_at: '2025-01-13T20:30:00Z', method: 'release_calendar' });
  });

  it('an older vintage arriving after a newer one is inserted where it belongs', async () => {
    const late = ['--series', 'bls.CES0000000001', '--vintage', '2026-10-02'];
    const early = ['--series', 'bls.CES0000000001', '--vintage', '2025-08-01'];
    expect((await store.mmds(['ingest', 'fred', PAYEMS_LATE, ...late])).code).toBe(0);
    const backfill = await store.mmds(['ingest', 'fred', PAYEMS_EARLY, ...early]);
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(/backfilled \d+/);
    expect((await store.mmds(['publish'])).code).toBe(0);
    const march = await store.chain('observations', 'bls.CES0000000001', '2025-03');
    expect(march.map((r) => [r.revision_number, r.observed_at, r.method])).toEqual([
      [1, '2025-08-01T12:30:00Z', 'vintage'],
      [2, '2026-10-02T12:30:00Z', 'vintage'],
    ]);
    expect(march[1]!.value - march[0]!.value).toBe(-898);
  });

  it('an older BLS-format file without a collection time cannot overwrite newer values', async () => {
    // The payroll figures of the 2025-08-01 release, as a BLS API answer (values from the real vintage).
    const rows = readFileSync(PAYEMS_EARLY, 'utf8').trim().split('\n').slice(-3);
    const data = rows.map((line) => {
      const [date, value] = line.split(',') as [string, string];
      return { year: date.slice(0, 4), period: `M${date.slice(5, 7)}`, value: value.trim(), footnotes: [{}] };
    });
    const file = join(store.temp.dir, 'old-payrolls.json');
    writeFileSync(
      file,
      JSON.stringify({
        status: 'REQUEST_SUCCEEDED',
        message: [],
        Results: { series: [{ seriesID: 'CES0000000001', data }] },
      }),
    );
    const before = hashTree(store.env.MMDS_DATA_DIR);
    const refused = await store.mmds(['ingest', 'bls', file]);
    expect(refused.code).toBe(1);
    // Payrolls are revised by later releases: without a collection time the first print is not proven.
    expect(refused.stderr).toMatch(
      /a later release may have revised CES0000000001 2025-0\d since its first release.*no time it was collected; pass --collected-at/,
    );
    expect(hashTree(store.env.MMDS_DATA_DIR)).toEqual(before);
    // Told when it was collected (just after that release), it adds nothing: those values were in force then.
    const dated = await store.mmds(['ingest', 'bls', file, '--collected-at', '2025-08-02T10:00:00Z']);
    expect(dated.code, dated.stderr).toBe(0);
    expect(dated.stdout).toMatch(/nothing new, store unchanged/);
  });

  it('verify warns about a chain whose newest revision returns to an older value', async () => {
    const stamp = ['--series', 'bls.CES0000000001', '--observed-at', '2026-11-01T00:00:00Z'];
    expect((await store.mmds(['ingest', 'fred', PAYEMS_EARLY, ...stamp])).code).toBe(0);
    expect((await store.mmds(['publish'])).code).toBe(0);
    const verify = await store.mmds(['verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr + verify.stdout).toMatch(
      /bls\.CES0000000001 2023-07: the newest revision \(3, stamped by collected\) returns to the value of revision 1/,
    );
  });
});

describe('the same BLS file in two stores', () => {
  it('gets the same knowledge times whenever and wherever it is ingested', async () => {
    const stores = [createStore('bls-a-'), createStore('bls-b-')];
    try {
      const times: string[][] = [];
      for (const [index, store] of stores.entries()) {
        expect((await store.mmds(['ingest', 'catalog', CATALOG])).code).toBe(0);
        const when = new Date(Date.UTC(2026, 0, 1 + index * 200));
        const ingest = await store.mmds(['ingest', 'bls', CPS, '--collected-at', BLS_API_COLLECTED_AT], when);
        expect(ingest.code, ingest.stderr).toBe(0);
        expect((await store.mmds(['publish'], when)).code).toBe(0);
        times.push((await store.chain('observations', 'bls.LNS14000000')).map((r) => r.observed_at));
      }
      expect(times[0]).toEqual(times[1]);
      expect(times[0]?.at(-1)).toBe('2016-01-08T13:30:00Z');
    } finally {
      for (const store of stores) store.temp.remove();
    }
  });
});

describe('no knowledge time before the world could know it, nor in the future', () => {
  const store = createStore('bounds-');
  beforeAll(async () => {
    expect((await store.mmds(['ingest', 'catalog', CATALOG])).code).toBe(0);
    expect((await store.mmds(['ingest', 'cftc', LEGACY])).code).toBe(0);
    expect((await store.mmds(['publish'])).code).toBe(0);
  });
  afterAll(() => store.temp.remove());

  /** Runs an ingest that must be refused with one line and leave the store as it was. */
  async function expectRefused(argv: string[], message: RegExp): Promise<void> {
    const before = hashTree(store.env.MMDS_DATA_DIR);
    const result = await store.mmds(argv);
    expect(result.code, result.stdout).not.toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('mmds:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(hashTree(store.env.MMDS_DATA_DIR)).toEqual(before);
  }

  it('refuses a corrected COT file "collected" before the report was released', async () => {
    const corrected = writeCorrectedLegacy(store.temp.dir);
    await expectRefused(
      ['ingest', 'cftc', corrected, '--collected-at', '2025-03-12T00:00:00Z'],
      /2025-03-11: correction time 2025-03-12T00:00:00Z \(from the collection time\) is before its release at 2025-03-14T19:30:00Z/,
    );
    expect(await store.chain('cot_reports', 'cftc.088691.legacy', '2025-03-11')).toHaveLength(1);
  });

  it('refuses a correction at the very time of the value it corrects (it would be superseded by it)', async () => {
    const corrected = writeCorrectedLegacy(store.temp.dir);
    await expectRefused(
      ['ingest', 'cftc', corrected, '--collected-at', '2025-03-14T19:30:00Z'],
      /cftc\.088691\.legacy 2025-03-11: the correction's time 2025-03-14T19:30:00Z \(collected\) is not later than 2025-03-14T19:30:00Z, when the value it corrects became known/,
    );
  });

  it('refuses --observed-at before the release of the values it stamps', async () => {
    await expectRefused(
      ['ingest', 'cftc', LEGACY, '--observed-at', '2025-01-01T00:00:00Z'],
      /knowledge time 2025-01-01T00:00:00Z \(collected\) is before its release at 2025-01-\d\dT\d\d:30:00Z/,
    );
  });

  it('refuses a BLS December 2015 value "collected" on 2015-06-01', async () => {
    await expectRefused(
      ['ingest', 'bls', CPS, '--collected-at', '2015-06-01T00:00:00Z'],
      /bls\.LNS11000000 2015-05: correction time 2015-05-08T12:30:00Z \(from the collection time\) is before its release at 2015-06-05T12:30:00Z.*\(and 31 more\)/,
    );
  });

  it('refuses a time in the future, on the command line and in a plan', async () => {
    await expectRefused(
      ['ingest', 'cftc', LEGACY, '--collected-at', '2030-01-01T00:00:00Z'],
      /--collected-at 2030-01-01T00:00:00Z is in the future \(the clock says 2026-11-23T12:00:00Z, allowing 5 minutes/,
    );
    await expectRefused(
      ['ingest', 'fred', PAYEMS_EARLY, '--series', 'bls.CES0000000001', '--vintage', '2027-01-04'],
      /knowledge time 2027-01-0\dT\d\d:\d\d:\d\dZ is in the future/,
    );
    const plan = join(store.temp.dir, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify([{ source: 'cftc', files: [LEGACY], observed_at: '2030-01-01T00:00:00Z' }]),
    );
    await expectRefused(
      ['ingest-plan', plan],
      /step 1 of 1 \(cftc\): --observed-at 2030-01-01T00:00:00Z is in the future/,
    );
  });

  it('dates a BLS value fetched after a later release by that release, not its first release', async () => {
    const ingest = await store.mmds(['ingest', 'bls', CPS, '--collected-at', BLS_API_COLLECTED_AT]);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await store.mmds(['publish'])).code).toBe(0);
    // June 2015 came out 2015-07-02, but the file was fetched after the release of 2016-01-08.
    expect(await store.chain('observations', 'bls.LNS14000000', '2015-06')).toEqual([
      {
        period: '2015-06',
        value: 5.3,
        revision_number: 1,
        observed_at: '2016-01-08T13:30:00Z',
        method: 'later_release',
      },
    ]);
    // December 2015 was first released on 2016-01-08 and the file fetched before the next release.
    expect(await store.chain('observations', 'bls.LNS14000000', '2015-12')).toMatchObject([
      { observed_at: '2016-01-08T13:30:00Z', method: 'release_calendar' },
    ]);
  });
});

describe('mmds verify and impossible knowledge times', () => {
  const store = createStore('verify-times-');
  afterAll(() => store.temp.remove());

  /** Rewrites the current snapshot's COT files with `observed_at` set by `cases`, manifest updated. */
  async function tamper(cases: string): Promise<void> {
    const layout = resolveLayout(store.env.MMDS_DATA_DIR);
    const dir = snapshotDir(layout, readCurrentId(layout)!);
    const manifestFile = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as SnapshotManifest;
    const db = await openDuckDb();
    const connection = await db.connect();
    try {
      for (const entry of manifest.tables.cot_reports!.files) {
        const file = join(dir, entry.file);
        const copy = `${file}.tampered`;
        await execute(
          connection,
          `COPY (SELECT * REPLACE (CASE ${cases} ELSE observed_at END AS observed_at)
                   FROM read_parquet(${quotedString(file)})) TO ${quotedString(copy)} (FORMAT parquet)`,
        );
        renameSync(copy, file);
        entry.sha256 = await hashFile(file);
        entry.bytes = statSync(file).size;
      }
    } finally {
      connection.closeSync();
      db.closeSync();
    }
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  }

  it('flags records known before their release or after the snapshot, and chains out of time order', async () => {
    expect((await store.mmds(['ingest', 'catalog', CATALOG])).code).toBe(0);
    expect((await store.mmds(['ingest', 'cftc', LEGACY])).code).toBe(0);
    const corrected = writeCorrectedLegacy(store.temp.dir);
    expect(
      (await store.mmds(['ingest', 'cftc', corrected, '--collected-at', '2025-03-19T09:00:00Z'])).code,
    ).toBe(0);
    expect((await store.mmds(['publish'])).code).toBe(0);
    const clean = await store.mmds(['verify']);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);

    const gold = "series_key = 'cftc.088691.legacy'";
    await tamper(
      `WHEN ${gold} AND period = '2025-02-25' THEN TIMESTAMP '2025-02-27 00:00:00'
       WHEN ${gold} AND period = '2025-03-04' THEN TIMESTAMP '2030-01-01 00:00:00'
       WHEN ${gold} AND period = '2025-03-11' AND revision_number = 1 THEN TIMESTAMP '2025-03-20 00:00:00'`,
    );
    const verify = await store.mmds(['verify']);
    expect(verify.code).toBe(1);
    const output = verify.stdout + verify.stderr;
    expect(output).toMatch(
      /error: knowledge: cftc\.088691\.legacy 2025-02-25 revision 1: knowledge time 2025-02-27T00:00:00Z \(release_calendar\) is before its release at 2025-02-28T20:30:00Z/,
    );
    expect(output).toMatch(
      /error: knowledge: cftc\.088691\.legacy 2025-03-04 revision 1: knowledge time 2030-01-01T00:00:00Z \(release_calendar\) is after the snapshot was created \(2026-11-23T12:00:00Z\)/,
    );
    expect(output).toMatch(
      /error: chain: cftc\.088691\.legacy 2025-03-11: revision 2 observed at 2025-03-19T09:00:00Z, before revision 1 \(2025-03-20T00:00:00Z\)/,
    );
    expect(output).toMatch(/3 error\(s\)/);
  });
});

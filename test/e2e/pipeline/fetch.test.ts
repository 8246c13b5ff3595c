import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { listBatches } from '../../../src/store/batches.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree, readLines, splitCsvLine } from './store-files.ts';

/**
 * What update.test.ts does not cover of `mmds fetch`: which CFTC files a run plans (--year,
 * --since, --report, January), how every kind of bad answer fails (exit 69, one line, store
 * untouched), retries, the early-January notice, conditional GET and the batch provenance.
 */

/** A Monday in October 2026: every yearly file of 2026 should be out. */
const NOW = new Date('2026-10-05T10:00:00Z');
const RETRIEVED_AT = '2026-10-05T10:00:00Z';
const HISTORY = 'cftc/files/dea/history/';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The real CFTC extracts, each zipped under the member name the CFTC gives that file. */
const COT = {
  legacy: {
    file: join(SHARED_DATA, 'cftc/legacy_futures_only_2025_selected_markets.txt'),
    zip: 'deacot2025.zip',
    member: 'annual.txt',
  },
  disaggregated: {
    file: join(SHARED_DATA, 'cftc/disaggregated_futures_only_2021_selected_markets.txt'),
    zip: 'fut_disagg_txt_2021.zip',
    member: 'f_year.txt',
  },
  tff: {
    file: join(SHARED_DATA, 'cftc/tff_futures_only_2026_selected_markets.txt'),
    zip: 'fut_fin_txt_2026.zip',
    member: 'FinFutYY.txt',
  },
} as const;
const ZIPS = Object.fromEntries(
  Object.values(COT).map(({ file, zip, member }) => [zip, zipFiles({ [member]: file })]),
) as Record<string, Buffer>;
/** The legacy zip cut in half, served whole (its own Content-Length): complete download, broken archive. */
const DAMAGED_ZIP = ZIPS['deacot2025.zip']!.subarray(0, Math.floor(ZIPS['deacot2025.zip']!.length / 2));

/** Report rows of a CFTC text file (header excluded). */
const countReports = (file: string) => readLines(file).length - 1;

interface FetchJson {
  ingests: Array<{
    source: string;
    files: string[];
    result: { batch_id: string | null; tables: Record<string, { added: number; unchanged: number }> };
  }>;
  unchanged: string[];
  notices: string[];
}

describe('mmds fetch cftc against a loopback publisher in the CFTC URL layout', () => {
  let publisher: LoopbackPublisher;
  let temp: ReturnType<typeof createTempDir>;
  let dataDir: string;
  const history = (name: string) => publisher.url(`${HISTORY}${name}`);
  const env = (extra: Record<string, string> = {}) => ({
    MMDS_DATA_DIR: dataDir,
    MMDS_CFTC_BASE_URL: publisher.url('cftc/'),
    MMDS_FETCH_RETRIES: '2',
    MMDS_FETCH_BACKOFF_MS: '1',
    MMDS_FETCH_TIMEOUT_MS: '3000',
    ...extra,
  });
  const fetchCftc = (argv: string[], options: { now?: Date; env?: Record<string, string> } = {}) => {
    const now = options.now ?? NOW;
    // --json is the program's option: it goes before the command.
    const json = argv[0] === '--json' ? ['--json'] : [];
    return runMmds([...json, 'fetch', 'cftc', ...argv.slice(json.length)], env(options.env), () => now);
  };
  /** Runs a fetch and returns it with the requests the publisher saw meanwhile (`GET path status`). */
  const fetchLogged = async (...args: Parameters<typeof fetchCftc>) => {
    const from = publisher.requests.length;
    const run = await fetchCftc(...args);
    // The server logs a request when its response closes, which may trail the client by a tick.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const requests = publisher.requests.slice(from);
    return { ...run, requests, seen: requests.map((r) => `${r.method} ${r.path} ${r.status}`) };
  };
  const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line !== '');

  beforeAll(async () => {
    publisher = await startLoopbackPublisher({
      files: {
        ...Object.fromEntries(Object.entries(ZIPS).map(([name, bytes]) => [`${HISTORY}${name}`, bytes])),
        [`${HISTORY}deacot2023.zip`]: DAMAGED_ZIP,
        // The empty placeholder the CFTC serves for a new year before its first report.
        [`${HISTORY}com_fin_txt_2027.zip`]: zipFiles({}),
      },
    });
    temp = createTempDir('mmds-fetch-');
    dataDir = join(temp.dir, 'data');
    const catalog = await runMmds(['ingest', 'catalog', join(REPO_ROOT, 'data/catalog/catalog.yaml')], {
      MMDS_DATA_DIR: dataDir,
    });
    expect(catalog.code, catalog.stderr).toBe(0);
  });
  afterAll(async () => {
    await publisher?.close();
    temp?.remove();
  });

  it('--since plans a yearly zip per year; a past year missing fails the run before anything is stored', async () => {
    const before = hashTree(dataDir);
    const run = await fetchLogged(['--json', '--report', 'disaggregated', '--since', '2021']);
    expect(run.code).toBe(69);
    // 2021 is downloaded, 2022 is not at the publisher: the run stops there, ingesting nothing.
    expect(run.seen).toEqual([
      `GET ${HISTORY}fut_disagg_txt_2021.zip 200`,
      `GET ${HISTORY}fut_disagg_txt_2022.zip 404`,
    ]);
    const lines = stderrLines(run.stderr);
    expect(lines).toEqual([
      expect.stringMatching(
        /^mmds: .*fut_disagg_txt_2022\.zip: HTTP 404: the CFTC has no fut_disagg_txt_2022\.zip/,
      ),
    ]);
    expect(lines[0]).toContain(history('fut_disagg_txt_2022.zip'));
    expect(lines[0]).toMatch(/\(the store is unchanged\)$/);
    expect(hashTree(dataDir)).toEqual(before);
    expect(existsSync(join(dataDir, 'fetch-state.json'))).toBe(false);
  });

  it('--year before 2017 plans the multi-year archive of the report', async () => {
    const before = hashTree(dataDir);
    const run = await fetchLogged(['--report', 'legacy', '--year', '2010']);
    expect(run.code).toBe(69);
    expect(run.seen).toEqual([`GET ${HISTORY}deacot1986_2016.zip 404`]);
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('--year fetches one yearly zip and records in the batch where each file came from', async () => {
    const { file, zip, member } = COT.disaggregated;
    const run = await fetchLogged(['--report', 'disaggregated', '--year', '2021']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toEqual([`GET ${HISTORY}${zip} 200`]);
    // Nothing was ingested before, so nothing is remembered to ask about.
    expect(run.requests[0]!.headers['if-none-match']).toBeUndefined();
    expect(run.stdout).toMatch(
      new RegExp(`^cftc: read ${countReports(file)} rows.*cot_reports \\+${countReports(file)} `, 'm'),
    );

    const batches = listBatches(resolveLayout(dataDir)).filter((batch) => batch.source === 'cftc');
    expect(batches).toHaveLength(1);
    const text = readFileSync(file);
    expect(batches[0]!.files).toEqual([
      {
        name: member,
        sha256: sha256(text),
        bytes: text.length,
        origin: {
          url: history(zip),
          retrieved_at: RETRIEVED_AT,
          member,
          download_sha256: sha256(ZIPS[zip]!),
          download_bytes: ZIPS[zip]!.length,
        },
      },
    ]);
  });

  it('asks again with the validators of the last ingest: a 304 (or the same bytes) writes nothing', async () => {
    const url = history(COT.disaggregated.zip);
    const state = JSON.parse(readFileSync(join(dataDir, 'fetch-state.json'), 'utf8')) as {
      entries: Record<string, { etag: string | null; sha256: string }>;
    };
    expect(state.entries[url]).toMatchObject({ sha256: sha256(ZIPS[COT.disaggregated.zip]!) });
    const before = hashTree(dataDir);
    const batches = listBatches(resolveLayout(dataDir)).length;

    const run = await fetchLogged(['--json', '--report', 'disaggregated', '--year', '2021']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toEqual([`GET ${HISTORY}${COT.disaggregated.zip} 304`]);
    expect(run.requests[0]!.headers['if-none-match']).toBe(state.entries[url]!.etag);
    expect(JSON.parse(run.stdout)).toMatchObject({ ingests: [], unchanged: [url], notices: [] });

    // A publisher that sends no validators answers in full; the same bytes count as unchanged.
    publisher.setFault(`${HISTORY}${COT.disaggregated.zip}`, 'no-validators');
    const again = await fetchLogged(['--report', 'disaggregated', '--year', '2021']);
    publisher.setFault(`${HISTORY}${COT.disaggregated.zip}`, null);
    expect(again.code, again.stderr).toBe(0);
    expect(again.seen).toEqual([`GET ${HISTORY}${COT.disaggregated.zip} 200`]);
    expect(again.stdout).toContain('cftc: 1 file(s) unchanged at the publisher, not fetched again');

    expect(listBatches(resolveLayout(dataDir))).toHaveLength(batches);
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('retries a 5xx with back-off (MMDS_FETCH_RETRIES, MMDS_FETCH_BACKOFF_MS) and ingests the file', async () => {
    const { file, zip } = COT.legacy;
    publisher.setFault(`${HISTORY}${zip}`, 'status:503x2');
    const run = await fetchLogged(['--report', 'legacy', '--year', '2025']);
    publisher.setFault(`${HISTORY}${zip}`, null);
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toEqual([
      `GET ${HISTORY}${zip} 503`,
      `GET ${HISTORY}${zip} 503`,
      `GET ${HISTORY}${zip} 200`,
    ]);
    // Each retry is announced on stderr as progress, never as an error.
    const retries = stderrLines(run.stderr).filter((line) => line.includes('retrying'));
    expect(retries).toEqual([
      expect.stringMatching(/HTTP 503; retrying in .* \(attempt 2 of 3\)$/),
      expect.stringMatching(/HTTP 503; retrying in .* \(attempt 3 of 3\)$/),
    ]);
    expect(run.stderr).not.toMatch(/^mmds:/m);
    expect(run.stdout).toMatch(new RegExp(`cot_reports \\+${countReports(file)} `));
  });

  it('--since in early January: the new year not yet published is a notice, the old year is fetched', async () => {
    // 2026-01-03: the first report of 2026 (positions of 2026-01-06) comes out on Friday 2026-01-09.
    const run = await fetchLogged(['--json', '--report', 'legacy', '--since', '2025'], {
      now: new Date('2026-01-03T12:00:00Z'),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toEqual([`GET ${HISTORY}deacot2025.zip 304`, `GET ${HISTORY}deacot2026.zip 404`]);
    expect(stderrLines(run.stderr)).toEqual([
      expect.stringMatching(
        /^warning: cftc: deacot2026\.zip is not published yet: .* comes out on 2026-01-09/,
      ),
    ]);
  });

  it('an empty placeholder zip of the new year is "not published yet" early in January, a failure later', async () => {
    const early = await fetchLogged(['--json', '--report', 'tff', '--combined', '--year', '2027'], {
      now: new Date('2027-01-03T09:00:00Z'),
    });
    expect(early.code, early.stderr).toBe(0);
    expect(early.seen).toEqual([`GET ${HISTORY}com_fin_txt_2027.zip 200`]);
    const notice =
      "com_fin_txt_2027.zip is not published yet: the CFTC's first report of 2027 (positions of 2027-01-05) " +
      'comes out on 2027-01-08; nothing to fetch for 2027 until then';
    expect(stderrLines(early.stderr)).toEqual([`warning: cftc: ${notice}`]);
    const result = JSON.parse(early.stdout) as FetchJson;
    expect(result).toMatchObject({ notices: [notice], ingests: [] });
    // Nothing was recorded of it: the next run downloads it again rather than sending validators.
    const again = await fetchLogged(['--json', '--report', 'tff', '--combined', '--year', '2027'], {
      now: new Date('2027-01-04T09:00:00Z'),
    });
    expect(again.requests[0]?.headers['if-none-match']).toBeUndefined();
    expect(again.code, again.stderr).toBe(0);
    const before = hashTree(dataDir);
    const late = await fetchLogged(['--json', '--report', 'tff', '--combined', '--year', '2027'], {
      now: new Date('2027-01-20T09:00:00Z'),
    });
    expect(late.code).toBe(69);
    expect(stderrLines(late.stderr)).toEqual([
      expect.stringMatching(/^mmds: .*com_fin_txt_2027\.zip is an empty zip \(no member\)/),
    ]);
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('a January run fetches last year too; this year missing before its first report is a notice', async () => {
    const { file, zip } = COT.tff;
    const run = await fetchLogged(['--json', '--report', 'tff'], { now: new Date('2027-01-03T09:00:00Z') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toEqual([`GET ${HISTORY}${zip} 200`, `GET ${HISTORY}fut_fin_txt_2027.zip 404`]);
    const notice =
      "fut_fin_txt_2027.zip is not published yet: the CFTC's first report of 2027 (positions of 2027-01-05) " +
      'comes out on 2027-01-08; nothing to fetch for 2027 until then';
    expect(stderrLines(run.stderr)).toEqual([`warning: cftc: ${notice}`]);
    const result = JSON.parse(run.stdout) as FetchJson;
    expect(result.notices).toEqual([notice]);
    expect(result.ingests).toHaveLength(1);
    expect(result.ingests[0]!.files).toEqual([history(zip)]);
    expect(result.ingests[0]!.result.tables.cot_reports).toMatchObject({ added: countReports(file) });
    const batch = listBatches(resolveLayout(dataDir)).find(
      (b) => b.id === result.ingests[0]!.result.batch_id,
    )!;
    expect(batch.files[0]!.origin).toMatchObject({ url: history(zip), retrieved_at: '2027-01-03T09:00:00Z' });

    // A week after the first release was due, the file missing is no longer "not yet": it fails.
    const before = hashTree(dataDir);
    const late = await fetchLogged(['--json', '--report', 'tff', '--year', '2027'], {
      now: new Date('2027-01-20T12:00:00Z'),
    });
    expect(late.code).toBe(69);
    expect(stderrLines(late.stderr)).toEqual([
      expect.stringMatching(/^mmds: .*fut_fin_txt_2027\.zip: HTTP 404/),
    ]);
    expect(hashTree(dataDir)).toEqual(before);
  });

  const failures = [
    {
      what: 'a download cut off before its Content-Length (retried, then given up)',
      path: 'deacot2025.zip',
      fault: 'truncate',
      argv: ['--year', '2025'],
      env: {},
      attempts: 3,
      message: /deacot2025\.zip: the download was cut off after \d+ of \d+ bytes, 3 attempts/,
    },
    {
      what: 'a zip that does not read whole',
      path: 'deacot2023.zip',
      fault: null,
      argv: ['--year', '2023'],
      env: {},
      attempts: 1,
      message: /deacot2023\.zip: the zip archive is incomplete or damaged/,
    },
    {
      what: 'a server that sends headers but no body (MMDS_FETCH_TIMEOUT_MS)',
      path: 'deacot2025.zip',
      fault: 'slow',
      argv: ['--year', '2025'],
      env: { MMDS_FETCH_TIMEOUT_MS: '200', MMDS_FETCH_RETRIES: '1' },
      attempts: 2,
      message: /deacot2025\.zip: no complete answer within 0\.2 s, 2 attempts/,
    },
    {
      what: 'an HTML page where a zip was expected',
      path: 'deacot2025.zip',
      fault: 'html',
      argv: ['--year', '2025'],
      env: {},
      attempts: 1,
      message: /deacot2025\.zip: the publisher answered with an HTML page/,
    },
    {
      what: 'a 5xx on every attempt',
      path: 'deacot2025.zip',
      fault: 'status:502',
      argv: ['--year', '2025'],
      env: {},
      attempts: 3,
      message: /deacot2025\.zip: HTTP 502 after 3 attempts/,
    },
    {
      what: 'a 404 of a past year',
      path: 'deacot2024.zip',
      fault: null,
      argv: ['--year', '2024'],
      env: {},
      attempts: 1,
      message: /deacot2024\.zip: HTTP 404: the CFTC has no deacot2024\.zip/,
    },
  ] as const;

  it.each(failures)('$what: exit 69, one line on stderr, the store byte-identical', async (failure) => {
    const before = hashTree(dataDir);
    if (failure.fault) publisher.setFault(`${HISTORY}${failure.path}`, failure.fault);
    const run = await fetchLogged(['--json', '--report', 'legacy', ...failure.argv], { env: failure.env });
    if (failure.fault) publisher.setFault(`${HISTORY}${failure.path}`, null);
    expect(run.code).toBe(69);
    expect(run.requests.map((r) => r.path)).toEqual(
      Array(failure.attempts).fill(`${HISTORY}${failure.path}`),
    );
    const lines = stderrLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mmds: /);
    expect(lines[0]).toContain(history(failure.path));
    expect(lines[0]).toMatch(failure.message);
    expect(lines[0]).toMatch(/\(the store is unchanged\)$/);
    expect(hashTree(dataDir)).toEqual(before);
  });

  it('publishes what was fetched: every report row, dated by the CFTC release calendar, not by the fetch', async () => {
    const env = { MMDS_DATA_DIR: dataDir };
    const publish = await runMmds(['publish'], env, () => NOW);
    expect(publish.code, publish.stderr).toBe(0);
    const verify = await runMmds(['verify'], env, () => NOW);
    expect(verify.code, verify.stdout).toBe(0);
    const layout = resolveLayout(dataDir);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const [count] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM cot_reports');
      expect(count!.n).toBe(Object.values(COT).reduce((sum, { file }) => sum + countReports(file), 0));

      const [header, ...rows] = readLines(COT.legacy.file).map(splitCsvLine);
      const column = (name: string) => header!.findIndex((h) => h.trim() === name);
      const gold = rows.filter((row) => row[column('CFTC Contract Market Code')]!.trim() === '088691');
      const reports = await db.query<{ period: string; open_interest: number; observed_at: string }>(
        `SELECT period, open_interest, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') AS observed_at
           FROM cot_reports WHERE series_key = 'cftc.088691.legacy' AND period IN ('2025-01-07', '2025-03-04')
          ORDER BY period`,
      );
      const interest = (date: string) =>
        Number(
          gold
            .find((row) => row[column('As of Date in Form YYYY-MM-DD')] === date)!
            [column('Open Interest (All)')]!.trim(),
        );
      expect(reports).toEqual([
        // The CFTC was closed on 2025-01-09 (national day of mourning): released Monday 2025-01-13.
        { period: '2025-01-07', open_interest: interest('2025-01-07'), observed_at: '2025-01-13T20:30:00Z' },
        // The regular rule: Friday 15:30 New York of the report's week.
        { period: '2025-03-04', open_interest: interest('2025-03-04'), observed_at: '2025-03-07T20:30:00Z' },
      ]);
    } finally {
      await db.close();
    }
  });
});

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, quotedString, readRows } from '../../../src/db/duckdb.ts';
import { listBatches, listTableFiles } from '../../../src/store/batches.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree, splitCsvLine } from './store-files.ts';

/**
 * `mmds fetch cftc` backfilling from the CFTC's archives: the real files of
 * ../shared/data/cftc/history served by a loopback publisher under the names the CFTC gives them
 * (src/fetch/cftc-plan.ts), the years up to 2016 in the multi-year archives, 2017 in yearly zips.
 */

/** The last Sunday of 2017: every report of 2017 is out, no January rule applies. */
const NOW = new Date('2017-12-31T12:00:00Z');
const HISTORY = 'cftc/files/dea/history/';
const dir = join(SHARED_DATA, 'cftc', 'history');
const file = (name: string) => join(dir, name);

/**
 * A multi-year archive member built from yearly files as whole lines: the first file's header,
 * then every file's data lines in year order, CRLF as the CFTC writes them.
 */
function bundle(names: readonly string[]): Buffer {
  const lines = names.map((name) => readFileSync(file(name), 'latin1').split('\r\n'));
  const header = lines[0]![0]!;
  const text = [header, ...lines.flatMap((each) => each.slice(1).filter((line) => line !== ''))].join('\r\n');
  return Buffer.from(`${text}\r\n`, 'latin1');
}

const TFF_YEARS = [
  'tff_fut_2013__COT_2013.txt',
  'tff_fut_2010__COT_2010.txt',
  'tff_fut_2012__COT_2012.txt',
  'tff_fut_2014__COT_2014.txt',
  'tff_fut_2015__COT_2015.txt',
  'tff_fut_2016__COT_2016.txt',
];
const TFF_COMBINED_YEARS = [
  'tff_futopt_2013__FUT_and_OPT_COT_2013.txt',
  'tff_futopt_2012__FUT_and_OPT_COT_2012.txt',
  'tff_futopt_2015__FUT_and_OPT_COT_2015.txt',
];
/** The years of the multi-year TFF archive in the resume test. */
const RESUME_YEARS = ['tff_fut_2015__COT_2015.txt', 'tff_fut_2016__COT_2016.txt'];
const count = (names: readonly string[]) =>
  names.reduce((sum, name) => sum + readCftcFileByHand(file(name)).lines.length, 0);

/**
 * The 2017 TFF file as the CFTC served it before its last two reports (2017-12-19 and
 * 2017-12-26) were out: the header and every line of an earlier report date, whole.
 */
function tff2017Before(lastReport: string): Buffer {
  const [header, ...lines] = readFileSync(file('tff_fut_2017__FinFut17.txt'), 'latin1').split('\r\n');
  const kept = lines.filter((line) => line !== '' && splitCsvLine(line)[2]! <= lastReport);
  return Buffer.from(`${[header, ...kept].join('\r\n')}\r\n`, 'latin1');
}

/** The data lines of a COT text file's bytes. */
const tff2017Lines = (bytes: Buffer) =>
  bytes
    .toString('latin1')
    .split('\r\n')
    .slice(1)
    .filter((line) => line !== '').length;

/** Each run, the archives it fetches and the reports they hold. */
const RUNS = [
  {
    argv: ['--report', 'tff', '--since', '2010'],
    zips: ['fin_fut_txt_2006_2016.zip', 'fut_fin_txt_2017.zip'],
    reports: count([...TFF_YEARS, 'tff_fut_2017__FinFut17.txt']),
  },
  {
    argv: ['--report', 'tff', '--combined', '--year', '2015'],
    zips: ['fin_com_txt_2006_2016.zip'],
    reports: count(TFF_COMBINED_YEARS),
  },
  {
    argv: ['--report', 'disaggregated', '--year', '2017'],
    zips: ['fut_disagg_txt_2017.zip'],
    reports: count(['disagg_fut_2017__fut_disagg_txt_2017.zip']),
  },
  {
    argv: ['--report', 'legacy', '--year', '2004'],
    zips: ['deacot1986_2016.zip'],
    reports: count(['legacy_fut_2004__deacot2004_annual.txt']),
  },
];

const BIN = join(REPO_ROOT, 'bin/mmds.js');
const SHIFTED_CLOCK = join(REPO_ROOT, 'test/helpers/shifted-clock.ts');

/**
 * Runs bin/mmds.js as its own process at the clock NOW (test/helpers/shifted-clock.ts), and
 * kills it with SIGKILL as soon as `killWhen` holds (polled), so that the kill lands mid-run.
 */
function spawnMmdsKilled(
  argv: readonly string[],
  env: Record<string, string>,
  killWhen: () => boolean,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', SHIFTED_CLOCK, BIN, ...argv], {
    env: { ...process.env, ...env, MMDS_TEST_CLOCK_START: NOW.toISOString() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const poll = setInterval(() => {
    if (killWhen()) child.kill('SIGKILL');
  }, 5);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, stderr });
    });
  });
}

/** Every stored report of a store: ids, knowledge times, revisions, where each was read. */
async function storedReports(dataDir: string): Promise<string[]> {
  const layout = resolveLayout(dataDir);
  const files = listTableFiles(layout, listBatches(layout), 'cot_reports');
  const db = await openDuckDb();
  const connection = await db.connect();
  try {
    const rows = await readRows<{ row: string }>(
      connection,
      `SELECT concat_ws(' ', id, series_key, period, observed_at::VARCHAR, observed_at_method,
                        revision_number, source_ref, open_interest) AS row
         FROM read_parquet([${files.map(quotedString).join(', ')}])
        ORDER BY series_key, period, revision_number`,
    );
    return rows.map((each) => each.row);
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

/** What the stored reports cite before `:<line>`, each once, sorted. */
async function citedFiles(dataDir: string): Promise<string[]> {
  const layout = resolveLayout(dataDir);
  const files = listTableFiles(layout, listBatches(layout), 'cot_reports');
  const db = await openDuckDb();
  const connection = await db.connect();
  try {
    const rows = await readRows<{ cited: string }>(
      connection,
      `SELECT DISTINCT regexp_replace(source_ref, ':[0-9]+$', '') AS cited
         FROM read_parquet([${files.map(quotedString).join(', ')}]) ORDER BY cited`,
    );
    return rows.map((row) => row.cited);
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

interface FetchJson {
  ingests: Array<{ result: { tables: Record<string, { added: number; unchanged: number }> } }>;
  unchanged: string[];
  notices: string[];
}

describe('mmds fetch cftc backfills from the CFTC archives (real files before 2021)', () => {
  let publisher: LoopbackPublisher;
  let temp: ReturnType<typeof createTempDir>;
  let dataDir: string;

  const fetchCftc = async (argv: string[]) => {
    const from = publisher.requests.length;
    const env = { MMDS_DATA_DIR: dataDir, MMDS_CFTC_BASE_URL: publisher.url('cftc/') };
    const run = await runMmds(['--json', 'fetch', 'cftc', ...argv], env, () => NOW);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seen = publisher.requests.slice(from).map((r) => `${r.method} ${r.path} ${r.status}`);
    return { ...run, seen };
  };

  beforeAll(async () => {
    publisher = await startLoopbackPublisher({
      files: {
        [`${HISTORY}fin_fut_txt_2006_2016.zip`]: zipFiles({ 'F_TFF_2006_2016.txt': bundle(TFF_YEARS) }),
        [`${HISTORY}fut_fin_txt_2017.zip`]: zipFiles({
          'FinFutYY.txt': readFileSync(file('tff_fut_2017__FinFut17.txt')),
        }),
        [`${HISTORY}fin_com_txt_2006_2016.zip`]: zipFiles({
          'C_TFF_2006_2016.txt': bundle(TFF_COMBINED_YEARS),
        }),
        // The CFTC's own zip, byte for byte.
        [`${HISTORY}fut_disagg_txt_2017.zip`]: readFileSync(file('disagg_fut_2017__fut_disagg_txt_2017.zip')),
        [`${HISTORY}deacot1986_2016.zip`]: zipFiles({
          'FUT86_16.txt': readFileSync(file('legacy_fut_2004__deacot2004_annual.txt')),
        }),
      },
    });
    temp = createTempDir('mmds-fetch-history-');
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

  it('fetches every archive of each family and year, every report once; a second run adds nothing', {
    timeout: 180_000,
  }, async () => {
    for (const { argv, zips, reports } of RUNS) {
      const run = await fetchCftc(argv);
      expect(run.code, run.stderr).toBe(0);
      expect(run.seen, argv.join(' ')).toEqual(zips.map((zip) => `GET ${HISTORY}${zip} 200`));
      const result = JSON.parse(run.stdout) as FetchJson;
      expect(result.notices, argv.join(' ')).toEqual([]);
      const added = result.ingests.reduce(
        (sum, ingest) => sum + (ingest.result.tables.cot_reports?.added ?? 0),
        0,
      );
      expect(added, argv.join(' ')).toBe(reports);
    }
    // Every report cites the archive it was fetched in and the member it was read from.
    expect(await citedFiles(dataDir)).toEqual([
      'deacot1986_2016.zip!FUT86_16.txt',
      'fin_com_txt_2006_2016.zip!C_TFF_2006_2016.txt',
      'fin_fut_txt_2006_2016.zip!F_TFF_2006_2016.txt',
      'fut_disagg_txt_2017.zip!f_year.txt',
      'fut_fin_txt_2017.zip!FinFutYY.txt',
    ]);
    const before = hashTree(dataDir);
    for (const { argv, zips } of RUNS) {
      const run = await fetchCftc(argv);
      expect(run.code, run.stderr).toBe(0);
      expect(run.seen, argv.join(' ')).toEqual(zips.map((zip) => `GET ${HISTORY}${zip} 304`));
      expect((JSON.parse(run.stdout) as FetchJson).ingests).toEqual([]);
    }
    expect(hashTree(dataDir)).toEqual(before);
  });

  // Issue 22 item 2: resumable after a kill, then `mmds update` on top; the same runs without
  // the kill, against the same publisher, are the reference. The multi-year archive holds two of
  // its years only, to keep the two backfills short.
  it('a backfill killed after its first batch resumes to the same store; update then adds only what is new', {
    timeout: 300_000,
  }, async () => {
    const before2017Final = tff2017Before('2017-12-12');
    // Zipped once each: a zip made per request would carry a new timestamp, so a new ETag.
    const zip2017Final = zipFiles({ 'FinFutYY.txt': readFileSync(file('tff_fut_2017__FinFut17.txt')) });
    let served2017 = zipFiles({ 'FinFutYY.txt': before2017Final });
    const other = await startLoopbackPublisher({
      files: {
        [`${HISTORY}fin_fut_txt_2006_2016.zip`]: zipFiles({ 'F_TFF_2006_2016.txt': bundle(RESUME_YEARS) }),
        [`${HISTORY}fut_fin_txt_2017.zip`]: () => served2017,
      },
    });
    const envOf = (name: string) => ({
      MMDS_DATA_DIR: join(temp.dir, name),
      MMDS_CFTC_BASE_URL: other.url('cftc/'),
      MMDS_CFTC_REPORTS: 'tff',
    });
    const env = envOf('killed');
    const reference = envOf('uninterrupted');
    const layout = resolveLayout(env.MMDS_DATA_DIR);
    const cftcBatches = () => listBatches(layout).filter((batch) => batch.source === 'cftc').length;
    const seen = (from: number) => other.requests.slice(from).map((r) => `${r.path} ${r.status}`);
    const catalogFile = join(REPO_ROOT, 'data/catalog/catalog.yaml');
    try {
      for (const each of [env, reference]) {
        const catalog = await runMmds(['ingest', 'catalog', catalogFile], each);
        expect(catalog.code, catalog.stderr).toBe(0);
      }
      const uninterrupted = await runMmds(['fetch', 'cftc', '--since', '2010'], reference, () => NOW);
      expect(uninterrupted.code, uninterrupted.stderr).toBe(0);

      // Killed as soon as the multi-year archive's batch is committed, while 2017 is ingested.
      const killed = await spawnMmdsKilled(
        ['fetch', 'cftc', '--since', '2010'],
        env,
        () => cftcBatches() > 0,
      );
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(cftcBatches()).toBe(1);

      // Run again: the 2017 file is fetched and stored; the archive stored before the kill is
      // skipped (304) or, if the kill fell between its batch and its validators, fetched and
      // ingested again, adding nothing. Either way nothing is stored twice.
      let from = other.requests.length;
      const resumed = await runMmds(['--json', 'fetch', 'cftc', '--since', '2010'], env, () => NOW);
      expect(resumed.code, resumed.stderr).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [archive, yearly] = seen(from);
      expect(archive).toMatch(new RegExp(`^${HISTORY}fin_fut_txt_2006_2016\\.zip (304|200)$`));
      expect(yearly).toBe(`${HISTORY}fut_fin_txt_2017.zip 200`);
      const added = (JSON.parse(resumed.stdout) as FetchJson).ingests.map(
        (ingest) => ingest.result.tables.cot_reports?.added ?? 0,
      );
      expect(added.reduce((sum, each) => sum + each, 0)).toBe(tff2017Lines(before2017Final));
      const stored = await storedReports(env.MMDS_DATA_DIR);
      expect(stored.length).toBe(count(RESUME_YEARS) + tff2017Lines(before2017Final));
      expect(new Set(stored.map((row) => row.split(' ').slice(1, 3).join(' '))).size).toBe(stored.length);
      expect(stored).toEqual(await storedReports(reference.MMDS_DATA_DIR));
      const staging = layout.batchStagingDir;
      expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);
      const verify = await runMmds(['verify'], env, () => NOW);
      expect(verify.code, verify.stderr + verify.stdout).toBe(0);

      // The CFTC adds the last two reports of 2017: `mmds update` fetches only the 2017 file.
      served2017 = zip2017Final;
      from = other.requests.length;
      const update = await runMmds(['update', '--source', 'cftc', '--no-build'], env, () => NOW);
      expect(update.code, update.stderr).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen(from)).toEqual([`${HISTORY}fut_fin_txt_2017.zip 200`]);
      const referenceUpdate = await runMmds(
        ['update', '--source', 'cftc', '--no-build'],
        reference,
        () => NOW,
      );
      expect(referenceUpdate.code, referenceUpdate.stderr).toBe(0);
      const updated = await storedReports(env.MMDS_DATA_DIR);
      expect(updated.length).toBe(count([...RESUME_YEARS, 'tff_fut_2017__FinFut17.txt']));
      expect(updated).toEqual(await storedReports(reference.MMDS_DATA_DIR));

      // A second update, forced to ask the publisher, changes nothing.
      const settled = hashTree(env.MMDS_DATA_DIR, (path) => !/(update|fetch)-state\.json$/.test(path));
      from = other.requests.length;
      const again = await runMmds(['update', '--source', 'cftc', '--no-build', '--force'], env, () => NOW);
      expect(again.code, again.stderr).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen(from)).toEqual([`${HISTORY}fut_fin_txt_2017.zip 304`]);
      expect(hashTree(env.MMDS_DATA_DIR, (path) => !/(update|fetch)-state\.json$/.test(path))).toEqual(
        settled,
      );
    } finally {
      await other.close();
    }
  });
});

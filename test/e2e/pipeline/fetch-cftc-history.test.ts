import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCftcFileByHand } from '../../helpers/cftc-file-reading.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { REPO_ROOT, SHARED_DATA } from '../../helpers/paths.ts';
import { runMmds } from '../../helpers/run-cli.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { hashTree } from './store-files.ts';

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
const count = (names: readonly string[]) =>
  names.reduce((sum, name) => sum + readCftcFileByHand(file(name)).lines.length, 0);

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

  it('fetches every archive of each family and year, every report once; a second run adds nothing', async () => {
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
    const before = hashTree(dataDir);
    for (const { argv, zips } of RUNS) {
      const run = await fetchCftc(argv);
      expect(run.code, run.stderr).toBe(0);
      expect(run.seen, argv.join(' ')).toEqual(zips.map((zip) => `GET ${HISTORY}${zip} 304`));
      expect((JSON.parse(run.stdout) as FetchJson).ingests).toEqual([]);
    }
    expect(hashTree(dataDir)).toEqual(before);
  });
});

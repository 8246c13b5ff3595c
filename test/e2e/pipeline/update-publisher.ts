import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createTar } from 'nanotar';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { SAMPLE_DATA, SHARED_DATA } from '../../helpers/paths.ts';
import {
  type AlfredRow,
  type BlsDataRow,
  createBlsApiEmulator,
  createFredApiEmulator,
  readRealBlsSeries,
  readRealPayemsVintages,
} from '../../helpers/publisher-apis.ts';

const shared = (path: string) => readFileSync(join(SHARED_DATA, path));
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

/** The TFF file with its newest report week held back, then whole: a new week appearing. */
export interface CftcWeeks {
  /** Serve every week of the real file from now on. */
  releaseLastWeek(): void;
  /** The report date that appears with releaseLastWeek. */
  lastWeek: string;
}

/** Every publisher of the service on one loopback server, in each publisher's URL layout. */
export interface UpdatePublisher {
  publisher: LoopbackPublisher;
  cftc: CftcWeeks;
  /** The FRED emulator's PAYEMS: only the 2025-08-01 vintage until addLaterVintage(). */
  addLaterVintage(): void;
  /** Environment that points every source of mmds at this server. */
  env(): Record<string, string>;
}

export const FRED_KEY = 'fred-test-key';

/**
 * Starts the loopback publisher with real files only: the CFTC TFF extract (its last week
 * withheld at first), the ECB history extract and daily XML, the ISO/UN/IANA/datahub lists, the
 * BLS API emulator answering the catalogued BLS series from real values (the recorded 2015 API
 * responses, the CPI-U index from the datahub CSV, payroll levels from the later PAYEMS
 * vintage), and the FRED emulator answering PAYEMS from the two real vintages.
 */
export async function startUpdatePublisher(): Promise<UpdatePublisher> {
  const tffText = shared('cftc/tff_futures_only_2026_selected_markets.txt').toString('latin1');
  const [header, ...rows] = tffText.split('\r\n').filter((line) => line !== '');
  const lastWeek = rows
    .map((row) => row.split(',')[2]!.trim())
    .sort()
    .at(-1)!;
  const zipOf = (kept: string[]) =>
    zipFiles({ 'FinFutYY.txt': Buffer.from(`${[header, ...kept].join('\r\n')}\r\n`, 'latin1') });
  // Built once each: the same bytes (and ETag) until the publisher adds the week.
  const withheld = zipOf(rows.filter((row) => row.split(',')[2]!.trim() !== lastWeek));
  const whole = zipOf(rows);
  let allWeeks = false;
  const tffZip = () => (allWeeks ? whole : withheld);
  const payems = readRealPayemsVintages();
  const [earlier] = payems.vintageDates;
  const earlierOnly = (): { vintageDates: string[]; rows: AlfredRow[] } => ({
    vintageDates: [earlier],
    rows: payems.rows
      .filter((row) => row.realtime_start === earlier)
      .map((row) => ({ ...row, realtime_end: '9999-12-31' })),
  });
  const fredSeries: Record<string, { vintageDates: readonly string[]; rows: readonly AlfredRow[] }> = {
    PAYEMS: earlierOnly(),
  };
  const publisher = await startLoopbackPublisher({
    files: {
      'cftc/files/dea/history/fut_fin_txt_2026.zip': tffZip,
      'ecb/stats/eurofxref/eurofxref-hist.zip': zipFiles({
        'eurofxref-hist.csv': readFileSync(
          join(SAMPLE_DATA, 'ecb/eurofxref-hist_2025-01-02_to_2026-04-13.csv'),
        ),
      }),
      'ecb/stats/eurofxref/eurofxref-daily.xml': shared('ecb/eurofxref-daily.xml'),
      'six/list-one.xml': shared('iso/iso4217_list_one_table_a1.xml'),
      'six/list-three.xml': shared('iso/iso4217_list_three_table_a3_historic.xml'),
      'mic/ISO10383_MIC.csv': shared('mic/ISO10383_MIC.csv'),
      'iana/tzdata-latest.tar.gz': Buffer.from(
        gzipSync(createTar([{ name: 'zone1970.tab', data: shared('tz/zone1970.tab') }])),
      ),
      'datahub/r/country-codes.csv': shared('iso/country-codes.csv'),
      'm49/tmp/UNSD-en.csv': shared('iso/unsd_m49_overview_en.csv'),
    },
    apis: [
      createBlsApiEmulator({ series: readCatalogBlsSeries() }),
      createFredApiEmulator({ series: fredSeries, apiKey: FRED_KEY }),
    ],
  });
  return {
    publisher,
    cftc: {
      lastWeek,
      releaseLastWeek: () => {
        allWeeks = true;
      },
    },
    addLaterVintage: () => {
      fredSeries.PAYEMS = { vintageDates: payems.vintageDates, rows: payems.rows };
    },
    env: () => ({
      MMDS_CFTC_BASE_URL: publisher.url('cftc/'),
      MMDS_ECB_BASE_URL: publisher.url('ecb/'),
      MMDS_ISO4217_BASE_URL: publisher.url('six/'),
      MMDS_MIC_BASE_URL: publisher.url('mic/'),
      MMDS_TZ_BASE_URL: publisher.url('iana/'),
      MMDS_COUNTRIES_BASE_URL: publisher.url('datahub/'),
      MMDS_M49_BASE_URL: publisher.url('m49/'),
      MMDS_BLS_BASE_URL: publisher.baseUrl,
      MMDS_FRED_BASE_URL: publisher.baseUrl,
      MMDS_FRED_API_KEY: FRED_KEY,
      MMDS_CFTC_REPORTS: 'tff',
      MMDS_FETCH_BACKOFF_MS: '1',
      MMDS_FETCH_RETRIES: '2',
      MMDS_FETCH_TIMEOUT_MS: '3000',
    }),
  };
}

/** The catalogued BLS series, each from real values in the API's row form. */
function readCatalogBlsSeries(): Record<string, BlsDataRow[]> {
  const series = readRealBlsSeries();
  const row = (period: string, value: string): BlsDataRow => {
    const [year, month] = period.split('-') as [string, string];
    return { year, period: `M${month}`, periodName: MONTHS[Number(month) - 1]!, value, footnotes: [{}] };
  };
  const cpi = shared('bls/datahub_cpi-us_cpiai.csv').toString('utf8').trim().split('\n').slice(1);
  series.CUUR0000SA0 = cpi.map((line) => {
    const [date, index] = line.split(',') as [string, string];
    return row(date.slice(0, 7), index);
  });
  const payrolls = shared('bls/fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv')
    .toString('utf8')
    .trim()
    .split('\n')
    .slice(1);
  series.CES0000000001 = payrolls.map((line) => {
    const [date, value] = line.split(',') as [string, string];
    return row(date.slice(0, 7), value.trim());
  });
  // Newest first, as the API answers.
  for (const rows of Object.values(series))
    rows.sort((a, b) => (a.year + a.period < b.year + b.period ? 1 : -1));
  return series;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Calendars } from '../../../src/calendar/types.ts';
import { cftcFetcher, fetchCftcFiles } from '../../../src/fetch/cftc-files.ts';
import { FetchError } from '../../../src/fetch/fetch-error.ts';
import { openFetchState } from '../../../src/fetch/fetch-state.ts';
import {
  type LoopbackPublisher,
  startLoopbackPublisher,
  zipFiles,
} from '../../helpers/loopback-publisher.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { loadShippedCalendars } from '../../helpers/shipped-calendars.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { createTestRequest, listFiles } from './fetch-request.ts';

const CFTC = join(SHARED_DATA, 'cftc');
const LEGACY_2025 = join(CFTC, 'legacy_futures_only_2025_annual.txt');
const TFF_2026 = join(CFTC, 'tff_futures_only_2026_FinFutYY.txt');
const DISAGG_2021 = join(CFTC, 'disaggregated_futures_only_2021_f_year.txt');
const HISTORY = 'cftc/files/dea/history/';

describe('the CFTC fetcher against a loopback publisher', () => {
  let publisher: LoopbackPublisher;
  let calendars: Calendars;
  let temp: ReturnType<typeof createTempDir>;

  beforeAll(async () => {
    calendars = await loadShippedCalendars();
    publisher = await startLoopbackPublisher({
      files: {
        [`${HISTORY}deacot2025.zip`]: zipFiles({ 'annual.txt': LEGACY_2025 }),
        [`${HISTORY}deacot2026.zip`]: zipFiles({ 'annual.txt': LEGACY_2025 }),
        [`${HISTORY}fut_fin_txt_2026.zip`]: zipFiles({ 'FinFutYY.txt': TFF_2026 }),
        [`${HISTORY}fut_disagg_txt_2021.zip`]: zipFiles({ 'f_year.txt': DISAGG_2021 }),
        // A multi-year archive whose member sits in a subfolder.
        [`${HISTORY}fut_disagg_txt_hist_2006_2016.zip`]: zipFiles({ 'hist/F_Disagg06_16.txt': DISAGG_2021 }),
      },
    });
  });
  afterAll(() => publisher.close());
  beforeEach(() => {
    temp = createTempDir();
    publisher.requests.length = 0;
  });
  afterEach(() => temp.remove());

  function request(now: string, state = openFetchState(join(temp.dir, 'data', 'fetch-state.json'))) {
    return createTestRequest({
      baseUrl: publisher.url('cftc'),
      workDir: join(temp.dir, 'work'),
      state,
      now: new Date(now),
    });
  }

  it('downloads and unpacks the yearly zips into cftc ingests with provenance', async () => {
    const result = await fetchCftcFiles(request('2026-03-20T12:00:00Z'), {
      calendar: calendars.cftc,
      reports: ['legacy', 'tff'],
      combined: false,
    });
    expect(result.notices).toEqual([]);
    expect(result.ingests.map((ingest) => ingest.source)).toEqual(['cftc', 'cftc']);
    const [legacy, tff] = result.ingests.map((ingest) => ingest.files[0]!);
    expect(legacy?.member).toBe('annual.txt');
    expect(legacy?.url).toBe(publisher.url(`${HISTORY}deacot2026.zip`));
    expect(readFileSync(legacy!.path)).toEqual(readFileSync(LEGACY_2025));
    expect(tff?.member).toBe('FinFutYY.txt');
    expect(readFileSync(tff!.path)).toEqual(readFileSync(TFF_2026));
    expect(tff?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(tff?.etag).not.toBeNull();
  });

  it('fetches a pre-2017 year through the multi-year archive and tolerates a member in a folder', async () => {
    const result = await fetchCftcFiles(request('2026-03-20T12:00:00Z'), {
      calendar: calendars.cftc,
      reports: ['disaggregated'],
      combined: false,
      year: 2012,
    });
    const [file] = result.ingests[0]!.files;
    expect(file?.member).toBe('hist/F_Disagg06_16.txt');
    expect(readFileSync(file!.path)).toEqual(readFileSync(DISAGG_2021));
    expect(publisher.requests.map((entry) => entry.path)).toEqual([
      `${HISTORY}fut_disagg_txt_hist_2006_2016.zip`,
    ]);
  });

  it("reports the current year's missing file in early January as a notice, not a failure", async () => {
    const result = await fetchCftcFiles(request('2027-01-03T10:00:00Z'), {
      calendar: calendars.cftc,
      reports: ['legacy'],
      combined: false,
    });
    expect(result.notices).toEqual([
      "deacot2027.zip is not published yet: the CFTC's first report of 2027 (positions of 2027-01-05) comes out on 2027-01-08; nothing to fetch for 2027 until then",
    ]);
    // The previous year's file, which receives December's last reports in January, is fetched.
    expect(result.ingests).toHaveLength(1);
    expect(result.ingests[0]?.files[0]?.url).toBe(publisher.url(`${HISTORY}deacot2026.zip`));
  });

  it("fails on a past year's missing file, and on the current year's once it is overdue", async () => {
    const past = await fetchCftcFiles(request('2026-03-20T12:00:00Z'), {
      calendar: calendars.cftc,
      reports: ['legacy'],
      combined: false,
      year: 2024,
    }).catch((error: unknown) => error);
    expect(past).toBeInstanceOf(FetchError);
    expect((past as FetchError).message).toContain('HTTP 404: the CFTC has no deacot2024.zip');
    const overdue = await fetchCftcFiles(request('2027-02-20T12:00:00Z'), {
      calendar: calendars.cftc,
      reports: ['legacy'],
      combined: false,
    }).catch((error: unknown) => error);
    expect(overdue).toBeInstanceOf(FetchError);
  });

  it('answers unchanged on the second run after the state was committed', async () => {
    const stateFile = join(temp.dir, 'data', 'fetch-state.json');
    const first = await fetchCftcFiles(request('2026-03-20T12:00:00Z', openFetchState(stateFile)), {
      calendar: calendars.cftc,
      reports: ['tff'],
      combined: false,
    });
    openFetchState(stateFile).commit(first.ingests.flatMap((ingest) => ingest.files));
    const second = await fetchCftcFiles(request('2026-03-20T13:00:00Z', openFetchState(stateFile)), {
      calendar: calendars.cftc,
      reports: ['tff'],
      combined: false,
    });
    expect(second).toEqual({
      ingests: [],
      unchanged: [publisher.url(`${HISTORY}fut_fin_txt_2026.zip`)],
      notices: [],
    });
    expect(publisher.requests.at(-1)?.status).toBe(304);
  });

  it('leaves no partial file behind when the archive is cut off', async () => {
    publisher.setFault(`${HISTORY}fut_fin_txt_2026.zip`, 'truncate');
    try {
      const error = await fetchCftcFiles(request('2026-03-20T12:00:00Z'), {
        calendar: calendars.cftc,
        reports: ['tff'],
        combined: false,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FetchError);
      expect(listFiles(join(temp.dir, 'work'))).toEqual([]);
    } finally {
      publisher.setFault(`${HISTORY}fut_fin_txt_2026.zip`, null);
    }
  });

  it('declares the official root', () => {
    expect(cftcFetcher.defaultBaseUrl).toBe('https://www.cftc.gov/');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blsApiFetcher } from '../../../src/fetch/bls-api.ts';
import { BLS_API_V2, planBlsQueries } from '../../../src/fetch/bls-api-limits.ts';
import { checkBlsResponse } from '../../../src/fetch/bls-api-response.ts';
import type { FetchResult } from '../../../src/fetch/types.ts';
import { type LoopbackPublisher, startLoopbackPublisher } from '../../helpers/loopback-publisher.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import {
  type BlsApiEmulator,
  type BlsApiEmulatorOptions,
  type BlsDataRow,
  createBlsApiEmulator,
  readRealBlsSeries,
} from '../../helpers/publisher-apis.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { createTestRequest, expectFetchError } from './fetch-request.ts';

const KEY = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const REAL = readRealBlsSeries();
const CPS = ['LNS14000000', 'LNS12000000', 'LNS11000000', 'LNS13000000'];
const ND_MINING = 'SMS38000001000000001';

/**
 * `count` series ids for batching tests. The ids are test aliases; every one serves the real
 * rows of LNS14000000 (2015), so no value is invented.
 */
function aliasSeries(count: number): Record<string, BlsDataRow[]> {
  const rows = REAL.LNS14000000 ?? [];
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`LNSALIAS${String(index).padStart(3, '0')}`, rows]),
  );
}

describe('blsApiFetcher against the emulated BLS Public Data API', () => {
  let publisher: LoopbackPublisher | undefined;
  let emulator: BlsApiEmulator;
  let temp: ReturnType<typeof createTempDir>;

  async function start(options: Partial<BlsApiEmulatorOptions> = {}) {
    emulator = createBlsApiEmulator({ series: REAL, ...options });
    await publisher?.close();
    publisher = await startLoopbackPublisher({ files: {}, apis: [emulator] });
    return createTestRequest({ baseUrl: publisher.baseUrl, workDir: temp.dir });
  }

  beforeEach(() => {
    temp = createTempDir('bls-api-test-');
  });
  afterEach(async () => {
    await publisher?.close();
    publisher = undefined;
    temp.remove();
  });

  it('asks v2 with the key for the real series and saves the answer as one bls ingest', async () => {
    const request = await start({ validKeys: [KEY] });
    const result = await blsApiFetcher.fetch(request, {
      seriesIds: [...CPS, ND_MINING],
      startYear: 2014,
      endYear: 2015,
      apiKey: KEY,
    });
    expect(emulator.requests.map((call) => [call.method, call.path])).toEqual([
      ['POST', '/publicAPI/v2/timeseries/data/'],
    ]);
    expect(emulator.bodies()).toEqual([
      {
        seriesid: [...CPS, ND_MINING],
        startyear: '2014',
        endyear: '2015',
        registrationkey: KEY,
        catalog: false,
        calculations: false,
        annualaverage: false,
      },
    ]);
    expect(result.ingests).toHaveLength(1);
    const [ingest] = result.ingests;
    expect(ingest?.source).toBe('bls');
    expect(ingest?.files).toHaveLength(1);
    const file = ingest?.files[0];
    expect(file?.path.startsWith(temp.dir)).toBe(true);
    expect(file?.url).toBe(
      `${request.baseUrl}publicAPI/v2/timeseries/data/#startyear=2014&endyear=2015&seriesid=${[...CPS, ND_MINING].join(',')}`,
    );
    const saved = JSON.parse(readFileSync(file?.path ?? '', 'utf8'));
    expect(saved.status).toBe('REQUEST_SUCCEEDED');
    expect(saved.Results.series[0].data[0]).toMatchObject({ year: '2015', period: 'M12', value: '5.0' });
    expect(saved.Results.series[4].data).toHaveLength(24);
    // The CPS responses hold 2015 only: the API says so per year, which is a notice, not a failure.
    expect(result.notices).toContain('BLS API: no data for LNS14000000 in 2014');
    expectNoKey(result, request.lines);
  });

  it('splits 60 series into 50 + 10 with a key', async () => {
    const request = await start({ series: aliasSeries(60) });
    const ids = Object.keys(aliasSeries(60));
    const result = await blsApiFetcher.fetch(request, {
      seriesIds: ids,
      startYear: 2015,
      endYear: 2015,
      apiKey: KEY,
    });
    const bodies = emulator.bodies();
    expect(bodies.map((body) => (body.seriesid as string[]).length)).toEqual([50, 10]);
    expect(bodies.flatMap((body) => body.seriesid as string[])).toEqual(ids);
    expect(bodies.every((body) => body.startyear === '2015' && body.endyear === '2015')).toBe(true);
    expect(result.ingests[0]?.files).toHaveLength(2);
    expect(new Set(result.ingests[0]?.files.map((file) => file.path)).size).toBe(2);
  });

  it('splits a 25-year span into 20 + 5 years with a key, within the API limits', async () => {
    const request = await start();
    const result = await blsApiFetcher.fetch(request, {
      seriesIds: CPS,
      startYear: 1991,
      endYear: 2015,
      apiKey: KEY,
    });
    expect(emulator.bodies().map((body) => [body.startyear, body.endyear])).toEqual([
      ['1991', '2010'],
      ['2011', '2015'],
    ]);
    expect(result.notices.some((notice) => notice.includes('Year range has been reduced'))).toBe(false);
  });

  it('uses v1 and its limits (25 series, 10 years) without a key', async () => {
    const request = await start({ series: aliasSeries(30) });
    const ids = Object.keys(aliasSeries(30));
    await blsApiFetcher.fetch(request, { seriesIds: ids, startYear: 2004, endYear: 2015, apiKey: null });
    expect(new Set(emulator.requests.map((call) => call.path))).toEqual(
      new Set(['/publicAPI/v1/timeseries/data/']),
    );
    const bodies = emulator.bodies();
    expect(bodies.map((body) => [(body.seriesid as string[]).length, body.startyear, body.endyear])).toEqual([
      [25, '2004', '2013'],
      [5, '2004', '2013'],
      [25, '2014', '2015'],
      [5, '2014', '2015'],
    ]);
    for (const body of bodies) expect(Object.keys(body).sort()).toEqual(['endyear', 'seriesid', 'startyear']);
  });

  it('turns the daily threshold into a plain FetchError that suggests a key', async () => {
    const request = await start({ series: aliasSeries(30), quotaPerDay: 1 });
    const error = await expectFetchError(
      blsApiFetcher.fetch(request, {
        seriesIds: Object.keys(aliasSeries(30)),
        startYear: 2015,
        endYear: 2015,
        apiKey: null,
      }),
    );
    expect(emulator.requests).toHaveLength(2);
    expect(error.message).toMatch(
      /BLS API: daily query limit reached \(Request could not be serviced, as the daily threshold .* has been reached\.\); try again tomorrow or set MMDS_BLS_API_KEY/,
    );
  });

  it('keeps a refused or over-quota key out of the error message', async () => {
    let request = await start({ quotaPerDay: 0 });
    let error = await expectFetchError(
      blsApiFetcher.fetch(request, { seriesIds: CPS, startYear: 2015, endYear: 2015, apiKey: KEY }),
    );
    expect(error.message).toMatch(
      /daily query limit reached .*<key>.*; try again tomorrow \(a registered key/,
    );
    expect(error.message).not.toContain(KEY);

    request = await start({ validKeys: ['another-key'] });
    error = await expectFetchError(
      blsApiFetcher.fetch(request, { seriesIds: CPS, startYear: 2015, endYear: 2015, apiKey: KEY }),
    );
    expect(error.message).toContain(
      'BLS API: the registration key was refused (The key:<key> provided by the User is invalid.)',
    );
    expect(error.message).not.toContain(KEY);
  });

  it('names a series the API says does not exist', async () => {
    const request = await start();
    const error = await expectFetchError(
      blsApiFetcher.fetch(request, {
        seriesIds: ['LNS14000000', 'NOPE0000000'],
        startYear: 2015,
        endYear: 2015,
        apiKey: KEY,
      }),
    );
    expect(error.message).toContain('BLS API: series NOPE0000000 does not exist; check the series id');
  });

  it('reports a failed request (the recorded error response) in the API own words', () => {
    const text = readFileSync(join(SHARED_DATA, 'bls', 'bls_api_v2_error_bad_end_year.json'), 'utf8');
    expect(() => checkBlsResponse('https://api.bls.gov/publicAPI/v2/timeseries/data/', text, KEY)).toThrow(
      'BLS API: the request failed (REQUEST_FAILED_INVALID_PARAMETERS: End year is invalid.)',
    );
  });

  it('rides out two 503s (back-off from downloadFile)', async () => {
    const request = await start();
    emulator.failNext(2, 503);
    const result = await blsApiFetcher.fetch(request, {
      seriesIds: CPS,
      startYear: 2015,
      endYear: 2015,
      apiKey: KEY,
    });
    expect(emulator.requests).toHaveLength(3);
    expect(result.ingests[0]?.files).toHaveLength(1);
    expect(request.lines.filter((line) => line.includes('HTTP 503'))).toHaveLength(2);
    expectNoKey(result, request.lines);
  });
});

describe('the BLS API emulator answers like the API', () => {
  let publisher: LoopbackPublisher | undefined;
  afterEach(async () => {
    await publisher?.close();
    publisher = undefined;
  });

  async function post(options: BlsApiEmulatorOptions, version: 'v1' | 'v2', body: object) {
    publisher = await startLoopbackPublisher({ files: {}, apis: [createBlsApiEmulator(options)] });
    return postRaw(publisher.baseUrl, body, version);
  }

  it('cuts a range over the limit to the first 20 years and says so', async () => {
    const answer = await post({ series: REAL }, 'v2', {
      seriesid: [ND_MINING],
      startyear: '1996',
      endyear: '2020',
      registrationkey: KEY,
    });
    expect(answer.status).toBe('REQUEST_SUCCEEDED');
    expect(answer.message).toContain('Year range has been reduced to the system-allowed limit of 20 years.');
    expect(answer.Results.series[0]?.data).toHaveLength(24);
  });

  it('refuses more series than the version allows with REQUEST_NOT_PROCESSED', async () => {
    const answer = await post({ series: REAL }, 'v1', {
      seriesid: Object.keys(aliasSeries(26)),
      startyear: '2015',
      endyear: '2015',
    });
    expect(answer).toMatchObject({ status: 'REQUEST_NOT_PROCESSED', Results: {} });
    expect(answer.message[0]).toMatch(/25 series/);
  });

  it('answers an invalid end year with the recorded error response', async () => {
    const answer = await post({ series: REAL }, 'v2', { seriesid: CPS, startyear: '2015', endyear: 'x' });
    expect(answer).toEqual({
      status: 'REQUEST_FAILED_INVALID_PARAMETERS',
      responseTime: 0,
      message: ['End year is invalid.'],
      Results: {},
    });
  });
});

describe('planBlsQueries', () => {
  it('refuses ids and years the API would refuse', () => {
    expect(() => planBlsQueries([], 2015, 2015, BLS_API_V2)).toThrow(/no series ids/);
    expect(() => planBlsQueries(['lns14000000'], 2015, 2015, BLS_API_V2)).toThrow(/not a BLS series id/);
    expect(() => planBlsQueries(['LNS14000000'], 2016, 2015, BLS_API_V2)).toThrow(/after end year/);
    expect(planBlsQueries(['A1', 'A1'], 2015, 2015, BLS_API_V2)).toEqual([
      { seriesIds: ['A1'], startYear: 2015, endYear: 2015 },
    ]);
  });
});

async function postRaw(baseUrl: string, body: object, version: 'v1' | 'v2' = 'v2') {
  const response = await fetch(`${baseUrl}publicAPI/${version}/timeseries/data/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as {
    status: string;
    message: string[];
    Results: { series: Array<{ data: unknown[] }> };
  };
}

function expectNoKey(result: FetchResult, lines: string[]): void {
  expect(JSON.stringify(result)).not.toContain(KEY);
  expect(lines.join('\n')).not.toContain(KEY);
}

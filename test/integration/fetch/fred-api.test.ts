import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fredApiFetcher, splitIntoRanges } from '../../../src/fetch/fred-api.ts';
import type { FetchResult } from '../../../src/fetch/types.ts';
import { type LoopbackPublisher, startLoopbackPublisher } from '../../helpers/loopback-publisher.ts';
import {
  createFredApiEmulator,
  type FredApiEmulator,
  type FredApiEmulatorOptions,
  readRealPayemsVintages,
} from '../../helpers/publisher-apis.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';
import { createTestRequest, expectFetchError } from './fetch-request.ts';

const KEY = 'abcdef0123456789abcdef0123456789';
const PAYEMS = readRealPayemsVintages();
const SERIES = [{ fredId: 'PAYEMS', seriesKey: 'bls.CES0000000001' }];

describe('fredApiFetcher against the emulated FRED/ALFRED API', () => {
  let publisher: LoopbackPublisher | undefined;
  let emulator: FredApiEmulator;
  let temp: ReturnType<typeof createTempDir>;

  async function start(options: Partial<FredApiEmulatorOptions> = {}) {
    emulator = createFredApiEmulator({ series: { PAYEMS }, apiKey: KEY, ...options });
    await publisher?.close();
    publisher = await startLoopbackPublisher({ files: {}, apis: [emulator] });
    return createTestRequest({ baseUrl: publisher.baseUrl, workDir: temp.dir });
  }

  const observationCalls = () =>
    emulator.requests.filter((call) => call.path === '/fred/series/observations');

  beforeEach(() => {
    temp = createTempDir('fred-api-test-');
  });
  afterEach(async () => {
    await publisher?.close();
    publisher = undefined;
    temp.remove();
  });

  it('gets the vintage dates, then the observations of the whole real-time history', async () => {
    const request = await start();
    const result = await fredApiFetcher.fetch(request, { series: SERIES, apiKey: KEY });
    expect(emulator.requests.map((call) => call.path)).toEqual([
      '/fred/series/vintagedates',
      '/fred/series/observations',
    ]);
    const [vintages, observations] = emulator.requests;
    expect(Object.fromEntries(vintages?.query ?? [])).toMatchObject({
      series_id: 'PAYEMS',
      realtime_start: '1776-07-04',
      realtime_end: '9999-12-31',
      file_type: 'json',
      api_key: KEY,
    });
    expect(Object.fromEntries(observations?.query ?? [])).toMatchObject({
      series_id: 'PAYEMS',
      realtime_start: '2025-08-01',
      realtime_end: '9999-12-31',
      output_type: '1',
      file_type: 'json',
      offset: '0',
    });
    expect(result.ingests).toHaveLength(1);
    const ingest = result.ingests[0];
    expect(ingest?.source).toBe('fred');
    expect(ingest?.options).toEqual({ series: 'bls.CES0000000001', format: 'alfred-json' });
    expect(ingest?.files).toHaveLength(1);
    const file = ingest?.files[0];
    expect(file?.url).toBe(
      `${request.baseUrl}fred/series/observations?series_id=PAYEMS&realtime_start=2025-08-01&realtime_end=9999-12-31&output_type=1&file_type=json&limit=100000&offset=0`,
    );
    const body = JSON.parse(readFileSync(file?.path ?? '', 'utf8'));
    expect(body.count).toBe(64);
    expect(body.observations.filter((row: { date: string }) => row.date === '2025-07-01')).toEqual([
      { realtime_start: '2025-08-01', realtime_end: '2026-10-01', date: '2025-07-01', value: '159539' },
      { realtime_start: '2026-10-02', realtime_end: '9999-12-31', date: '2025-07-01', value: '158542' },
    ]);
    expectNoKey(result, request.lines, temp.dir);
  });

  it('asks for at most the allowed number of vintage dates per request, tiling the history', async () => {
    const request = await start({ maxVintageDates: 1 });
    const result = await fredApiFetcher.fetch(request, {
      series: SERIES,
      apiKey: KEY,
      vintageDatesPerRequest: 1,
    });
    expect(
      observationCalls().map((call) => [call.query.get('realtime_start'), call.query.get('realtime_end')]),
    ).toEqual([
      ['2025-08-01', '2026-10-01'],
      ['2026-10-02', '9999-12-31'],
    ]);
    expect(result.ingests[0]?.files).toHaveLength(2);
  });

  it('turns FRED refusing too many vintage dates into a FetchError without the key', async () => {
    const request = await start({ maxVintageDates: 1 });
    const error = await expectFetchError(fredApiFetcher.fetch(request, { series: SERIES, apiKey: KEY }));
    expect(error.status).toBe(400);
    expect(error.url).not.toContain(KEY);
    expect(error.message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/fred\/series\/observations\?series_id=PAYEMS&.*FRED API: HTTP 400/,
    );
    expect(error.message).not.toContain(KEY);
  });

  it('pages through vintage dates and observations', async () => {
    const request = await start({ maxPageSize: 1 });
    const result = await fredApiFetcher.fetch(request, { series: SERIES, apiKey: KEY });
    const vintageCalls = emulator.requests.filter((call) => call.path === '/fred/series/vintagedates');
    expect(vintageCalls.map((call) => call.query.get('offset'))).toEqual(['0', '1']);
    expect(observationCalls()).toHaveLength(64);
    expect(observationCalls().at(-1)?.query.get('offset')).toBe('63');
    expect(result.ingests[0]?.files).toHaveLength(64);
  });

  it('rides out two 503s without printing the key in the retry lines', async () => {
    const request = await start();
    emulator.failNext(2, 503);
    const result = await fredApiFetcher.fetch(request, { series: SERIES, apiKey: KEY });
    expect(emulator.requests).toHaveLength(4);
    const retries = request.lines.filter((line) => line.includes('HTTP 503'));
    expect(retries).toHaveLength(2);
    expect(retries.join('\n')).toContain('fred/series/vintagedates?series_id=PAYEMS');
    expectNoKey(result, request.lines, temp.dir);
  });

  it('refuses to start without a key, and reports a refused key or an unknown series without it', async () => {
    let request = await start();
    let error = await expectFetchError(fredApiFetcher.fetch(request, { series: SERIES, apiKey: '' }));
    expect(error.message).toContain('FRED API: no API key; set MMDS_FRED_API_KEY');
    expect(emulator.requests).toHaveLength(0);

    request = await start({ apiKey: 'another-key' });
    error = await expectFetchError(fredApiFetcher.fetch(request, { series: SERIES, apiKey: KEY }));
    expect(error.message).toMatch(/HTTP 400.*MMDS_FRED_API_KEY is not a registered key/);
    expect(error.message).not.toContain(KEY);

    request = await start();
    error = await expectFetchError(
      fredApiFetcher.fetch(request, {
        series: [{ fredId: 'NOSUCHSERIES', seriesKey: 'fred.NOSUCHSERIES' }],
        apiKey: KEY,
      }),
    );
    expect(error.message).toMatch(/series_id=NOSUCHSERIES.*the series id may not exist/);
  });
});

describe('splitIntoRanges', () => {
  it('tiles the history with runs of at most n vintage dates', () => {
    expect(splitIntoRanges(['2020-01-10', '2020-02-07', '2020-03-06'], 2)).toEqual([
      { start: '2020-01-10', end: '2020-03-05' },
      { start: '2020-03-06', end: '9999-12-31' },
    ]);
    expect(splitIntoRanges(['2020-01-10'], 2000)).toEqual([{ start: '2020-01-10', end: '9999-12-31' }]);
  });
});

function expectNoKey(result: FetchResult, lines: string[], workDir: string): void {
  expect(JSON.stringify(result)).not.toContain(KEY);
  expect(lines.join('\n')).not.toContain(KEY);
  for (const ingest of result.ingests) {
    for (const file of ingest.files) expect(readFileSync(file.path, 'utf8')).not.toContain(KEY);
  }
  expect(workDir).not.toContain(KEY);
}

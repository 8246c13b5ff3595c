import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fredApiFetcher } from '../../../src/fetch/fred-api.ts';
import { fredSource } from '../../../src/ingest/fred.ts';
import { InputError } from '../../../src/ingest/input-error.ts';
import type { IngestContext, IngestOptions } from '../../../src/ingest/source.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture, expectInputError, INGEST_NOW } from '../../helpers/ingest-fixture.ts';
import { type LoopbackPublisher, startLoopbackPublisher } from '../../helpers/loopback-publisher.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';
import { createFredApiEmulator, readRealPayemsVintages } from '../../helpers/publisher-apis.ts';
import { createTestRequest } from '../../integration/fetch/fetch-request.ts';

const VINTAGE_2025_08_02 = join(SHARED_DATA, 'bls', 'fred_PAYEMS_vintage_2025-08-02.csv');
const LATER_VINTAGE = join(
  SHARED_DATA,
  'bls',
  'fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv',
);
/** When `mmds fetch` collected the files, for CSVs without a vintage date. */
const COLLECTED = '2026-11-20T09:15:00Z';

const fixture = createIngestFixture('fred-test-');

const { writeTemp } = fixture;

function context(options: IngestOptions, collectedAt: string | null): IngestContext {
  return { ...fixture.context(options), collectedAt };
}

async function parse(files: string[], options: IngestOptions = {}, collectedAt: string | null = COLLECTED) {
  const batch = await fredSource.parse(files, context(options, collectedAt));
  const observations =
    batch.observations && (await readFactRelationRows(fixture.connection, batch.observations));
  return { batch, observations: observations ?? [] };
}

function valueAt(observations: { period: string; value: number }[], period: string): number | undefined {
  return observations.find((o) => o.period === period)?.value;
}

describe('fredSource: real PAYEMS vintages', () => {
  it('reads the 2025-08-02 vintage: 1,039 months of fred.PAYEMS', async () => {
    const { batch, observations } = await parse([VINTAGE_2025_08_02]);
    expect(batch.rows_read).toBe(1039);
    expect(batch.rows_skipped).toBe(0);
    expect(observations).toHaveLength(1039);
    expect(observations[0]).toEqual({
      series_key: 'fred.PAYEMS',
      period: '1939-01',
      value: 29923,
      source_ref: 'fred_PAYEMS_vintage_2025-08-02.csv:2',
      observed_at: COLLECTED,
      observed_at_method: 'collected',
      correction: { observed_at: COLLECTED, method: 'collected' },
      verification_status: 'unverified',
      confidence: 0.9,
      data_class: 'official',
    });
    expect(observations.at(-1)).toMatchObject({
      period: '2025-07',
      value: 159539,
      source_ref: 'fred_PAYEMS_vintage_2025-08-02.csv:1040',
    });
    // The Aug 1, 2025 release: Jul +73, Jun +14, May +19.
    const change = (later: string, earlier: string) =>
      (valueAt(observations, later) ?? Number.NaN) - (valueAt(observations, earlier) ?? Number.NaN);
    expect([
      change('2025-07', '2025-06'),
      change('2025-06', '2025-05'),
      change('2025-05', '2025-04'),
    ]).toEqual([73, 14, 19]);
  });

  it('files values under --series and times them at the --vintage date (end of a day without a release)', async () => {
    // 2025-08-01 had an Employment Situation release: a vintage of that day is known from 08:30 New York.
    const onRelease = await parse([VINTAGE_2025_08_02], {
      series: 'bls.CES0000000001',
      vintage: '2025-08-01',
    });
    expect(onRelease.observations[0]?.observed_at).toBe('2025-08-01T12:30:00Z');
    const { observations } = await parse([VINTAGE_2025_08_02], {
      series: 'bls.CES0000000001',
      vintage: '2025-08-02',
    });
    expect(new Set(observations.map((o) => o.series_key))).toEqual(new Set(['bls.CES0000000001']));
    expect(new Set(observations.map((o) => o.observed_at))).toEqual(new Set(['2025-08-03T04:59:59Z']));
    expect(new Set(observations.map((o) => o.observed_at_method))).toEqual(new Set(['vintage']));
  });

  it('lets --observed-at win over --vintage', async () => {
    const { observations } = await parse([VINTAGE_2025_08_02], {
      vintage: '2025-08-02',
      observedAt: '2025-08-02T14:00:00Z',
    });
    expect(observations[0]).toMatchObject({
      observed_at: '2025-08-02T14:00:00Z',
      observed_at_method: 'collected',
      correction: { observed_at: '2025-08-02T14:00:00Z', method: 'collected' },
    });
  });

  it('reads the later date,value vintage with --series; July 2025 is revised by -997', async () => {
    const { batch, observations } = await parse([LATER_VINTAGE], { series: 'bls.CES0000000001' });
    expect(batch.rows_read).toBe(39);
    expect(observations).toHaveLength(39);
    expect(observations[0]).toMatchObject({
      series_key: 'bls.CES0000000001',
      period: '2023-07',
      value: 156043,
    });
    expect(observations.at(-1)).toMatchObject({ period: '2026-09', value: 159044 });
    const earlier = (await parse([VINTAGE_2025_08_02])).observations;
    const later = valueAt(observations, '2025-07') ?? Number.NaN;
    expect(later - (valueAt(earlier, '2025-07') ?? Number.NaN)).toBe(-997);
    expect(later - (valueAt(observations, '2025-06') ?? Number.NaN)).toBe(64);
  });

  it('refuses a date,value file without --series', async () => {
    await expect(parse([LATER_VINTAGE])).rejects.toThrow(InputError);
    await expect(parse([LATER_VINTAGE])).rejects.toThrow(
      /:1: header date,value does not name the series: pass --series/,
    );
  });

  it('refuses two vintages of one series at the same knowledge time', async () => {
    await expect(parse([VINTAGE_2025_08_02, LATER_VINTAGE], { series: 'bls.CES0000000001' })).rejects.toThrow(
      /bls\.CES0000000001 2023-07 observed at 2026-11-20T09:15:00Z is also in fred_PAYEMS_vintage_2025-08-02\.csv:\d+ with a different value \(156043 here, 156019 there\): ingest different vintages separately/,
    );
  });

  it('keeps one copy of a file ingested twice at the same knowledge time', async () => {
    const { batch, observations } = await parse([LATER_VINTAGE, LATER_VINTAGE], {
      series: 'bls.CES0000000001',
    });
    expect(batch.rows_read).toBe(78);
    expect(observations).toHaveLength(39);
  });
});

describe('fredSource: knowledge time of CSV downloads', () => {
  it('never stamps a file of unknown age with the clock', async () => {
    const error = await expectInputError(
      parse([VINTAGE_2025_08_02], {}, null),
      'fred_PAYEMS_vintage_2025-08-02.csv',
    );
    expect(error.message).toMatch(/pass --vintage YYYY-MM-DD .* or --observed-at/);
    expect(error.message).not.toContain(INGEST_NOW);
  });

  it('takes the vintage date or --observed-at when the collection time is unknown', async () => {
    const vintage = await parse([VINTAGE_2025_08_02], { vintage: '2025-08-02' }, null);
    expect(vintage.observations[0]).toMatchObject({
      observed_at: '2025-08-03T04:59:59Z',
      observed_at_method: 'vintage',
      correction: { observed_at: '2025-08-03T04:59:59Z', method: 'vintage' },
    });
    const override = await parse([VINTAGE_2025_08_02], { observedAt: '2025-08-03T10:00:00Z' }, null);
    expect(override.observations[0]).toMatchObject({
      observed_at: '2025-08-03T10:00:00Z',
      observed_at_method: 'collected',
    });
  });

  it('prefers the vintage date to the collection time', async () => {
    const { observations } = await parse([VINTAGE_2025_08_02], { vintage: '2025-08-02' }, COLLECTED);
    expect(observations[0]?.observed_at).toBe('2025-08-03T04:59:59Z');
  });
});

describe('fredSource: frequency inference', () => {
  it('files first-of-quarter dates as YYYY-Qn, with a gap and a missing value', async () => {
    const file = writeTemp(
      'GDP.csv',
      'observation_date,GDP\n2024-01-01,28624.069\n2024-04-01,29016.714\n2024-07-01,.\n2025-01-01,29962.047\n',
    );
    const { batch, observations } = await parse([file]);
    expect(batch.rows_read).toBe(4);
    expect(batch.rows_skipped).toBe(1);
    expect(observations.map((o) => [o.series_key, o.period, o.value])).toEqual([
      ['fred.GDP', '2024-Q1', 28624.069],
      ['fred.GDP', '2024-Q2', 29016.714],
      ['fred.GDP', '2025-Q1', 29962.047],
    ]);
  });

  it('files January-first yearly dates as YYYY', async () => {
    const file = writeTemp('annual.csv', 'DATE,GDPA\n2022-01-01,26006.893\n2023-01-01,27720.709\n');
    const { observations } = await parse([file]);
    expect(observations.map((o) => o.period)).toEqual(['2022', '2023']);
  });

  it('files other dates as YYYY-MM-DD', async () => {
    const file = writeTemp(
      'daily.csv',
      'observation_date,DEXUSEU\n2025-01-01,.\n2025-01-02,1.0321\n2025-01-03,1.0299\n',
    );
    const { batch, observations } = await parse([file]);
    expect(batch.rows_skipped).toBe(1);
    expect(observations.map((o) => [o.series_key, o.period])).toEqual([
      ['fred.DEXUSEU', '2025-01-02'],
      ['fred.DEXUSEU', '2025-01-03'],
    ]);
  });
});

describe('fredSource: bad input', () => {
  it('refuses a non-date in the date column', async () => {
    const file = writeTemp('bad-date.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-02-30,30100\n');
    await expect(parse([file])).rejects.toThrow(
      'bad-date.csv:3: column "DATE": expected a date YYYY-MM-DD, got "1939-02-30"',
    );
  });

  it('refuses a non-number value', async () => {
    const file = writeTemp('bad-value.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-02-01,many\n');
    await expect(parse([file])).rejects.toThrow(
      'bad-value.csv:3: column "PAYEMS": expected a number, got "many"',
    );
  });

  it('refuses an empty file and a header-only file', async () => {
    await expect(parse([writeTemp('empty.csv', '')])).rejects.toThrow('empty.csv: file is empty');
    await expect(parse([writeTemp('header.csv', 'DATE,PAYEMS\n')])).rejects.toThrow(
      'header.csv:1: no data rows',
    );
  });

  it('refuses an unknown header', async () => {
    const cpi = join(SHARED_DATA, 'bls', 'datahub_cpi-us_cpiai.csv');
    await expect(parse([cpi])).rejects.toThrow(
      'datahub_cpi-us_cpiai.csv:1: unknown header "Date,Index,Inflation"',
    );
    const file = writeTemp('three.csv', 'DATE,A,B\n2020-01-01,1,2\n');
    await expect(parse([file])).rejects.toThrow('three.csv:1: unknown header "DATE,A,B"');
  });

  it('refuses a repeated date', async () => {
    const file = writeTemp('repeat.csv', 'DATE,PAYEMS\n1939-01-01,29923\n1939-01-01,29923\n');
    await expect(parse([file])).rejects.toThrow('repeat.csv:3: duplicate date 1939-01-01 (also line 2)');
  });

  it('refuses a malformed --series or --vintage', async () => {
    await expect(parse([VINTAGE_2025_08_02], { series: 'PAYEMS' })).rejects.toThrow(
      /--series "PAYEMS" is not a series key/,
    );
    await expect(parse([VINTAGE_2025_08_02], { series: 'BLS.CES0000000001' })).rejects.toThrow(/--series/);
    await expect(parse([VINTAGE_2025_08_02], { vintage: '2025-8-2' })).rejects.toThrow(
      /--vintage "2025-8-2" is not a date/,
    );
    await expect(parse([VINTAGE_2025_08_02], { vintage: '2025-02-30' })).rejects.toThrow(/--vintage/);
  });
});

describe('fredSource: ALFRED JSON saved by the FRED fetcher', () => {
  const KEY = 'abcdef0123456789abcdef0123456789';
  const SERIES_KEY = 'bls.CES0000000001';
  let publisher: LoopbackPublisher;

  beforeAll(async () => {
    const emulator = createFredApiEmulator({ series: { PAYEMS: readRealPayemsVintages() }, apiKey: KEY });
    publisher = await startLoopbackPublisher({ files: {}, apis: [emulator] });
  });
  afterAll(() => publisher.close());

  /** Fetches PAYEMS from the emulator into a fresh folder; returns the saved observation files. */
  async function fetchPayems(vintageDatesPerRequest?: number): Promise<string[]> {
    const workDir = mkdtempSync(join(fixture.dir, 'fetch-'));
    const result = await fredApiFetcher.fetch(createTestRequest({ baseUrl: publisher.baseUrl, workDir }), {
      series: [{ fredId: 'PAYEMS', seriesKey: SERIES_KEY }],
      apiKey: KEY,
      ...(vintageDatesPerRequest ? { vintageDatesPerRequest } : {}),
    });
    const ingest = result.ingests[0];
    expect(ingest?.options.series).toBe(SERIES_KEY);
    return ingest?.files.map((file) => file.path) ?? [];
  }

  it('gives PAYEMS 2025-07 its two vintages, each known from its vintage date', async () => {
    const files = await fetchPayems();
    const { batch, observations } = await parse(files, { series: SERIES_KEY }, null);
    // 25 months in both vintages (two rows each) and 14 months only in the later one.
    expect(batch.rows_read).toBe(64);
    expect(batch.rows_skipped).toBe(0);
    expect(observations).toHaveLength(64);
    const july = observations.filter((o) => o.period === '2025-07');
    expect(july.map((o) => [o.value, o.observed_at, o.observed_at_method])).toEqual([
      [159539, '2025-08-01T12:30:00Z', 'vintage'],
      [158542, '2026-10-02T12:30:00Z', 'vintage'],
    ]);
    expect(july[0]).toMatchObject({
      series_key: SERIES_KEY,
      source_ref: expect.stringMatching(/^fred-PAYEMS-observations-1-1\.json#2025-07-01@2025-08-01$/),
      correction: { observed_at: '2025-08-01T12:30:00Z', method: 'vintage' },
      verification_status: 'unverified',
      data_class: 'official',
    });
    // The later vintage revised July 2025 by -997 (PROVENANCE.md).
    expect((july[1]?.value ?? 0) - (july[0]?.value ?? 0)).toBe(-997);
    expect(observations.filter((o) => o.period === '2026-09').map((o) => [o.value, o.observed_at])).toEqual([
      [159044, '2026-10-02T12:30:00Z'],
    ]);
  });

  it('reads the same history from two real-time ranges', async () => {
    const one = (await parse(await fetchPayems(), { series: SERIES_KEY }, null)).observations;
    const files = await fetchPayems(1);
    expect(files).toHaveLength(2);
    const two = (await parse(files, { series: SERIES_KEY }, null)).observations;
    expect(two.map(({ source_ref: _ref, ...rest }) => rest)).toEqual(
      one.map(({ source_ref: _ref, ...rest }) => rest),
    );
  });

  it('needs --series and refuses --vintage or --observed-at', async () => {
    const files = await fetchPayems();
    await expect(parse(files)).rejects.toThrow(/ALFRED JSON does not name the series: pass --series/);
    await expect(parse(files, { series: SERIES_KEY, vintage: '2025-08-01' })).rejects.toThrow(
      /--vintage and --observed-at do not apply/,
    );
    await expect(parse(files, { series: SERIES_KEY, observedAt: '2025-08-01T00:00:00Z' })).rejects.toThrow(
      /do not apply/,
    );
  });

  /** A response of real PAYEMS rows, changed only as the test says. */
  function writeResponse(name: string, rows: Array<Record<string, string>>): string {
    return writeTemp(name, {
      realtime_start: '2025-08-01',
      realtime_end: '9999-12-31',
      count: rows.length,
      observations: rows,
    });
  }
  const row = (date: string, realtimeStart: string, value: string) => ({
    realtime_start: realtimeStart,
    realtime_end: '9999-12-31',
    date,
    value,
  });

  it('skips "." and refuses two different values for one date and realtime_start', async () => {
    const missing = writeResponse('missing.json', [
      row('2023-07-01', '2025-08-01', '.'),
      row('2023-08-01', '2025-08-01', '156176'),
    ]);
    const { batch, observations } = await parse([missing], { series: SERIES_KEY }, null);
    expect([batch.rows_read, batch.rows_skipped, observations.length]).toEqual([2, 1, 1]);

    // A second month makes the file monthly (a lone date would be filed as a day).
    const clash = writeResponse('clash.json', [
      row('2023-07-01', '2025-08-01', '156019'),
      row('2023-07-01', '2025-08-01', '156043'),
      row('2023-08-01', '2025-08-01', '156176'),
    ]);
    const error = await expectInputError(parse([clash], { series: SERIES_KEY }, null), 'clash.json');
    expect(error.message).toMatch(
      /2023-07 observed at 2025-08-01T12:30:00Z is also in clash\.json#2023-07-01@2025-08-01 with a different value \(156043 here, 156019 there\): two ALFRED rows/,
    );
    const repeat = writeResponse('repeat.json', [
      row('2023-07-01', '2025-08-01', '156019'),
      row('2023-07-01', '2025-08-01', '156019'),
    ]);
    expect((await parse([repeat], { series: SERIES_KEY }, null)).observations).toHaveLength(1);
  });

  it('names the file and what is wrong with a response it cannot read', async () => {
    const error = writeTemp('error.json', {
      error_code: 400,
      error_message: 'Bad Request.  The series does not exist.',
    });
    await expect(parse([error], { series: SERIES_KEY })).rejects.toThrow(
      'error.json: a FRED API error, not data (400): Bad Request.  The series does not exist.',
    );
    const shape = writeResponse('shape.json', [
      { realtime_start: '2025-08-01', realtime_end: '9999-12-31', date: '2023-07', value: '156019' },
    ]);
    await expect(parse([shape], { series: SERIES_KEY })).rejects.toThrow(
      'shape.json: not an ALFRED observations response: at JSON path $.observations[0].date: expected a date YYYY-MM-DD',
    );
    const number = writeResponse('number.json', [row('2023-07-01', '2025-08-01', 'n/a!')]);
    await expect(parse([number], { series: SERIES_KEY })).rejects.toThrow(
      'number.json: observations[0] (date 2023-07-01, realtime_start 2025-08-01): value "n/a!" is not a number',
    );
  });
});

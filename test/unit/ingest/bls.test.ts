import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blsSource } from '../../../src/ingest/bls.ts';
import { InputError } from '../../../src/ingest/input-error.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import type { ObservationInput } from '../../../src/model/records.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture, INGEST_NOW } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const BLS = join(SHARED_DATA, 'bls');
const CPS = join(BLS, 'bls_api_v2_cps_situation_2015.json');
const CPS_ALL_OPTIONS = join(BLS, 'bls_api_v2_cps_situation_2015_all_options.json');
const NORTH_DAKOTA = join(BLS, 'bls_api_v2_sae_north_dakota_mining_2014_2015.json');
const ERROR_RESPONSE = join(BLS, 'bls_api_v2_error_bad_end_year.json');
const VINTAGES = join(BLS, 'ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json');
const CPI = join(BLS, 'datahub_cpi-us_cpiai.csv');
const NOW = INGEST_NOW;
/** When the sample's CPS and SAE responses were collected (data/sample/README.md). */
const API_COLLECTED = { collectedAt: '2016-02-01T17:33:08Z' };

const fixture = createIngestFixture('bls-test-');

const { context, writeTemp } = fixture;

/**
 * Parses, and reads the observations relation back as records (the parser keeps them in DuckDB);
 * the vintage and CPI values have no footnotes (NULL in the relation, absent here).
 */
async function parse(files: string[], options: IngestOptions = {}, now?: () => Date) {
  const batch = await blsSource.parse(files, { ...context(options), ...(now ? { now } : {}) });
  const rows = batch.observations ? await readFactRelationRows(fixture.connection, batch.observations) : [];
  const observations = rows.map((row) => {
    const { footnotes, ...rest } = row;
    return (footnotes === null ? rest : row) as ObservationInput;
  });
  return { batch, observations };
}

function find(observations: ObservationInput[], seriesKey: string, period: string): ObservationInput[] {
  return observations.filter((o) => o.series_key === seriesKey && o.period === period);
}

function apiResponse(data: object[], seriesID = 'CUUR0000SA0'): object {
  return { status: 'REQUEST_SUCCEEDED', message: [], Results: { series: [{ seriesID, data }] } };
}

describe('blsSource: BLS API v2 JSON', () => {
  it('reads the 2015 CPS response: 4 series of 12 months, sorted', async () => {
    const { batch, observations } = await parse([CPS], API_COLLECTED);
    expect(batch.rows_read).toBe(48);
    expect(batch.rows_skipped).toBe(0);
    const keys = [...new Set(observations.map((o) => o.series_key))];
    expect(keys).toEqual(['bls.LNS11000000', 'bls.LNS12000000', 'bls.LNS13000000', 'bls.LNS14000000']);
    for (const key of keys) {
      expect(observations.filter((o) => o.series_key === key).map((o) => o.period)).toEqual(
        Array.from({ length: 12 }, (_, index) => `2015-${String(index + 1).padStart(2, '0')}`),
      );
    }
    expect(find(observations, 'bls.LNS14000000', '2015-12')).toEqual([
      {
        series_key: 'bls.LNS14000000',
        period: '2015-12',
        value: 5.0,
        footnotes: [],
        source_ref: 'bls_api_v2_cps_situation_2015.json#LNS14000000/2015M12',
        // The Employment Situation for December 2015 came out 2016-01-08 08:30 New York.
        observed_at: '2016-01-08T13:30:00Z',
        observed_at_method: 'release_calendar',
        // Collected before the next release: the first print is proven, and a correction would
        // take the newest release before the collection, this one.
        correction: { observed_at: '2016-01-08T13:30:00Z', method: 'release_calendar' },
        verification_status: 'verified',
        confidence: 1,
        data_class: 'official',
      },
    ]);
    expect(find(observations, 'bls.LNS14000000', '2015-01')[0]?.value).toBe(5.7);
    expect(find(observations, 'bls.LNS12000000', '2015-12')[0]?.value).toBe(149929);
  });

  it('reads the catalog/calculations variant to the same values', async () => {
    const plain = (await parse([CPS], API_COLLECTED)).observations;
    const { observations } = await parse([CPS_ALL_OPTIONS], API_COLLECTED);
    expect(observations).toHaveLength(48);
    expect(observations.map((o) => [o.series_key, o.period, o.value])).toEqual(
      plain.map((o) => [o.series_key, o.period, o.value]),
    );
    expect(observations[0]?.source_ref).toBe(
      'bls_api_v2_cps_situation_2015_all_options.json#LNS11000000/2015M01',
    );
  });

  it('sorts the unsorted North Dakota array by period', async () => {
    const { observations } = await parse([NORTH_DAKOTA], API_COLLECTED);
    expect(observations).toHaveLength(24);
    expect(new Set(observations.map((o) => o.series_key))).toEqual(new Set(['bls.SMS38000001000000001']));
    const periods = observations.map((o) => o.period);
    expect(periods).toEqual([...periods].sort());
    expect(observations[0]).toMatchObject({ period: '2014-01', value: 28.0 });
    expect(find(observations, 'bls.SMS38000001000000001', '2014-12')[0]?.value).toBe(32.1);
    expect(find(observations, 'bls.SMS38000001000000001', '2015-01')[0]?.value).toBe(32.4);
    expect(observations.at(-1)).toMatchObject({ period: '2015-12', value: 24.3 });
  });

  it('uses --observed-at for every value', async () => {
    const { observations } = await parse([CPS], { observedAt: '2016-02-05T13:30:00Z' });
    expect(new Set(observations.map((o) => o.observed_at))).toEqual(new Set(['2016-02-05T13:30:00Z']));
    expect(new Set(observations.map((o) => o.observed_at_method))).toEqual(new Set(['collected']));
  });

  it('gives the same knowledge times whoever ingests the file, whenever (no clock)', async () => {
    const first = (await parse([CPS], API_COLLECTED)).observations.map((o) => o.observed_at);
    const later = await parse([CPS], API_COLLECTED, () => new Date('2030-01-01T00:00:00Z'));
    expect(later.observations.map((o) => o.observed_at)).toEqual(first);
  });

  it('keeps the footnotes BLS prints (P Preliminary, C Correction) and dates state data by its release', async () => {
    const { observations } = await parse([NORTH_DAKOTA], API_COLLECTED);
    const withNotes = observations.filter((o) => (o.footnotes ?? []).length > 0);
    expect(withNotes.length).toBeGreaterThan(0);
    expect(new Set(withNotes.flatMap((o) => o.footnotes ?? []).map((f) => `${f.code} ${f.text}`))).toEqual(
      new Set(['P Preliminary', 'C Correction']),
    );
    // State Employment and Unemployment for December 2015: 2016-01-26 10:00 New York, the newest
    // release before the collection, so its first print is proven.
    expect(find(observations, 'bls.SMS38000001000000001', '2015-12')[0]).toMatchObject({
      observed_at: '2016-01-26T15:00:00Z',
      observed_at_method: 'release_calendar',
    });
  });

  it('dates a value collected after a later release that could have revised it by that release', async () => {
    const { observations } = await parse([NORTH_DAKOTA, CPS], API_COLLECTED);
    // December 2014 was first released 2015-01-27, but the file was collected after the release of
    // 2016-01-26 (and the annual benchmark of 2015-03): it is known from that newest release.
    expect(find(observations, 'bls.SMS38000001000000001', '2014-12')[0]).toMatchObject({
      observed_at: '2016-01-26T15:00:00Z',
      observed_at_method: 'later_release',
    });
    expect(find(observations, 'bls.LNS14000000', '2015-01')[0]).toMatchObject({
      observed_at: '2016-01-08T13:30:00Z',
      observed_at_method: 'later_release',
    });
    // Collected before the next release, the first print is proven.
    const early = await parse([CPS], { collectedAt: '2015-03-01T00:00:00Z' });
    expect(find(early.observations, 'bls.LNS14000000', '2015-01')[0]).toMatchObject({
      observed_at: '2015-02-06T13:30:00Z',
      observed_at_method: 'release_calendar',
    });
  });

  it('refuses a revisable series without the time its file was collected', async () => {
    await expect(parse([CPS])).rejects.toThrow(
      /LNS14000000\/2015M12: a later release may have revised LNS14000000 2015-12 since its first release, and the file carries no time it was collected; pass --collected-at/,
    );
  });

  it('dates a possible correction by the newest release before the file was collected', async () => {
    const { observations } = await parse([CPS], { collectedAt: '2016-03-01T00:00:00Z' });
    // The newest Employment Situation before 2016-03-01 was February's, for January 2016.
    expect(find(observations, 'bls.LNS14000000', '2015-12')[0]?.correction).toEqual({
      observed_at: '2016-02-05T13:30:00Z',
      method: 'release_calendar',
    });
    // Collected after that release, which could have revised December (the annual revision of
    // seasonally adjusted household data comes with it): known from it, not from 2016-01-08.
    expect(find(observations, 'bls.LNS14000000', '2015-12')[0]).toMatchObject({
      observed_at: '2016-02-05T13:30:00Z',
      observed_at_method: 'later_release',
    });
  });

  it('refuses an error response, quoting the BLS message', async () => {
    await expect(parse([ERROR_RESPONSE])).rejects.toThrow(InputError);
    await expect(parse([ERROR_RESPONSE])).rejects.toThrow(
      'bls_api_v2_error_bad_end_year.json: BLS API request failed (REQUEST_FAILED_INVALID_PARAMETERS): End year is invalid.',
    );
  });

  it('converts quarterly and annual periods and skips M13, S01, S02 and missing values', async () => {
    const file = writeTemp('periods.json', {
      ...apiResponse([
        { year: '2024', period: 'M13', value: '313.689' },
        { year: '2024', period: 'S01', value: '312.0' },
        { year: '2024', period: 'S02', value: '315.0' },
        { year: '2024', period: 'Q03', value: '1.5' },
        { year: '2024', period: 'A01', value: '2.9' },
        { year: '2024', period: 'M02', value: '-' },
        { year: '2024', period: 'M01', value: '' },
        { year: '2024', period: 'M03', value: '1,234.5' },
      ]),
    });
    // No calendar dates quarterly or annual values: they need the time the file was collected.
    await expect(parse([file])).rejects.toThrow(
      /CUUR0000SA0 2024-Q3, and the file carries no time it was collected/,
    );
    const { batch, observations } = await parse([file], { collectedAt: NOW });
    expect(batch.rows_read).toBe(8);
    expect(batch.rows_skipped).toBe(5);
    expect(observations.find((o) => o.period === '2024')).toMatchObject({
      observed_at: NOW,
      observed_at_method: 'collected',
    });
    expect(observations.map((o) => [o.period, o.value])).toEqual([
      ['2024', 2.9],
      ['2024-03', 1234.5],
      ['2024-Q3', 1.5],
    ]);
  });

  it('refuses malformed responses, naming the file and the JSON path', async () => {
    const numeric = writeTemp('numeric.json', apiResponse([{ year: '2024', period: 'M01', value: 1 }]));
    await expect(parse([numeric])).rejects.toThrow(
      /numeric\.json: at JSON path \$\.Results\.series\[0\]\.data\[0\]\.value: /,
    );
    const noSeries = writeTemp('no-series.json', { status: 'REQUEST_SUCCEEDED', Results: {} });
    await expect(parse([noSeries])).rejects.toThrow(/no-series\.json: at JSON path \$\.Results\.series: /);
    const badPeriod = writeTemp(
      'bad-period.json',
      apiResponse([{ year: '2024', period: 'M14', value: '1' }]),
    );
    await expect(parse([badPeriod])).rejects.toThrow(
      'bad-period.json: CUUR0000SA0/2024M14: unknown BLS period "M14"',
    );
    const badValue = writeTemp(
      'bad-value.json',
      apiResponse([{ year: '2024', period: 'M01', value: 'n/a' }]),
    );
    await expect(parse([badValue])).rejects.toThrow('CUUR0000SA0/2024M01: value "n/a" is not a number');
  });

  it('refuses truncated JSON, empty files and unknown formats', async () => {
    const truncated = writeTemp('truncated.json', '{"status":"REQUEST_SUCCEEDED","Results":{"series":[');
    await expect(parse([truncated])).rejects.toThrow(/truncated\.json: invalid JSON/);
    await expect(parse([writeTemp('empty.json', '')])).rejects.toThrow('empty.json: file is empty');
    await expect(parse([writeTemp('other.json', { foo: 1 })])).rejects.toThrow(
      /other\.json: JSON is not a format/,
    );
    const fred = join(BLS, 'fred_PAYEMS_vintage_2025-08-02.csv');
    await expect(parse([fred])).rejects.toThrow(/fred_PAYEMS_vintage_2025-08-02\.csv:1: not a BLS format/);
  });

  it('refuses the same series and period twice at the same knowledge time', async () => {
    const file = writeTemp('twice.json', {
      status: 'REQUEST_SUCCEEDED',
      Results: {
        series: [
          { seriesID: 'CUUR0000SA0', data: [{ year: '2024', period: 'M01', value: '308.417' }] },
          { seriesID: 'CUUR0000SA0', data: [{ year: '2024', period: 'M01', value: '308.417' }] },
        ],
      },
    });
    await expect(parse([file])).rejects.toThrow(/twice\.json: duplicate value for bls\.CUUR0000SA0 2024-01/);
    await expect(parse([CPS, CPS_ALL_OPTIONS], API_COLLECTED)).rejects.toThrow(
      /duplicate value for bls\.LNS11000000 2015-01/,
    );
  });
});

describe('blsSource: CES release-vintage compilation', () => {
  it('reads 21 records, one observation per release, timed at 08:30 New York as printed', async () => {
    const { batch, observations } = await parse([VINTAGES]);
    expect(batch.rows_read).toBe(21);
    expect(batch.rows_skipped).toBe(0);
    expect(observations).toHaveLength(21);
    expect(new Set(observations.map((o) => o.series_key))).toEqual(new Set(['bls.CES0000000001.change']));
    const december = find(observations, 'bls.CES0000000001.change', '2025-12');
    expect(december.map((o) => o.value)).toEqual([50, 48, -17]);
    expect(december.map((o) => o.observed_at)).toEqual([
      '2026-01-09T13:30:00Z',
      '2026-02-11T13:30:00Z',
      '2026-03-06T13:30:00Z',
    ]);
    expect(december[0]).toEqual({
      series_key: 'bls.CES0000000001.change',
      period: '2025-12',
      value: 50,
      source_ref: 'ces_total_nonfarm_change_release_vintages_2025-12_to_2026-07.json#USDL-26-0020',
      observed_at: '2026-01-09T13:30:00Z',
      observed_at_method: 'publisher_timestamp',
      verification_status: 'unverified',
      confidence: 0.8,
      data_class: 'official',
    });
    // Summer releases are at 08:30 EDT.
    expect(find(observations, 'bls.CES0000000001.change', '2026-07')).toMatchObject([
      { value: -23, observed_at: '2026-08-07T12:30:00Z' },
    ]);
  });

  it('refuses an override that makes the releases of one month collide', async () => {
    await expect(parse([VINTAGES], { observedAt: NOW })).rejects.toThrow(
      /duplicate value for bls\.CES0000000001\.change/,
    );
  });

  it('refuses a record with a bad shape, naming the JSON path', async () => {
    const file = writeTemp('vintage-bad.json', {
      dataset_id: 'x',
      series_id: 'CES0000000001',
      records: [{ observation_month: '2025-13', release_date: '2026-01-09', revision_stage: 'release1' }],
    });
    await expect(parse([file])).rejects.toThrow(
      /vintage-bad\.json: at JSON path \$\.records\[0\]\.observation_month: /,
    );
  });
});

describe('blsSource: datahub CPI-U CSV', () => {
  it('reads 1,360 months of CUUR0000SA0 from the Index column', async () => {
    // Months before the calendar (2010) need the collection time; without it the file is refused.
    await expect(parse([CPI])).rejects.toThrow(/CUUR0000SA0 1913-01, and the file carries no time/);
    const { batch, observations } = await parse([CPI], { collectedAt: NOW });
    expect(batch.rows_read).toBe(1360);
    expect(batch.rows_skipped).toBe(0);
    expect(observations).toHaveLength(1360);
    expect(observations[0]).toEqual({
      series_key: 'bls.CUUR0000SA0',
      period: '1913-01',
      value: 9.8,
      source_ref: 'datahub_cpi-us_cpiai.csv:2',
      observed_at: NOW,
      observed_at_method: 'collected',
      verification_status: 'unverified',
      confidence: 0.9,
      data_class: 'official',
    });
    expect(observations.at(-1)).toMatchObject({
      period: '2026-05',
      value: 335.123,
      source_ref: 'datahub_cpi-us_cpiai.csv:1361',
    });
    // Calendar months get the CPI release: January 2010 came out 2010-02-19 08:30 New York.
    expect(find(observations, 'bls.CUUR0000SA0', '2010-01')[0]).toMatchObject({
      observed_at: '2010-02-19T13:30:00Z',
      observed_at_method: 'release_calendar',
    });
  });

  it('refuses a date that is not the first of a month, a bad number and a header-only file', async () => {
    const parse = (files: string[]) => blsSource.parse(files, context({ collectedAt: NOW }));
    const midMonth = writeTemp('cpi-date.csv', 'Date,Index,Inflation\n1913-01-01,9.8,\n1913-02-15,9.8,0.0\n');
    await expect(parse([midMonth])).rejects.toThrow(
      'cpi-date.csv:3: column "Date": expected the first of a month, got "1913-02-15"',
    );
    const badIndex = writeTemp('cpi-index.csv', 'Date,Index,Inflation\n1913-01-01,nine,\n');
    await expect(parse([badIndex])).rejects.toThrow(
      'cpi-index.csv:2: column "Index": expected a number, got "nine"',
    );
    const headerOnly = writeTemp('cpi-header.csv', 'Date,Index,Inflation\n');
    await expect(parse([headerOnly])).rejects.toThrow('cpi-header.csv:1: header only, no data rows');
  });
});

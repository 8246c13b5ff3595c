import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fredSource } from '../../../src/ingest/fred.ts';
import { InputError } from '../../../src/ingest/input-error.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import { createIngestFixture, INGEST_NOW } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const VINTAGE_2025_08_02 = join(SHARED_DATA, 'bls', 'fred_PAYEMS_vintage_2025-08-02.csv');
const LATER_VINTAGE = join(
  SHARED_DATA,
  'bls',
  'fred_PAYEMS_vintage_latest-2026-09_trimmed_2023-07_onward.csv',
);
const NOW = INGEST_NOW;

const fixture = createIngestFixture('fred-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[], options: IngestOptions = {}) {
  const batch = await fredSource.parse(files, context(options));
  return { batch, observations: batch.observations ?? [] };
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
      observed_at: NOW,
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

  it('files values under --series and times them at the --vintage date', async () => {
    const { observations } = await parse([VINTAGE_2025_08_02], {
      series: 'bls.CES0000000001',
      vintage: '2025-08-02',
    });
    expect(new Set(observations.map((o) => o.series_key))).toEqual(new Set(['bls.CES0000000001']));
    expect(new Set(observations.map((o) => o.observed_at))).toEqual(new Set(['2025-08-02T00:00:00Z']));
  });

  it('lets --observed-at win over --vintage', async () => {
    const { observations } = await parse([VINTAGE_2025_08_02], {
      vintage: '2025-08-02',
      observedAt: '2025-08-02T14:00:00Z',
    });
    expect(observations[0]?.observed_at).toBe('2025-08-02T14:00:00Z');
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
      /bls\.CES0000000001 2023-07 observed at 2026-11-23T12:00:00Z is also in/,
    );
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

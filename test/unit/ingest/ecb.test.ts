import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ecbSource } from '../../../src/ingest/ecb.ts';
import type { IngestOptions } from '../../../src/ingest/source.ts';
import type { ObservationInput } from '../../../src/model/records.ts';
import { readFactRelationRows } from '../../helpers/fact-relation-rows.ts';
import { createIngestFixture, expectInputError as expectRejection } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const HIST_CSV = join(SHARED_DATA, 'ecb', 'eurofxref-hist.csv');
const DAY_CSV = join(SHARED_DATA, 'ecb', 'eurofxref.csv');
const DAILY_XML = join(SHARED_DATA, 'ecb', 'eurofxref-daily.xml');
const CFTC_TXT = join(SHARED_DATA, 'cftc', 'legacy_futures_only_2025_annual.txt');
const ISO_XML = join(SHARED_DATA, 'iso', 'iso4217_list_one_table_a1.xml');

const ENVELOPE_START =
  "<?xml version='1.0' encoding='UTF-8'?>\n" +
  '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" ' +
  'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">\n' +
  '\t<gesmes:subject>Reference rates</gesmes:subject>\n' +
  '\t<gesmes:Sender>\n\t\t<gesmes:name>European Central Bank</gesmes:name>\n\t</gesmes:Sender>\n';
const ENVELOPE_END = '</gesmes:Envelope>\n';

const fixture = createIngestFixture('ecb-test-');
let hist: ObservationInput[];
let histBatch: Awaited<ReturnType<typeof parse>>;

beforeAll(async () => {
  histBatch = await parse([HIST_CSV]);
  hist = histBatch.observations ?? [];
});

/** Parses, and reads the observations relation back as records (the parser keeps them in DuckDB). */
async function parse(files: string[], options: IngestOptions = {}) {
  const batch = await ecbSource.parse(files, fixture.context(options));
  const observations =
    batch.observations && (await readFactRelationRows(fixture.connection, batch.observations));
  return { ...batch, observations };
}

const { writeTemp } = fixture;

function xmlOf(days: Record<string, Record<string, string>>): string {
  const blocks = Object.entries(days).map(
    ([time, rates]) =>
      `\t\t<Cube time='${time}'>\n${Object.entries(rates)
        .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>\n`)
        .join('')}\t\t</Cube>\n`,
  );
  return `${ENVELOPE_START}\t<Cube>\n${blocks.join('')}\t</Cube>\n${ENVELOPE_END}`;
}

/** (series, period, value) triples of one date, sorted, for comparing files. */
function triplesOn(observations: ObservationInput[], period: string): string[] {
  return observations
    .filter((o) => o.period === period)
    .map((o) => `${o.series_key} ${o.period} ${o.value}`)
    .sort();
}

function find(observations: ObservationInput[], series: string, period: string) {
  return observations.find((o) => o.series_key === series && o.period === period);
}

async function expectInputError(file: string, pattern: RegExp): Promise<void> {
  const error = await expectRejection(parse([file]), file.split('/').at(-1) ?? file);
  expect(error.message).toMatch(pattern);
}

describe('ecbSource: eurofxref-hist.csv', () => {
  it('reads 6,983 dates of 41 currencies, skipping N/A cells', () => {
    expect(new Set(hist.map((o) => o.period)).size).toBe(6983);
    expect(histBatch.rows_read).toBe(6983 * 41);
    // `grep -o N/A | wc -l` on the data rows of the file.
    expect(histBatch.rows_skipped).toBe(68748);
    expect(hist).toHaveLength(6983 * 41 - 68748);
    expect(new Set(hist.map((o) => o.series_key)).size).toBe(41);
  });

  it('reads USD on the first date (last line) and on the newest date (first row)', () => {
    expect(find(hist, 'ecb.USD', '1999-01-04')).toEqual({
      series_key: 'ecb.USD',
      period: '1999-01-04',
      value: 1.1789,
      source_ref: 'eurofxref-hist.csv:6984',
      // Before 1 July 2016 the ECB published at about 14:30 Frankfurt time (CET: 13:30Z).
      observed_at: '1999-01-04T13:30:00Z',
      observed_at_method: 'release_calendar',
      verification_status: 'verified',
      confidence: 1,
      data_class: 'official',
    });
    expect(find(hist, 'ecb.USD', '2026-04-13')).toMatchObject({
      value: 1.1684,
      source_ref: 'eurofxref-hist.csv:2',
      observed_at: '2026-04-13T14:00:00Z',
    });
    expect(find(hist, 'ecb.JPY', '1999-01-04')?.value).toBe(133.73);
    expect(find(hist, 'ecb.ZAR', '2026-04-13')?.value).toBe(19.3849);
  });

  it('has 29 currencies on 2026-04-13', () => {
    expect(hist.filter((o) => o.period === '2026-04-13')).toHaveLength(29);
  });

  it('skips N/A: CYP ends on 2007-12-31, BGN on 2025-12-31', () => {
    const cyp = hist.filter((o) => o.series_key === 'ecb.CYP');
    expect(cyp.at(-1)).toMatchObject({ period: '2007-12-31', value: 0.585274 });
    expect(cyp.some((o) => o.period > '2007-12-31')).toBe(false);
    expect(find(hist, 'ecb.CYP', '2008-01-02')).toBeUndefined();
    expect(hist.filter((o) => o.series_key === 'ecb.BGN').at(-1)?.period).toBe('2025-12-31');
    expect(find(hist, 'ecb.BGN', '1999-01-04')).toBeUndefined();
  });

  it('observes a January date at 15:00Z (CET) and a May date at 14:00Z (CEST)', () => {
    expect(find(hist, 'ecb.USD', '2025-01-02')).toMatchObject({
      value: 1.0321,
      observed_at: '2025-01-02T15:00:00Z',
    });
    expect(find(hist, 'ecb.USD', '2025-05-09')).toMatchObject({
      value: 1.1252,
      observed_at: '2025-05-09T14:00:00Z',
    });
  });
});

describe('ecbSource: eurofxref.csv and eurofxref-daily.xml', () => {
  it('the single-day CSV equals the 2026-04-13 row of the history', async () => {
    const batch = await parse([DAY_CSV]);
    const observations = batch.observations ?? [];
    expect(batch.rows_read).toBe(29);
    expect(batch.rows_skipped).toBe(0);
    expect(observations).toHaveLength(29);
    expect(triplesOn(observations, '2026-04-13')).toEqual(triplesOn(hist, '2026-04-13'));
    expect(find(observations, 'ecb.HUF', '2026-04-13')).toMatchObject({
      value: 366.9,
      source_ref: 'eurofxref.csv:2',
      observed_at: '2026-04-13T14:00:00Z',
    });
  });

  it('the daily XML gives the 30 rates of 2025-05-09, equal to the history', async () => {
    const batch = await parse([DAILY_XML]);
    const observations = batch.observations ?? [];
    expect(batch.rows_read).toBe(30);
    expect(observations).toHaveLength(30);
    expect(triplesOn(observations, '2025-05-09')).toEqual(triplesOn(hist, '2025-05-09'));
    expect(find(observations, 'ecb.USD', '2025-05-09')).toEqual({
      series_key: 'ecb.USD',
      period: '2025-05-09',
      value: 1.1252,
      source_ref: 'eurofxref-daily.xml#2025-05-09/USD',
      observed_at: '2025-05-09T14:00:00Z',
      observed_at_method: 'release_calendar',
      verification_status: 'verified',
      confidence: 1,
      data_class: 'official',
    });
  });

  it('--observed-at overrides the publication time of every fact', async () => {
    const observedAt = '2026-11-23T12:00:00Z';
    const batch = await parse([DAILY_XML, DAY_CSV], { observedAt });
    expect(batch.observations).toHaveLength(59);
    expect(batch.observations?.every((o) => o.observed_at === observedAt)).toBe(true);
    expect(batch.observations?.every((o) => o.observed_at_method === 'collected')).toBe(true);
  });

  it('switches from about 14:30 to about 16:00 Frankfurt time on 1 July 2016', () => {
    expect(find(hist, 'ecb.USD', '2016-06-30')?.observed_at).toBe('2016-06-30T12:30:00Z');
    expect(find(hist, 'ecb.USD', '2016-07-01')?.observed_at).toBe('2016-07-01T14:00:00Z');
  });

  it('offers the collection time for a rate that turns out to correct a stored one', async () => {
    const batch = await parse([DAILY_XML], { collectedAt: '2025-05-12T08:00:00Z' });
    expect(batch.observations?.[0]?.correction).toEqual({
      observed_at: '2025-05-12T08:00:00Z',
      method: 'collected',
    });
    const local = await parse([DAILY_XML]);
    expect(local.observations?.[0]?.correction).toBeUndefined();
  });
});

describe('ecbSource: multi-day XML', () => {
  it('reads several <Cube time> blocks in the gesmes envelope', async () => {
    const file = writeTemp(
      'eurofxref-hist-90d.xml',
      xmlOf({
        '2025-05-09': { USD: '1.1252', JPY: '163.36' },
        '2025-05-08': { USD: '1.1214', JPY: 'N/A' },
      }),
    );
    const batch = await parse([file]);
    expect(batch.rows_read).toBe(4);
    expect(batch.rows_skipped).toBe(1);
    expect(batch.observations?.map((o) => [o.series_key, o.period, o.value, o.source_ref])).toEqual([
      ['ecb.JPY', '2025-05-09', 163.36, 'eurofxref-hist-90d.xml#2025-05-09/JPY'],
      ['ecb.USD', '2025-05-08', 1.1214, 'eurofxref-hist-90d.xml#2025-05-08/USD'],
      ['ecb.USD', '2025-05-09', 1.1252, 'eurofxref-hist-90d.xml#2025-05-09/USD'],
    ]);
  });

  it('keeps a rate found in two files once, and refuses two different values', async () => {
    const agreeing = writeTemp('agree-90d.xml', xmlOf({ '2025-05-09': { USD: '1.1252' } }));
    const batch = await parse([DAILY_XML, agreeing]);
    expect(batch.rows_read).toBe(31);
    expect(batch.observations).toHaveLength(30);
    const clashing = writeTemp('clash-90d.xml', xmlOf({ '2025-05-09': { USD: '1.1253' } }));
    await expect(parse([DAILY_XML, clashing])).rejects.toThrow(/clash-90d\.xml.*USD 2025-05-09/);
  });
});

describe('ecbSource: bad input', () => {
  const histHeader = readFileSync(HIST_CSV, 'utf8').split('\n', 1)[0];
  const daily = readFileSync(DAILY_XML, 'utf8');

  it('refuses files of other formats', async () => {
    await expectInputError(CFTC_TXT, /not an ECB reference-rate file/);
    await expectInputError(writeTemp('rates.json', '{"USD": 1.1252}\n'), /not an ECB reference-rate file/);
    await expectInputError(ISO_XML, /not an ECB reference-rate XML/);
    await expectInputError(writeTemp('empty.csv', ''), /empty/);
  });

  it('refuses invalid dates', async () => {
    await expectInputError(
      writeTemp('bad-date.csv', 'Date,USD,JPY,\n2026-02-30,1.1,160.1,\n'),
      /:2: .*2026-02-30/,
    );
    const dayCsv = readFileSync(DAY_CSV, 'utf8').replace('13 April 2026', '13 Apirl 2026');
    await expectInputError(writeTemp('bad-day.csv', dayCsv), /Apirl/);
    await expectInputError(writeTemp('bad-time.xml', xmlOf({ '2025-13-01': { USD: '1.1' } })), /2025-13-01/);
  });

  it('refuses rates that are not positive numbers', async () => {
    await expectInputError(writeTemp('zero.csv', 'Date,USD,JPY,\n2026-04-13,0,160.1,\n'), /"USD".*"0"/);
    await expectInputError(writeTemp('negative.csv', 'Date,USD,JPY,\n2026-04-13,-1.1,160.1,\n'), /"-1.1"/);
    await expectInputError(writeTemp('text.csv', 'Date,USD,JPY,\n2026-04-13,abc,160.1,\n'), /"abc"/);
    await expectInputError(
      writeTemp('bad-rate.xml', xmlOf({ '2025-05-09': { USD: '1,12' } })),
      /2025-05-09\/USD/,
    );
  });

  it('refuses a row with more fields than the header', async () => {
    const rows = `${histHeader}\n2026-04-13${',1.5'.repeat(41)},9.9,\n`;
    await expectInputError(writeTemp('extra-field.csv', rows), /:2: .*more fields than the header/);
    await expectInputError(
      writeTemp('short.csv', 'Date,USD,JPY,\n2026-04-13,1.1,160.1,\n2026-04-10,1.2'),
      /:3: /,
    );
  });

  it('refuses XML without Cube entries, and truncated XML', async () => {
    await expectInputError(
      writeTemp('no-cubes.xml', `${ENVELOPE_START}\t<Cube>\n\t</Cube>\n${ENVELOPE_END}`),
      /no <Cube time/,
    );
    await expectInputError(writeTemp('truncated.xml', daily.slice(0, daily.length / 2)), /malformed XML/);
  });
});

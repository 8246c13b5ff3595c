import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { micSource } from '../../../src/ingest/mic.ts';
import type { Venue } from '../../../src/model/records.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const MIC_CSV = join(SHARED_DATA, 'mic', 'ISO10383_MIC.csv');
const COUNTRY_CODES = join(SHARED_DATA, 'iso', 'country-codes.csv');
const LINES = readFileSync(MIC_CSV, 'utf8').split('\n');
const HEADER = LINES[0] ?? '';

const fixture = createIngestFixture('mic-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[]) {
  const batch = await micSource.parse(files, context());
  const venues = batch.venues ?? [];
  const get = (mic: string): Venue | undefined => venues.find((v) => v.mic === mic);
  return { batch, venues, get };
}

/** The published line of one MIC, verbatim. */
function lineOf(mic: string): string {
  const line = LINES.find((l) => l.startsWith(`"${mic}",`));
  if (line === undefined) throw new Error(`no line for ${mic}`);
  return line;
}

describe('micSource: the real ISO 10383 list (May 2025)', () => {
  it('reads 2,767 venues with the published status counts, sorted by MIC', async () => {
    const { batch, venues } = await parse([MIC_CSV]);
    expect(batch.rows_read).toBe(2767);
    expect(batch.rows_skipped).toBe(0);
    expect(venues).toHaveLength(2767);
    const count = (status: string) => venues.filter((v) => v.status === status).length;
    expect([count('ACTIVE'), count('EXPIRED'), count('UPDATED')]).toEqual([2243, 511, 13]);
    expect(venues.filter((v) => v.kind === 'OPRT')).toHaveLength(1542);
    const mics = venues.map((v) => v.mic);
    expect(mics).toEqual([...mics].sort());
  });

  it('reads XNYS as an active operating MIC in New York, with a comma in its name', async () => {
    const { get } = await parse([MIC_CSV]);
    expect(get('XNYS')).toEqual({
      mic: 'XNYS',
      operating_mic: 'XNYS',
      kind: 'OPRT',
      name: 'NEW YORK STOCK EXCHANGE, INC.',
      legal_name: 'INTERCONTINENTAL EXCHANGE, INC.',
      lei: '5493000F4ZO33MV32P92',
      category: 'NSPD',
      acronym: 'NYSE',
      country: 'US',
      city: 'NEW YORK',
      website: 'WWW.NYSE.COM',
      status: 'ACTIVE',
      created: '2005-05-23',
      updated: '2025-04-28',
      expiry: null,
      comments: null,
    });
  });

  it('keeps the name of TECO as published, its leading space and double space included', async () => {
    const { get } = await parse([MIC_CSV]);
    expect(get('TECO')).toMatchObject({
      mic: 'TECO',
      operating_mic: 'TPEO',
      name: ' TP ICAP  E AND C OTF - COMMODITY AND ENERGY DERIVATIVES',
      legal_name: 'TP ICAP E. AND C. LIMITED',
      country: 'GB',
    });
  });

  it('reads XTKS as a segment of XJPX', async () => {
    const { get } = await parse([MIC_CSV]);
    expect(get('XTKS')).toMatchObject({
      operating_mic: 'XJPX',
      kind: 'SGMT',
      name: 'TOKYO STOCK EXCHANGE',
      legal_name: 'TOKYO STOCK EXCHANGE, INC.',
      country: 'JP',
      city: 'TOKYO',
      created: '2005-06-27',
      updated: '2016-05-23',
    });
    expect(get('XJPX')).toMatchObject({ kind: 'OPRT', operating_mic: 'XJPX' });
  });

  it('reads the first published row and the bare (unquoted) empty fields of the last', async () => {
    const { get } = await parse([MIC_CSV]);
    expect(get('DRSP')).toMatchObject({
      name: 'EURONEXT  UK - REPORTING SERVICES',
      acronym: null,
      comments: 'APPROVED PUBLICATION ARRANGEMENT.',
      created: '2021-09-27',
    });
    expect(LINES.at(-2)).toContain('"MLTF",,"SE"');
    expect(get('SPSD')).toMatchObject({ operating_mic: 'XSAT', acronym: null, country: 'SE', expiry: null });
  });

  it('has an expiry date on expired venues', async () => {
    const { venues } = await parse([MIC_CSV]);
    const expired = venues.filter((v) => v.status === 'EXPIRED');
    expect(expired.filter((v) => v.expiry === null)).toEqual([]);
    for (const v of expired) expect(v.expiry).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('micSource: bad input', () => {
  it('refuses a file of another format (datahub country codes)', async () => {
    await expect(parse([COUNTRY_CODES])).rejects.toThrow(/country-codes\.csv:1: not an ISO 10383 MIC CSV/);
  });

  it('refuses a file missing a required column', async () => {
    const file = writeTemp('no-status.csv', `"MIC","OPERATING MIC","OPRT/SGMT"\n"XNYS","XNYS","OPRT"\n`);
    await expect(parse([file])).rejects.toThrow(/no-status\.csv:1: .*missing columns MARKET NAME/);
  });

  it('refuses a malformed MIC', async () => {
    const file = writeTemp(
      'bad-mic.csv',
      [HEADER, lineOf('XNYS').replace('"XNYS","XNYS"', '"XNY","XNYS"')].join('\n'),
    );
    await expect(parse([file])).rejects.toThrow(
      /bad-mic\.csv:2: column "MIC": expected 4 letters or digits, got "XNY"/,
    );
  });

  it('refuses a bad kind, country or date', async () => {
    const kind = writeTemp('bad-kind.csv', [HEADER, lineOf('XNYS').replace('"OPRT"', '"OPER"')].join('\n'));
    await expect(parse([kind])).rejects.toThrow(
      /bad-kind\.csv:2: column "OPRT\/SGMT": expected OPRT or SGMT/,
    );
    const country = writeTemp(
      'bad-country.csv',
      [HEADER, lineOf('XNYS').replace('"US"', '"USA"')].join('\n'),
    );
    await expect(parse([country])).rejects.toThrow(
      /bad-country\.csv:2: column "ISO COUNTRY CODE \(ISO 3166\)"/,
    );
    const date = writeTemp(
      'bad-date.csv',
      [HEADER, lineOf('XNYS').replace('"20050523"', '"20050231"')].join('\n'),
    );
    await expect(parse([date])).rejects.toThrow(
      /bad-date\.csv:2: column "CREATION DATE": expected a YYYYMMDD date/,
    );
  });

  it('refuses a duplicate MIC, naming both lines', async () => {
    const file = writeTemp(
      'duplicate.csv',
      [HEADER, lineOf('XNYS'), lineOf('XTKS'), lineOf('XNYS')].join('\n'),
    );
    await expect(parse([file])).rejects.toThrow(/duplicate\.csv:4: duplicate MIC XNYS \(first on line 2\)/);
  });

  it('refuses a truncated file (the download cut inside the last line)', async () => {
    const text = readFileSync(MIC_CSV, 'utf8');
    const cut = text.slice(0, text.lastIndexOf('"WWW.SPOTLIGHTSTOCKMARKET.COM"') + 10);
    const file = writeTemp('truncated.csv', cut);
    await expect(parse([file])).rejects.toThrow(
      /truncated\.csv:2768: column "STATUS": value missing \(truncated line\?\)/,
    );
  });

  it('refuses a small file cut inside a quoted field', async () => {
    const xnys = lineOf('XNYS');
    const cut = xnys.slice(0, xnys.indexOf('"2005052') + '"2005052'.length);
    const file = writeTemp('unterminated.csv', [HEADER, lineOf('XTKS'), cut].join('\n'));
    await expect(parse([file])).rejects.toThrow(
      /unterminated\.csv: cannot read as CSV \(malformed or truncated\?\)/,
    );
  });

  it('refuses a header with no rows', async () => {
    const file = writeTemp('header-only.csv', `${HEADER}\n`);
    await expect(parse([file])).rejects.toThrow(/header-only\.csv: no data rows/);
  });
});

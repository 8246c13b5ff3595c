import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iso4217Source } from '../../../src/ingest/iso4217.ts';
import type { Currency } from '../../../src/model/records.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const LIST_ONE = join(SHARED_DATA, 'iso', 'iso4217_list_one_table_a1.xml');
const LIST_THREE = join(SHARED_DATA, 'iso', 'iso4217_list_three_table_a3_historic.xml');
const CODES_CSV = join(SHARED_DATA, 'iso', 'iso4217_codes-all.csv');
const ECB_XML = join(SHARED_DATA, 'ecb', 'eurofxref-daily.xml');
const M49 = join(SHARED_DATA, 'iso', 'unsd_m49_overview_en.csv');

const fixture = createIngestFixture('iso4217-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[]) {
  const batch = await iso4217Source.parse(files, context());
  const currencies = batch.currencies ?? [];
  const get = (code: string): Currency | undefined => currencies.find((c) => c.code === code);
  return { batch, currencies, get };
}

describe('iso4217Source: list one XML (Pblshd 2024-06-25)', () => {
  it('reads 280 entries into 179 distinct codes; 3 entries without a currency are skipped', async () => {
    const { batch, currencies } = await parse([LIST_ONE]);
    expect(batch.rows_read).toBe(280);
    expect(batch.rows_skipped).toBe(3);
    expect(currencies).toHaveLength(179);
    expect(currencies.every((c) => c.withdrawn === null && c.withdrawals.length === 0)).toBe(true);
  });

  it('keeps numeric codes as zero-padded text and reads minor units', async () => {
    const { get } = await parse([LIST_ONE]);
    expect(get('ALL')).toEqual({
      code: 'ALL',
      numeric: '008',
      name: 'Lek',
      minor_units: 2,
      is_fund: false,
      entities: ['ALBANIA'],
      withdrawn: null,
      withdrawals: [],
    });
    expect(get('XAU')).toMatchObject({ numeric: '959', name: 'Gold', minor_units: null });
    expect(get('XDR')?.minor_units).toBeNull();
    expect(get('JPY')).toMatchObject({ numeric: '392', minor_units: 0 });
    expect(get('BHD')).toMatchObject({ numeric: '048', minor_units: 3 });
    expect(get('XCG')).toBeUndefined();
    expect(get('ZWG')).toMatchObject({ numeric: '924', entities: ['ZIMBABWE'] });
  });

  it('collects entities across rows and reads the IsFund attribute', async () => {
    const { get } = await parse([LIST_ONE]);
    const eur = get('EUR');
    expect(eur?.entities).toHaveLength(36);
    expect(eur?.entities).toEqual(expect.arrayContaining(['ÅLAND ISLANDS', 'GERMANY', 'CROATIA']));
    expect(get('BOV')).toMatchObject({ name: 'Mvdol', is_fund: true });
    expect(get('CHE')).toMatchObject({ name: 'WIR Euro', is_fund: true });
    expect(get('USD')?.is_fund).toBe(false);
    // ISO ends this entity with a no-break space: served as published (docs/data-model.md).
    expect(get('XDR')?.entities).toEqual(['INTERNATIONAL MONETARY FUND (IMF)\u00a0']);
  });
});

describe('iso4217Source: names and entities as published, spaces included', () => {
  it('keeps the trailing spaces of KMF, PEN and RON, the no-break spaces of BUK, RHD and XDR, in the XML and the CSV', async () => {
    for (const files of [[LIST_ONE, LIST_THREE], [CODES_CSV]]) {
      const { get } = await parse(files);
      expect(get('KMF')?.name, files.join()).toBe('Comorian Franc ');
      expect(get('BUK')?.entities, files.join()).toEqual(['BURMA\u00a0']);
      expect(get('BUK')?.withdrawals, files.join()).toEqual([
        { entity: 'BURMA\u00a0', name: 'Kyat', withdrawn: '1990-02' },
      ]);
      expect(get('RHD')?.entities, files.join()).toEqual(['SOUTHERN RHODESIA\u00a0']);
      expect(
        get('PEN')?.withdrawals.map((w) => w.name),
        files.join(),
      ).toContain('Nuevo Sol ');
      expect(
        get('RON')?.withdrawals.map((w) => w.name),
        files.join(),
      ).toContain('New Romanian Leu ');
      expect(get('XDR')?.entities, files.join()).toEqual(['INTERNATIONAL MONETARY FUND (IMF)\u00a0']);
      // Codes and dates are trimmed: a code is checked against its pattern.
      expect(get('KMF')).toMatchObject({ code: 'KMF', numeric: '174', minor_units: 0 });
    }
  });
});

describe('iso4217Source: list three (historic) and the merge', () => {
  it('reads 165 historic entries into 135 withdrawn codes, each at its latest withdrawal', async () => {
    const { batch, currencies, get } = await parse([LIST_THREE]);
    expect(batch.rows_read).toBe(165);
    expect(currencies).toHaveLength(135);
    expect(get('HRK')).toMatchObject({
      name: 'Kuna',
      numeric: '191',
      withdrawn: '2023-01',
      entities: ['CROATIA'],
    });
    expect(get('RUR')?.withdrawn).toBe('2004-01');
    expect(get('RUR')?.entities).toHaveLength(11);
    expect(get('FRF')?.withdrawn).toBe('2002-03');
    expect(get('XFO')).toMatchObject({ numeric: null, minor_units: null });
  });

  it('treats a code both current and historic as current (withdrawn null)', async () => {
    const { currencies, get } = await parse([LIST_ONE, LIST_THREE]);
    // 179 current codes + 135 historic, of which 9 (ANG, EUR, IDR, ...) are also current.
    expect(currencies).toHaveLength(305);
    expect(get('EUR')).toMatchObject({ withdrawn: null, minor_units: 2 });
    expect(get('EUR')?.entities).not.toContain('SERBIA AND MONTENEGRO');
    expect(get('ANG')).toMatchObject({ withdrawn: null, entities: ['CURAÇAO', 'SINT MAARTEN (DUTCH PART)'] });
    expect(get('HRK')?.withdrawn).toBe('2023-01');
  });

  it('keeps every list-three entry of a code with its own name and date, oldest first', async () => {
    const { currencies, get } = await parse([LIST_ONE, LIST_THREE]);
    // HRK was withdrawn twice: as "Croatian Kuna" in 2015-06 and as "Kuna" in 2023-01.
    expect(get('HRK')?.withdrawals).toEqual([
      { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
      { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
    ]);
    expect(get('VEF')?.withdrawals.map((w) => w.withdrawn)).toEqual(['2011-12', '2016-02', '2018-08']);
    expect(get('ZWD')?.withdrawals).toEqual([
      { entity: 'ZIMBABWE', name: 'Zimbabwe Dollar (old)', withdrawn: '2006-08' },
      { entity: 'ZIMBABWE', name: 'Zimbabwe Dollar', withdrawn: '2008-08' },
    ]);
    expect(get('RUR')?.withdrawals).toHaveLength(11);
    expect(get('RUR')?.withdrawals[0]).toEqual({
      entity: 'KYRGYZSTAN',
      name: 'Russian Ruble',
      withdrawn: '1993-01',
    });
    expect(get('RUR')?.withdrawals.at(-1)).toEqual({
      entity: 'RUSSIAN FEDERATION',
      name: 'Russian Ruble',
      withdrawn: '2004-01',
    });
    // A range sorts by its end: the GDR mark's 1990-07 to 1990-09.
    expect(get('DDM')?.withdrawals).toEqual([
      { entity: 'GERMAN DEMOCRATIC REPUBLIC', name: 'Mark der DDR', withdrawn: '1990-07 to 1990-09' },
    ]);
    // A current code keeps the entities that left it; it stays current.
    expect(get('EUR')).toMatchObject({ withdrawn: null });
    expect(get('EUR')?.withdrawals.map((w) => w.entity)).toContain('SERBIA AND MONTENEGRO');
    // All 165 historic entries survive the merge, none twice.
    expect(currencies.reduce((n, c) => n + c.withdrawals.length, 0)).toBe(165);
    // The codes the ECB history quotes besides today's are all there, withdrawn.
    for (const code of ['CYP', 'EEK', 'LTL', 'LVL', 'MTL', 'ROL', 'SIT', 'SKK', 'TRL', 'HRK']) {
      expect(get(code)?.withdrawn, code).toMatch(/^\d{4}-\d{2}$/);
    }
    expect(get('BGN')?.withdrawn).toBeNull();
    expect(get('RUB')?.withdrawn).toBeNull();
  });
});

describe('iso4217Source: the flattened CSV (2026-02)', () => {
  it('reads 449 rows into 307 codes, with XCG current and ANG withdrawn 2025-03', async () => {
    const { batch, currencies, get } = await parse([CODES_CSV]);
    expect(batch.rows_read).toBe(449);
    expect(batch.rows_skipped).toBe(3);
    expect(currencies).toHaveLength(307);
    expect(get('XCG')).toEqual({
      code: 'XCG',
      numeric: '532',
      name: 'Caribbean Guilder',
      minor_units: 2,
      is_fund: false,
      entities: ['CURAÇAO', 'SINT MAARTEN (DUTCH PART)'],
      withdrawn: null,
      withdrawals: [],
    });
    expect(get('ANG')).toMatchObject({ withdrawn: '2025-03', minor_units: null });
    expect(get('ALL')).toMatchObject({ numeric: '008', minor_units: 2, withdrawn: null });
    expect(get('XAU')?.minor_units).toBeNull();
    expect(get('JPY')?.minor_units).toBe(0);
    expect(get('BHD')?.minor_units).toBe(3);
  });

  it('keeps every withdrawal row of the CSV rendering (HRK 2015-06 and 2023-01)', async () => {
    const { currencies, get } = await parse([CODES_CSV]);
    expect(get('HRK')).toMatchObject({
      withdrawn: '2023-01',
      withdrawals: [
        { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
        { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
      ],
    });
    expect(get('ANG')?.withdrawals.at(-1)).toMatchObject({ withdrawn: '2025-03' });
    const withdrawalRows = readFileSync(CODES_CSV, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .filter((line) => !/,\r?$/.test(line));
    expect(currencies.reduce((n, c) => n + c.withdrawals.length, 0)).toBe(withdrawalRows.length);
  });
});

describe('iso4217Source: bad input', () => {
  const xml = readFileSync(LIST_ONE, 'utf8');

  it('refuses XML of another format (the ECB daily rates)', async () => {
    await expect(parse([ECB_XML])).rejects.toThrow(
      /eurofxref-daily\.xml: not an ISO 4217 list: root element is <gesmes:Envelope>/,
    );
  });

  it('refuses a CSV of another format (the M49 overview)', async () => {
    await expect(parse([M49])).rejects.toThrow(
      /unsd_m49_overview_en\.csv:1: not an ISO 4217 CSV: missing columns/,
    );
  });

  it('refuses a CSV missing a required column', async () => {
    const file = writeTemp(
      'no-minor.csv',
      'Entity,Currency,AlphabeticCode,NumericCode,WithdrawalDate\nJAPAN,Yen,JPY,392,\n',
    );
    await expect(parse([file])).rejects.toThrow(/no-minor\.csv:1: .*missing columns MinorUnit/);
  });

  it('refuses a malformed currency code, naming the line of its XML entry', async () => {
    const file = writeTemp('bad-code.xml', xml.replace('<Ccy>ALL</Ccy>', '<Ccy>AL1</Ccy>'));
    // The ALBANIA <CcyNtry> opens on line 18 (after the non-ASCII ÅLAND ISLANDS entry).
    await expect(parse([file])).rejects.toThrow(/bad-code\.xml:18: expected a 3-letter code, got "AL1"/);
  });

  it('refuses malformed minor units and numeric codes in the CSV', async () => {
    const header = 'Entity,Currency,AlphabeticCode,NumericCode,MinorUnit,WithdrawalDate';
    const units = writeTemp('bad-units.csv', `${header}\nJAPAN,Yen,JPY,392,zero,\n`);
    await expect(parse([units])).rejects.toThrow(/bad-units\.csv:2: currency JPY: bad minor units "zero"/);
    const numeric = writeTemp('bad-numeric.csv', `${header}\nJAPAN,Yen,JPY,3920,0,\n`);
    await expect(parse([numeric])).rejects.toThrow(
      /bad-numeric\.csv:2: currency JPY: expected a numeric code/,
    );
  });

  it('refuses a truncated XML file', async () => {
    const file = writeTemp('truncated.xml', xml.slice(0, xml.indexOf('<CtryNm>JAPAN</CtryNm>')));
    const lines = xml.slice(0, xml.indexOf('<CtryNm>JAPAN</CtryNm>')).split('\n').length;
    await expect(parse([file])).rejects.toThrow(
      `truncated.xml:${lines}: XML ends with elements still open (truncated file?)`,
    );
  });

  it('refuses malformed XML, naming the line', async () => {
    const file = writeTemp('mismatched.xml', xml.replace('<Ccy>ALL</Ccy>', '<Ccy>ALL</Cc>'));
    await expect(parse([file])).rejects.toThrow(/mismatched\.xml:21: malformed XML: /);
  });

  it('refuses a truncated CSV file (last line cut inside the code)', async () => {
    const text = readFileSync(CODES_CSV, 'utf8');
    const file = writeTemp(
      'truncated.csv',
      text.slice(0, text.indexOf('JAPAN,Yen,JP') + 'JAPAN,Yen,JP'.length),
    );
    await expect(parse([file])).rejects.toThrow(/truncated\.csv:123: expected a 3-letter code, got "JP"/);
  });

  it('refuses a historic entry without a withdrawal date', async () => {
    const historic = readFileSync(LIST_THREE, 'utf8').replace('<WthdrwlDt>2003-01</WthdrwlDt>', '');
    const file = writeTemp('no-date.xml', historic);
    await expect(parse([file])).rejects.toThrow(/no-date\.xml:4: historic entry AFA has no <WthdrwlDt>/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tzSource } from '../../../src/ingest/tz.ts';
import type { TimeZone } from '../../../src/model/records.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const ZONE1970 = join(SHARED_DATA, 'tz', 'zone1970.tab');
const ZONE_TAB = join(SHARED_DATA, 'tz', 'zone.tab');
const ISO3166_TAB = join(SHARED_DATA, 'tz', 'iso3166.tab');
const M49 = join(SHARED_DATA, 'iso', 'unsd_m49_overview_en.csv');

const fixture = createIngestFixture('tz-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[]) {
  const batch = await tzSource.parse(files, context());
  return { batch, zones: batch.time_zones ?? [] };
}

function zone(zones: TimeZone[], name: string): TimeZone | undefined {
  return zones.find((z) => z.zone === name);
}

function zonesOf(zones: TimeZone[], iso2: string): string[] {
  return zones.filter((z) => z.countries.includes(iso2)).map((z) => z.zone);
}

describe('tzSource: the real IANA tables (tzdata 2026f)', () => {
  it('reads zone1970.tab: 312 zones, first and last rows, multi-country zones', async () => {
    const { batch, zones } = await parse([ZONE1970]);
    expect(batch.rows_read).toBe(312);
    expect(batch.rows_skipped).toBe(0);
    expect(zones).toHaveLength(312);
    expect(zones[0]).toEqual({
      zone: 'Europe/Andorra',
      countries: ['AD'],
      coordinates: '+4230+00131',
      comment: null,
    });
    expect(zones.at(-1)).toEqual({
      zone: 'Africa/Johannesburg',
      countries: ['ZA', 'LS', 'SZ'],
      coordinates: '-2615+02800',
      comment: null,
    });
    expect(zone(zones, 'Asia/Dubai')).toEqual({
      zone: 'Asia/Dubai',
      countries: ['AE', 'OM', 'RE', 'SC', 'TF'],
      coordinates: '+2518+05518',
      comment: 'Crozet',
    });
  });

  it('reads zone.tab: 418 zones with one country each', async () => {
    const { batch, zones } = await parse([ZONE_TAB]);
    expect(batch.rows_read).toBe(418);
    expect(zones).toHaveLength(418);
    expect(zones.every((z) => z.countries.length === 1)).toBe(true);
    expect(zone(zones, 'Antarctica/DumontDUrville')).toEqual({
      zone: 'Antarctica/DumontDUrville',
      countries: ['AQ'],
      coordinates: '-6640+14001',
      comment: "Dumont-d'Urville",
    });
  });

  it('lists America/New_York and America/Chicago for US', async () => {
    const { zones } = await parse([ZONE1970]);
    expect(zonesOf(zones, 'US')).toEqual(expect.arrayContaining(['America/New_York', 'America/Chicago']));
    expect(zone(zones, 'America/New_York')).toMatchObject({
      coordinates: '+404251-0740023',
      comment: 'Eastern (most areas)',
    });
  });

  it('merges both tables by zone, with the union of countries', async () => {
    const { batch, zones } = await parse([ZONE1970, ZONE_TAB]);
    expect(batch.rows_read).toBe(312 + 418);
    // Every zone of zone1970.tab also appears in zone.tab, so the union has zone.tab's 418.
    expect(zones).toHaveLength(418);
    expect(zone(zones, 'Asia/Dubai')?.countries).toEqual(['AE', 'OM', 'RE', 'SC', 'TF']);
    // Oman has its own (linked) zone in zone.tab only; the merge keeps both.
    expect(zone(zones, 'Asia/Muscat')?.countries).toEqual(['OM']);
    expect(zonesOf(zones, 'OM').sort()).toEqual(['Asia/Dubai', 'Asia/Muscat']);
  });
});

describe('tzSource: bad input', () => {
  it('refuses a file of another format (the M49 CSV)', async () => {
    await expect(parse([M49])).rejects.toThrow(
      /unsd_m49_overview_en\.csv:1: expected tab-separated country codes/,
    );
  });

  it('refuses iso3166.tab, which has no coordinates or zone columns', async () => {
    // Its first data line is line 26, after 25 comment lines: the error names the real line.
    const firstDataLine =
      readFileSync(ISO3166_TAB, 'utf8')
        .split('\n')
        .findIndex((l) => !l.startsWith('#')) + 1;
    await expect(parse([ISO3166_TAB])).rejects.toThrow(
      `iso3166.tab:${firstDataLine}: expected tab-separated`,
    );
  });

  it('refuses a malformed country code, naming the physical line past comments', async () => {
    const file = writeTemp(
      'bad-code.tab',
      '# c\nAD\t+4230+00131\tEurope/Andorra\n# mid\nUSA\t+404251-0740023\tAmerica/New_York\n',
    );
    await expect(parse([file])).rejects.toThrow(
      /bad-code\.tab:4: expected ISO 3166 alpha-2 country codes, got "USA"/,
    );
  });

  it('refuses malformed coordinates and zone names', async () => {
    const coordinates = writeTemp('bad-coordinates.tab', 'AD\t4230+00131\tEurope/Andorra\n');
    await expect(parse([coordinates])).rejects.toThrow(
      /bad-coordinates\.tab:1: expected ISO 6709 coordinates/,
    );
    const name = writeTemp('bad-zone.tab', 'AD\t+4230+00131\tEurope Andorra\n');
    await expect(parse([name])).rejects.toThrow(/bad-zone\.tab:1: expected a zone name like Area\/City/);
  });

  it('refuses a truncated file (last line cut after the coordinates)', async () => {
    const lines = readFileSync(ZONE1970, 'utf8').split('\n');
    const index = lines.findIndex((l) => l.includes('Asia/Kabul'));
    const cut = [...lines.slice(0, index), 'AF\t+3431+06912\t'].join('\n');
    const file = writeTemp('truncated.tab', cut);
    await expect(parse([file])).rejects.toThrow(`truncated.tab:${index + 1}: expected tab-separated`);
  });

  it('refuses a file with only comments', async () => {
    const file = writeTemp('comments.tab', '# nothing here\n# at all\n');
    await expect(parse([file])).rejects.toThrow(/comments\.tab: no zone rows/);
  });
});

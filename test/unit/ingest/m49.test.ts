import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/ingest/input-error.ts';
import { m49Source, slugifyName } from '../../../src/ingest/m49.ts';
import type { Country, Region } from '../../../src/model/records.ts';
import { createIngestFixture } from '../../helpers/ingest-fixture.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const M49 = join(SHARED_DATA, 'iso', 'unsd_m49_overview_en.csv');
const MIC = join(SHARED_DATA, 'mic', 'ISO10383_MIC.csv');
const HEADER = readFileSync(M49, 'utf8').split('\n')[0] ?? '';

const fixture = createIngestFixture('m49-test-');

const { context, writeTemp } = fixture;

async function parse(files: string[]) {
  const batch = await m49Source.parse(files, context());
  return { batch, regions: batch.regions ?? [], countries: batch.countries ?? [] };
}

function country(countries: Country[], iso2: string): Country | undefined {
  return countries.find((c) => c.iso2 === iso2);
}

function region(regions: Region[], code: string): Region | undefined {
  return regions.find((r) => r.code === code);
}

describe('m49Source: the real UN M49 overview', () => {
  it('reads 249 countries and 30 distinct areas (1 global, 5 regions, 17 sub-regions, 7 intermediate)', async () => {
    const { batch, regions, countries } = await parse([M49]);
    expect(batch.rows_read).toBe(249);
    expect(batch.rows_skipped).toBe(0);
    expect(countries).toHaveLength(249);
    expect(regions).toHaveLength(30);
    const levels = regions.map((r) => r.level);
    expect(levels.filter((l) => l === 'global')).toHaveLength(1);
    expect(levels.filter((l) => l === 'region')).toHaveLength(5);
    expect(levels.filter((l) => l === 'sub-region')).toHaveLength(17);
    expect(levels.filter((l) => l === 'intermediate-region')).toHaveLength(7);
  });

  it('reads the first column despite the UTF-8 BOM: World is the global area', async () => {
    const { regions } = await parse([M49]);
    expect(region(regions, '001')).toEqual({
      code: '001',
      name: 'World',
      slug: 'world',
      level: 'global',
      parent_code: null,
    });
  });

  it('reads Algeria (first row) with its zero-padded numeric code', async () => {
    const { countries } = await parse([M49]);
    expect(countries[0]).toEqual({
      iso2: 'DZ',
      iso3: 'DZA',
      numeric: '012',
      name: 'Algeria',
      region_code: '002',
      region_name: 'Africa',
      sub_region_code: '015',
      sub_region_name: 'Northern Africa',
      intermediate_region_code: null,
      intermediate_region_name: null,
      ldc: false,
      lldc: false,
      sids: false,
    });
  });

  it('places GB in Northern Europe (154) within Europe (150)', async () => {
    const { regions, countries } = await parse([M49]);
    const gb = country(countries, 'GB');
    expect(gb).toMatchObject({ iso3: 'GBR', numeric: '826', region_code: '150', sub_region_code: '154' });
    expect(region(regions, '154')).toEqual({
      code: '154',
      name: 'Northern Europe',
      slug: 'northern-europe',
      level: 'sub-region',
      parent_code: '150',
    });
    expect(region(regions, '150')).toMatchObject({
      name: 'Europe',
      slug: 'europe',
      level: 'region',
      parent_code: '001',
    });
  });

  it('gives Antarctica no region', async () => {
    const { countries } = await parse([M49]);
    expect(country(countries, 'AQ')).toEqual({
      iso2: 'AQ',
      iso3: 'ATA',
      numeric: '010',
      name: 'Antarctica',
      region_code: null,
      region_name: null,
      sub_region_code: null,
      sub_region_name: null,
      intermediate_region_code: null,
      intermediate_region_name: null,
      ldc: false,
      lldc: false,
      sids: false,
    });
  });

  it('makes kebab-case slugs, unique and within the contract', async () => {
    const { regions } = await parse([M49]);
    expect(region(regions, '419')).toMatchObject({
      slug: 'latin-america-and-the-caribbean',
      level: 'sub-region',
    });
    expect(region(regions, '029')).toMatchObject({
      slug: 'caribbean',
      level: 'intermediate-region',
      parent_code: '419',
    });
    expect(region(regions, '035')?.slug).toBe('south-eastern-asia');
    expect(region(regions, '202')?.slug).toBe('sub-saharan-africa');
    for (const r of regions) expect(r.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(new Set(regions.map((r) => r.slug)).size).toBe(regions.length);
    expect(slugifyName('Côte d’Ivoire')).toBe('cote-divoire');
    expect(slugifyName('Réunion')).toBe('reunion');
  });

  it('reads the LDC/LLDC/SIDS x flags, quoted names with commas, and NA (Namibia) as a code', async () => {
    const { countries } = await parse([M49]);
    expect(countries.filter((c) => c.ldc)).toHaveLength(45);
    expect(countries.filter((c) => c.lldc)).toHaveLength(32);
    expect(countries.filter((c) => c.sids)).toHaveLength(53);
    expect(country(countries, 'TV')).toMatchObject({ name: 'Tuvalu', ldc: true, lldc: false, sids: true });
    expect(country(countries, 'HK')?.name).toBe('China, Hong Kong Special Administrative Region');
    expect(country(countries, 'NA')).toMatchObject({ name: 'Namibia', intermediate_region_code: '018' });
  });
});

describe('m49Source: bad input', () => {
  const algeria = '001,World,002,Africa,015,Northern Africa,,,Algeria,012,DZ,DZA,,,';

  it('refuses a file of another format (the MIC list)', async () => {
    await expect(parse([MIC])).rejects.toThrow(
      /ISO10383_MIC\.csv:1: not a UN M49 overview CSV: missing columns/,
    );
  });

  it('refuses a file missing a required column', async () => {
    const header = HEADER.replace(',Small Island Developing States (SIDS)', '');
    const file = writeTemp('no-sids.csv', `${header}\n${algeria.slice(0, -1)}\n`);
    await expect(parse([file])).rejects.toThrow(
      /no-sids\.csv:1: .*missing columns Small Island Developing States/,
    );
  });

  it('refuses a malformed ISO alpha-2 code, naming the line', async () => {
    const file = writeTemp('bad-iso2.csv', `${HEADER}\n${algeria}\n${algeria.replace(',DZ,', ',D1,')}\n`);
    const error = await parse([file]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(
      /bad-iso2\.csv:3: column "ISO-alpha2 Code": expected two letters/,
    );
  });

  it('refuses a malformed M49 code', async () => {
    const file = writeTemp('bad-code.csv', `${HEADER}\n${algeria.replace(',012,', ',12a,')}\n`);
    await expect(parse([file])).rejects.toThrow(/bad-code\.csv:2: column "M49 Code": expected an M49 code/);
  });

  it('refuses a truncated file (last line cut short)', async () => {
    const text = readFileSync(M49, 'utf8');
    const cut = text.slice(0, text.indexOf('Egypt,818,E') + 'Egypt,818,E'.length);
    const file = writeTemp('truncated.csv', cut);
    await expect(parse([file])).rejects.toThrow(/truncated\.csv:3: column "ISO-alpha2 Code"/);
  });

  it('refuses a file with a header and no rows', async () => {
    const file = writeTemp('header-only.csv', `${HEADER}\n`);
    await expect(parse([file])).rejects.toThrow(/header-only\.csv: no data rows/);
  });

  it('refuses an area whose name disagrees with an earlier row', async () => {
    const egypt = algeria
      .replace('Algeria,012,DZ,DZA', 'Egypt,818,EG,EGY')
      .replace('Northern Africa', 'North Africa');
    const file = writeTemp('disagree.csv', `${HEADER}\n${algeria}\n${egypt}\n`);
    await expect(parse([file])).rejects.toThrow(/disagree\.csv:3: area 015 disagrees with line 2/);
  });
});

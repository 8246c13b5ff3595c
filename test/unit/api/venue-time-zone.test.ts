import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findUsualVenueZones, resolveVenueTimeZone } from '../../../src/api/v1/venue-time-zone.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

/** The zones zone1970.tab lists for a country, sorted by name like the time_zones table. */
function zonesOf(country: string): string[] {
  return readFileSync(join(SHARED_DATA, 'tz/zone1970.tab'), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split('\t'))
    .filter(([codes]) => codes!.split(',').includes(country))
    .map(([, , zone]) => zone!)
    .sort();
}

const US = zonesOf('US');
const AR = zonesOf('AR');
const JP = zonesOf('JP');

describe('resolveVenueTimeZone', () => {
  it('matches the city part of a zone name, case-insensitively, underscores as spaces', () => {
    expect(resolveVenueTimeZone('NEW YORK', US)).toEqual({
      time_zone: 'America/New_York',
      time_zone_exact: true,
    });
    expect(resolveVenueTimeZone('chicago', US)).toEqual({
      time_zone: 'America/Chicago',
      time_zone_exact: true,
    });
    expect(resolveVenueTimeZone(' Los  Angeles ', US)).toEqual({
      time_zone: 'America/Los_Angeles',
      time_zone_exact: true,
    });
  });

  it('matches the last part of a three-part zone name', () => {
    expect(AR).toContain('America/Argentina/Buenos_Aires');
    expect(resolveVenueTimeZone('BUENOS AIRES', AR)).toEqual({
      time_zone: 'America/Argentina/Buenos_Aires',
      time_zone_exact: true,
    });
  });

  it('does not match a part of a city name', () => {
    expect(resolveVenueTimeZone('NEW', US).time_zone_exact).toBe(false);
    expect(resolveVenueTimeZone('YORK', US).time_zone_exact).toBe(false);
  });

  it("takes a country's only zone as exact, whatever the city", () => {
    expect(JP).toEqual(['Asia/Tokyo']);
    expect(resolveVenueTimeZone('OSAKA', JP)).toEqual({ time_zone: 'Asia/Tokyo', time_zone_exact: true });
    expect(resolveVenueTimeZone(null, JP)).toEqual({ time_zone: 'Asia/Tokyo', time_zone_exact: true });
  });

  it("falls back to the country's usual venue zone, marked inexact", () => {
    expect(resolveVenueTimeZone('BOSTON', US, 'America/New_York')).toEqual({
      time_zone: 'America/New_York',
      time_zone_exact: false,
    });
  });

  it('falls back to the first zone listed when there is no usual zone or it is not the country’s', () => {
    expect(resolveVenueTimeZone('BOSTON', US)).toEqual({ time_zone: US[0], time_zone_exact: false });
    expect(resolveVenueTimeZone('BOSTON', US, 'Asia/Tokyo')).toEqual({
      time_zone: US[0],
      time_zone_exact: false,
    });
    expect(resolveVenueTimeZone(null, US)).toEqual({ time_zone: US[0], time_zone_exact: false });
  });

  it('gives null for a country without zones (ISO 10383 uses ZZ for venues without a country)', () => {
    expect(resolveVenueTimeZone('N/A', [])).toEqual({ time_zone: null, time_zone_exact: false });
  });
});

describe('findUsualVenueZones', () => {
  it('picks the zone most venues of a country are matched to by city', () => {
    const usual = findUsualVenueZones(
      [
        { country: 'US', city: 'CHICAGO' },
        { country: 'US', city: 'NEW YORK' },
        { country: 'US', city: 'NEW YORK' },
        { country: 'US', city: 'BOSTON' },
        { country: 'US', city: 'BOSTON' },
        { country: 'US', city: 'BOSTON' },
      ],
      new Map([['US', US]]),
    );
    expect(usual.get('US')).toBe('America/New_York');
  });

  it('breaks a tie by the order the zones are listed in', () => {
    const usual = findUsualVenueZones(
      [
        { country: 'US', city: 'NEW YORK' },
        { country: 'US', city: 'CHICAGO' },
      ],
      new Map([['US', US]]),
    );
    expect(usual.get('US')).toBe('America/Chicago');
  });

  it('skips countries with one zone and countries where no city matched', () => {
    const usual = findUsualVenueZones(
      [
        { country: 'JP', city: 'TOKYO' },
        { country: 'US', city: 'BOSTON' },
        { country: 'US', city: null },
      ],
      new Map([
        ['US', US],
        ['JP', JP],
      ]),
    );
    expect([...usual]).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blsReleaseForSeries } from '../../../src/calendar/bls-calendar.ts';
import type { BlsRelease } from '../../../src/calendar/types.ts';
import { SHARED_DATA } from '../../helpers/paths.ts';

const EXPECTED: Record<string, BlsRelease | null> = {
  CES0000000001: 'Employment Situation',
  CEU0000000001: 'Employment Situation',
  LNS14000000: 'Employment Situation',
  LNU04000000: 'Employment Situation',
  CUUR0000SA0: 'Consumer Price Index',
  CUSR0000SA0: 'Consumer Price Index',
  CUUS0000SA0: 'Consumer Price Index',
  CUSS0000SA0: 'Consumer Price Index',
  CWUR0000SA0: 'Consumer Price Index',
  CWSR0000SA0: 'Consumer Price Index',
  WPUFD4: 'Producer Price Index',
  WPU00000000: 'Producer Price Index',
  WPSFD4: 'Producer Price Index',
  PCU325211325211: 'Producer Price Index',
  PCS311311: 'Producer Price Index',
  SMS38000001000000001: 'State Employment and Unemployment',
  SMU36000000000000001: 'State Employment and Unemployment',
  LASST060000000000003: 'State Employment and Unemployment',
  LAUST060000000000003: 'State Employment and Unemployment',
  // Outside the calendar: county unemployment, JOLTS, import prices, employment cost index.
  LAUCN040010000000005: null,
  JTS000000000000000JOL: null,
  EIUIR: null,
  CIU1010000000000A: null,
  '': null,
};

/** Every BLS series id in the shared real files (API responses and the vintage file). */
function sharedSeriesIds(): string[] {
  const dir = join(SHARED_DATA, 'bls');
  const ids = new Set<string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const json = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
      series_id?: string;
      Results?: { series?: { seriesID: string }[] };
    };
    if (json.series_id !== undefined) ids.add(json.series_id);
    for (const series of json.Results?.series ?? []) ids.add(series.seriesID);
  }
  return [...ids].sort();
}

describe('blsReleaseForSeries', () => {
  it.each(Object.entries(EXPECTED))('%s → %s', (seriesId, release) => {
    expect(blsReleaseForSeries(seriesId)).toBe(release);
  });

  it('maps every series id of the shared BLS files and the datahub CPI (CUUR0000SA0)', () => {
    const ids = sharedSeriesIds();
    expect(ids).toEqual([
      'CES0000000001',
      'LNS11000000',
      'LNS12000000',
      'LNS13000000',
      'LNS14000000',
      'SMS38000001000000001',
    ]);
    expect(Object.fromEntries([...ids, 'CUUR0000SA0'].map((id) => [id, blsReleaseForSeries(id)]))).toEqual({
      CES0000000001: 'Employment Situation',
      LNS11000000: 'Employment Situation',
      LNS12000000: 'Employment Situation',
      LNS13000000: 'Employment Situation',
      LNS14000000: 'Employment Situation',
      SMS38000001000000001: 'State Employment and Unemployment',
      CUUR0000SA0: 'Consumer Price Index',
    });
  });
});

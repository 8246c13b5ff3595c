import { describe, expect, it } from 'vitest';
import { createBlsCalendar } from '../../../src/calendar/bls-calendar.ts';
import { BLS_RELEASES } from '../../../src/calendar/types.ts';
import { zonedTimeToUtc } from '../../../src/lib/zoned-time.ts';
import { loadBlsReleaseDates } from './calendar-fixture.ts';

const rows = await loadBlsReleaseDates();
const calendar = createBlsCalendar(rows);

describe('createBlsCalendar.releaseOf (the file is the expected data)', () => {
  it('reads all 796 rows of the shipped file', () => {
    expect(rows).toHaveLength(796);
  });

  it('gives every row its release date and time in New York, method release_calendar', () => {
    const wrong = rows.filter((row) => {
      const time = calendar.releaseOf(row.release, row.reference_period);
      const expected = zonedTimeToUtc(row.release_date, row.release_time_et, 'America/New_York');
      return time?.observed_at !== expected || time.method !== 'release_calendar' || time.note !== null;
    });
    expect(wrong).toEqual([]);
  });

  it('converts EST and EDT: ES 2010-01 at 13:30Z, SAE 2013-06 at 15:00 EDT', () => {
    expect(calendar.releaseOf('Employment Situation', '2010-01')?.observed_at).toBe('2010-02-05T13:30:00Z');
    expect(calendar.releaseOf('State Employment and Unemployment', '2013-06')?.observed_at).toBe(
      '2013-07-18T19:00:00Z',
    );
  });

  it.each(BLS_RELEASES)('%s: the cancelled October 2025 release has no row, so null', (release) => {
    expect(calendar.releaseOf(release, '2025-10')).toBeNull();
  });

  it('October 2025 payrolls first appeared with the November release of 2025-12-16 (the 2025-11 row)', () => {
    // Whoever files October 2025 payroll values takes this release as their knowledge time.
    expect(calendar.releaseOf('Employment Situation', '2025-11')?.observed_at).toBe('2025-12-16T13:30:00Z');
  });

  it('returns null outside the calendar', () => {
    expect(calendar.releaseOf('Employment Situation', '2009-12')).toBeNull();
    expect(calendar.releaseOf('Consumer Price Index', '2026-12')).toBeNull();
    expect(calendar.releaseOf('State Employment and Unemployment', '2013-09')).toBeNull();
  });
});

describe('createBlsCalendar: latest, next and coverage', () => {
  it('latestReleaseAtOrBefore includes the release instant itself', () => {
    const release = 'Employment Situation';
    expect(calendar.latestReleaseAtOrBefore(release, '2025-12-16T13:30:00Z')?.reference_period).toBe(
      '2025-11',
    );
    expect(calendar.latestReleaseAtOrBefore(release, '2025-12-16T13:29:59Z')?.reference_period).toBe(
      '2025-09',
    );
    expect(calendar.latestReleaseAtOrBefore(release, '2010-02-05T13:29:59Z')).toBeNull();
  });

  it('orders by release, not by period: PPI 2025-09 is the latest on 2025-12-01', () => {
    expect(calendar.latestReleaseAtOrBefore('Producer Price Index', '2025-12-01T00:00:00Z')).toEqual({
      reference_period: '2025-09',
      time: { observed_at: '2025-11-25T13:30:00Z', method: 'release_calendar', note: null },
    });
  });

  it('nextReleaseAfter is strictly after', () => {
    const release = 'Consumer Price Index';
    expect(calendar.nextReleaseAfter(release, '2025-10-24T12:30:00Z')?.reference_period).toBe('2025-11');
    expect(calendar.nextReleaseAfter(release, '2025-10-24T12:29:59Z')?.reference_period).toBe('2025-09');
    expect(calendar.nextReleaseAfter(release, '2026-12-10T13:30:00Z')).toBeNull();
  });

  it('coverageEnd is the last release date known per release', () => {
    expect(Object.fromEntries(BLS_RELEASES.map((r) => [r, calendar.coverageEnd(r)]))).toEqual({
      'Employment Situation': '2026-12-04',
      'Consumer Price Index': '2026-12-10',
      'Producer Price Index': '2026-12-15',
      'State Employment and Unemployment': '2026-01-27',
    });
    expect(createBlsCalendar([]).coverageEnd('Employment Situation')).toBeNull();
  });

  it('rejects a bad timestamp and a duplicated row', () => {
    expect(() => calendar.nextReleaseAfter('Employment Situation', 'yesterday')).toThrow(RangeError);
    const row = rows[0]!;
    expect(() => createBlsCalendar([row, row])).toThrow(/appears twice/);
  });
});

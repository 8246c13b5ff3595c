import { describe, expect, it } from 'vitest';
import { ECB_LATE_PUBLICATION_FROM, ecbReleaseTime } from '../../../src/calendar/ecb-calendar.ts';

/** Reference-rate dates and when they were published (UTC), across the 2016-07-01 switch. */
const CASES = [
  { date: '2016-01-04', observed_at: '2016-01-04T13:30:00Z', why: 'winter, 14:30 CET' },
  { date: '2016-06-30', observed_at: '2016-06-30T12:30:00Z', why: 'last day of 14:30, CEST' },
  { date: '2016-07-01', observed_at: '2016-07-01T14:00:00Z', why: 'first day of 16:00, CEST' },
  { date: '2025-01-02', observed_at: '2025-01-02T15:00:00Z', why: 'winter, 16:00 CET' },
  { date: '2025-07-15', observed_at: '2025-07-15T14:00:00Z', why: 'summer, 16:00 CEST' },
  { date: '2010-03-29', observed_at: '2010-03-29T12:30:00Z', why: 'the Monday after the DST change' },
];

describe('ecbReleaseTime', () => {
  it.each(CASES)('$date → $observed_at ($why)', ({ date, observed_at }) => {
    expect(ecbReleaseTime(date)).toEqual({ observed_at, method: 'release_calendar', note: null });
  });

  it('switches on 2016-07-01', () => {
    expect(ECB_LATE_PUBLICATION_FROM).toBe('2016-07-01');
  });

  it('rejects what is not a date', () => {
    expect(() => ecbReleaseTime('2016-02-30')).toThrow(RangeError);
    expect(() => ecbReleaseTime('2016-7-1')).toThrow(/not a date/);
  });
});

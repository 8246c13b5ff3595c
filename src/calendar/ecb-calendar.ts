import { zonedTimeToUtc } from '../lib/zoned-time.ts';
import { assertDate } from './assert-date.ts';
import type { CalendarTime } from './types.ts';

const FRANKFURT = 'Europe/Berlin';

/** The first day the euro reference rates were published at 16:00 instead of 14:30 CET. */
export const ECB_LATE_PUBLICATION_FROM = '2016-07-01';

/**
 * The publication time of the ECB euro foreign exchange reference rates of `date`: about 14:30
 * Frankfurt time before 2016-07-01 and about 16:00 from then on.
 */
export function ecbReleaseTime(date: string): CalendarTime {
  assertDate(date);
  // Local Frankfurt wall time, so summer dates (CEST) come out an hour earlier in UTC.
  const time = date < ECB_LATE_PUBLICATION_FROM ? '14:30' : '16:00';
  return { observed_at: zonedTimeToUtc(date, time, FRANKFURT), method: 'release_calendar', note: null };
}

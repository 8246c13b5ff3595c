import { blsReleaseForSeries } from '../calendar/bls-calendar.ts';
import type { Calendars } from '../calendar/types.ts';
import { addDays, zonedTimeToUtc } from '../lib/zoned-time.ts';
import type { KnowledgeTime } from '../model/records.ts';

/** ALFRED keeps its vintage dates in St. Louis time. */
const ALFRED_ZONE = 'America/Chicago';

/**
 * The knowledge time of an ALFRED vintage date. A vintage date names a day, not an instant: a
 * series filed under a BLS key is dated by that day's release of its program (PAYEMS: the
 * Employment Situation, 08:30 New York); any other by the end of the day in St. Louis, so that
 * `as_of` never sees a vintage before it could have been known.
 */
export function resolveVintageTime(date: string, seriesKey: string, calendars: Calendars): KnowledgeTime {
  const release = seriesKey.startsWith('bls.') ? blsReleaseForSeries(seriesKey.split('.')[1] ?? '') : null;
  if (release !== null) {
    const endOfDay = zonedTimeToUtc(addDays(date, 1), '00:00', 'America/New_York');
    const latest = calendars.bls.latestReleaseAtOrBefore(release, endOfDay);
    if (latest && zonedTimeToUtc(date, '00:00', 'America/New_York') <= latest.time.observed_at) {
      return { observed_at: latest.time.observed_at, method: 'vintage' };
    }
  }
  const endOfDay = zonedTimeToUtc(addDays(date, 1), '00:00', ALFRED_ZONE);
  return {
    observed_at: new Date(Date.parse(endOfDay) - 1000).toISOString().replace('.000Z', 'Z'),
    method: 'vintage',
  };
}
